/**
 * One writer per table: the repository's src/ passes `local/table-owners` with the real table → module map, and
 * the same rule and map refuse a writer planted outside the owner (Kysely and raw SQL, a table that is not named,
 * a table not in the map), checked on real files written for the test.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { afterAll, describe, expect, it } from 'vitest';
import { TABLE_OWNERS } from '../../eslint-rules/table-map.js';
import tableOwners from '../../eslint-rules/table-owners.js';

const root = path.resolve(import.meta.dirname, '../..');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'table-owners-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

const eslint = (cwd: string) =>
  new ESLint({
    cwd,
    overrideConfigFile: true,
    overrideConfig: {
      files: ['**/*.ts'],
      ignores: ['**/*.test.ts'],
      languageOptions: { parser: tseslint.parser },
      // An eslint-disable comment does not hide a second writer from this check.
      linterOptions: { noInlineConfig: true },
      plugins: { local: { rules: { 'table-owners': tableOwners } } },
      rules: { 'local/table-owners': ['error', TABLE_OWNERS] },
    },
  });
const messagesOf = async (cwd: string, files: string[]) =>
  (await eslint(cwd).lintFiles(files)).flatMap((r) =>
    r.messages
      .filter((m) => m.ruleId === 'local/table-owners')
      .map((m) => `${path.relative(cwd, r.filePath)}:${m.line} ${m.message}`),
  );

function write(rel: string, text: string): string {
  const file = path.join(scratch, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

describe('table owners', () => {
  it('every table of the schema has an owner, and src/ has no second writer', async () => {
    const schema = fs.readFileSync(path.join(root, 'src/server/store/schema.ts'), 'utf8');
    const start = schema.indexOf('export interface Database {');
    const database = schema.slice(start, schema.indexOf('\n}', start));
    const tables = [...database.matchAll(/^\s+(\w+): \w+;$/gm)];
    expect(tables.length).toBeGreaterThan(20);
    expect(tables.map((m) => m[1]).filter((t) => !(t! in TABLE_OWNERS.owners))).toEqual([]);
    expect(await messagesOf(root, ['src/**/*.ts'])).toEqual([]);
  }, 60_000);

  it('refuses a writer planted outside the owner, and leaves the owner and a reader alone', async () => {
    const planted = write(
      'src/server/orders/planted.ts',
      [
        "import { sql } from 'kysely';",
        'export async function planted(db: any, t: string) {',
        "  await db.updateTable('outbox').set({ state: 'failed' }).execute();",
        "  await db.deleteFrom('reservations as r').execute();",
        "  await sql`delete from price_alerts where kind = ${'x'}`.execute(db);",
        '  await sql`update ${sql.table(t)} set x = 1`.execute(db);',
        "  await db.insertInto('new_table').values({}).execute();",
        "  await db.updateTable('orders').set({ note: '' }).execute();",
        "  await db.selectFrom('outbox').selectAll().execute();",
        '}',
        '',
      ].join('\n'),
    );
    const owner = write(
      'src/server/mail/fine.ts',
      "export const fine = (db: any) => db.updateTable('outbox').set({ state: 'failed' }).execute();\n",
    );
    expect(await messagesOf(scratch, [planted, owner])).toEqual([
      'src/server/orders/planted.ts:3 Table outbox is written only by src/server/mail: ask that module (eslint-rules/table-owners.js).',
      'src/server/orders/planted.ts:4 Table reservations is written only by src/server/stock: ask that module (eslint-rules/table-owners.js).',
      'src/server/orders/planted.ts:5 Table price_alerts is written only by src/server/price: ask that module (eslint-rules/table-owners.js).',
      'src/server/orders/planted.ts:6 A write whose table is not a plain name cannot be checked: name the table.',
      'src/server/orders/planted.ts:7 Table new_table has no owner in the table → module map (eslint-rules/table-map.js).',
    ]);
  }, 30_000);
});
