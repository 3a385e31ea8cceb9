/**
 * Imports: the whole tree has no import cycle (walked with the TypeScript pre-processor, as the lint rule does),
 * and the local lint rules refuse a cycle and a feature crossing (checked on real files written for the test).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { afterAll, describe, expect, it } from 'vitest';
import { codeFiles, cycles } from '../../eslint-rules/import-graph.js';
import local from '../../eslint-rules/imports.js';

const root = path.resolve(import.meta.dirname, '../..');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'imports-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

function write(rel: string, text: string): string {
  const file = path.join(scratch, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

const boundaries = [
  { from: 'src/web/seller', forbid: ['src/web/checkout'], message: 'seller ↛ checkout' },
  { from: 'src/web/checkout/wallet', forbid: ['src/web/checkout/qr'], message: 'wallet ↛ qr' },
];
const eslint = () =>
  new ESLint({
    cwd: scratch,
    overrideConfigFile: true,
    overrideConfig: {
      files: ['**/*.ts'],
      languageOptions: { parser: tseslint.parser },
      plugins: { local },
      rules: { 'local/no-cycle': 'error', 'local/feature-boundaries': ['error', boundaries] },
    },
  });
const messagesOf = async (file: string) =>
  (await eslint().lintFiles([file])).flatMap((r) => r.messages.map((m) => `${m.ruleId}: ${m.message}`));

describe('imports', () => {
  it('the repository has no import cycle', () => {
    const files = ['src', 'test', 'scripts', 'bench', 'catalog'].flatMap((d) =>
      codeFiles(path.join(root, d)),
    );
    expect(files.length).toBeGreaterThan(200);
    expect(cycles(files).map((c) => c.map((f) => path.relative(root, f)))).toEqual([]);
  });

  it('finds a cycle, type-only imports included', () => {
    const a = write('cyc/a.ts', "import type { B } from './b';\nexport const A = 1; export type X = B;\n");
    const b = write('cyc/b.ts', "import { A } from './a';\nexport type B = typeof A;\n");
    write('cyc/c.ts', "import { A } from './a';\nexport const C = A;\n");
    expect(cycles([a, b, path.join(scratch, 'cyc/c.ts')])).toEqual([[a, b]]);
  });

  it('lint refuses the cycle on both files and leaves an acyclic importer alone', async () => {
    expect(await messagesOf(path.join(scratch, 'cyc/a.ts'))).toEqual([
      'local/no-cycle: Import cycle: cyc/a.ts → cyc/b.ts → cyc/a.ts. Move what both need into a module neither imports.',
    ]);
    expect(await messagesOf(path.join(scratch, 'cyc/b.ts'))).toHaveLength(1);
    expect(await messagesOf(path.join(scratch, 'cyc/c.ts'))).toEqual([]);
  });

  it('lint refuses seller → checkout and wallet → qr, and allows shared and core', async () => {
    write('src/web/checkout/qr/useQuote.ts', 'export const q = 1;\n');
    write('src/web/checkout/shared/QrImage.ts', 'export const img = 1;\n');
    write('src/web/lib/call.ts', 'export const call = 1;\n');
    const seller = write(
      'src/web/seller/Console.ts',
      "import { q } from '../checkout/qr/useQuote';\nimport { call } from '../lib/call';\nexport const s = q + call;\n",
    );
    const wallet = write(
      'src/web/checkout/wallet/Pay.ts',
      "import { q } from '../qr/useQuote';\nimport { img } from '../shared/QrImage';\nexport const w = q + img;\n",
    );
    expect(await messagesOf(seller)).toEqual([
      'local/feature-boundaries: seller ↛ checkout (../checkout/qr/useQuote)',
    ]);
    expect(await messagesOf(wallet)).toEqual(['local/feature-boundaries: wallet ↛ qr (../qr/useQuote)']);
  });
});
