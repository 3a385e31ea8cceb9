/**
 * `npm run migrate` (the release step, src/server/migrate-main.ts) on an empty and on a current store: exit 0
 * both times, the second with nothing to apply; a store it cannot reach exits 1 with one redacted line. SQLite
 * always; PostgreSQL in a database of its own when TEST_DATABASE_URL is set.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'claim-migrate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function migrate(databaseUrl: string): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/server/migrate-main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl },
    encoding: 'utf8',
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

async function tables(client: pg.Client | undefined, sqliteFile?: string): Promise<string[]> {
  if (sqliteFile) {
    const { default: SQLite } = await import('better-sqlite3');
    const db = new SQLite(sqliteFile, { readonly: true });
    const rows = db.prepare("select name from sqlite_master where type = 'table'").all() as {
      name: string;
    }[];
    db.close();
    return rows.map((r) => r.name);
  }
  const r = await client!.query<{ tablename: string }>(
    "select tablename from pg_tables where schemaname = 'public'",
  );
  return r.rows.map((x) => x.tablename);
}

describe('npm run migrate (SQLite)', () => {
  it('migrates an empty store, then finds a current one current', async () => {
    const file = join(dir, 'store.sqlite');
    const first = migrate(file);
    expect(first.code, first.err).toBe(0);
    expect(first.out).toContain("is at this release's schema");
    const t = await tables(undefined, file);
    expect(t).toEqual(expect.arrayContaining(['orders', 'store_migration', 'outbox', 'payments']));
    const second = migrate(file);
    expect(second.code, second.err).toBe(0);
  }, 60_000);

  it('exits 1 with one line when the store cannot be opened', () => {
    // Its folder is a file: the store cannot be created.
    writeFileSync(join(dir, 'a-file'), '');
    const r = migrate(join(dir, 'a-file', 'store.sqlite'));
    expect(r.code).toBe(1);
    expect(r.err.trim().split('\n')).toHaveLength(1);
  }, 60_000);
});

const PG = process.env.TEST_DATABASE_URL;
describe.runIf(PG)('npm run migrate (PostgreSQL)', () => {
  it('migrates an empty database, then finds a current one current', async () => {
    const name = `claim_migrate_${process.pid}_${Date.now()}`;
    const admin = new pg.Client({ connectionString: PG });
    await admin.connect();
    await admin.query(`create database ${name}`);
    const url = new URL(PG!);
    url.pathname = `/${name}`;
    const client = new pg.Client({ connectionString: url.href });
    try {
      const first = migrate(url.href);
      expect(first.code, first.err).toBe(0);
      await client.connect();
      expect(await tables(client)).toEqual(
        expect.arrayContaining(['orders', 'store_migration', 'outbox', 'payments']),
      );
      const second = migrate(url.href);
      expect(second.code, second.err).toBe(0);
    } finally {
      await client.end().catch(() => undefined);
      await admin.query(`drop database if exists ${name}`);
      await admin.end();
    }
  }, 60_000);

  it('exits 1 with one redacted line when the database is unreachable', () => {
    const r = migrate('postgres://someone:hunter2secret@127.0.0.1:9/none');
    expect(r.code).toBe(1);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).not.toContain('hunter2secret');
  }, 60_000);
});
