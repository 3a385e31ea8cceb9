/**
 * `npm run migrate` (the release step, src/server/migrate-main.ts) on an empty and on a current store: exit 0
 * both times, the second with nothing to apply; a store it cannot reach exits 1 with one redacted line. SQLite
 * always; PostgreSQL in a database of its own when TEST_DATABASE_URL is set.
 *
 * MIGRATE_ON_START: the server in production mode (off by default) refuses an empty store with one plain line
 * naming `npm run migrate`, and starts once the release step has run; a store that has a migration this code does
 * not know (the next release's, expand/contract) opens, with or without migrating.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { demoKeys } from '../support/demo-keypairs';
import { MigrationsPendingError, openStore } from '../../src/server/store/store';
import { TEST_DATA_KEYS } from '../support/fixtures';

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

/** The server in production mode (SOLANA_RPC_URL set; nothing listens there: readiness does not need it). */
function productionEnv(databaseUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  const k = demoKeys();
  return {
    PATH: process.env.PATH ?? '',
    PORT: '0',
    DATABASE_URL: databaseUrl,
    SOLANA_RPC_URL: 'http://127.0.0.1:9',
    PRICE_API_URL: 'http://127.0.0.1:9',
    DATA_KEYS: TEST_DATA_KEYS,
    QUOTE_SECRET: 'q'.repeat(40),
    SELLER_EMAIL: 'seller@shop.test',
    CLAIM_MINT: k.mint.toBase58(),
    RECIPIENT_COOPERSGLASS: k.recipients.coopersglass.toBase58(),
    RECIPIENT_GORILLA: k.recipients.gorilla.toBase58(),
    MAIL_TRANSPORT: 'file',
    MAIL_DIR: join(dir, 'mail'),
    DRAIN_MS: '0',
    ...extra,
  };
}

describe('MIGRATE_ON_START', () => {
  it('production (off): an empty store stops the start with one line naming npm run migrate; after the release step it starts', async () => {
    const file = join(dir, 'prod.sqlite');
    const refused = spawnSync(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
      cwd: ROOT,
      env: productionEnv(file),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(refused.status, refused.stdout + refused.stderr).toBe(1);
    const lines = refused.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^The database is behind this release: \d+ migrations not applied \(0001_\w+, …\)\. Run `npm run migrate` \(the release step\) first, or set MIGRATE_ON_START=1 to migrate at start\.$/,
    );
    // Nothing was created: the refusal comes before any migration.
    expect(await tables(undefined, file)).toEqual([]);

    expect(migrate(file).code).toBe(0);
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
      cwd: ROOT,
      env: productionEnv(file),
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', r));
    const url = await new Promise<string>((res, rej) => {
      const timer = setTimeout(() => rej(new Error(`no start within 60 s:\n${out}`)), 60_000);
      child.stdout.on('data', () => {
        const m = /\$CLAIM store on (http:\/\/[\d.:]+)/.exec(out);
        if (m?.[1]) {
          clearTimeout(timer);
          res(m[1]);
        }
      });
      child.once('exit', () => rej(new Error(`exited:\n${out}`)));
    });
    expect((await fetch(`${url}/api/health/ready`)).status).toBe(200);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 120_000);

  it('a store with a migration from a later release opens, migrating or not (expand, then contract)', async () => {
    const file = join(dir, 'later.sqlite');
    await (await openStore({ kind: 'sqlite', file })).close();
    const { default: SQLite } = await import('better-sqlite3');
    const db = new SQLite(file);
    db.prepare("insert into store_migration (name, timestamp) values ('9999_next_release', ?)").run(
      new Date().toISOString(),
    );
    db.close();
    for (const migrate of [false, true]) {
      const store = await openStore({ kind: 'sqlite', file }, { migrate });
      expect(store.ready()).toBe(true);
      await store.close();
    }
    // One this code has and the store lacks is refused without migrating.
    const behind = join(dir, 'behind.sqlite');
    await expect(openStore({ kind: 'sqlite', file: behind }, { migrate: false })).rejects.toBeInstanceOf(
      MigrationsPendingError,
    );
  }, 60_000);
});
