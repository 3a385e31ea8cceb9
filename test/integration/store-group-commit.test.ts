/**
 * Group commit on SQLite (src/server/store/durable-sqlite.ts): every write resolves only after an fsync that
 * started after its commit; reads never wait for one; concurrent commits share an fsync.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createGroupSync, GroupCommitSqliteDialect, walSync } from '../../src/server/store/durable-sqlite';
import { openStore } from '../../src/server/store/store';

const dirs: string[] = [];
const tempFile = () => {
  const d = mkdtempSync(join(tmpdir(), 'claim-gc-'));
  dirs.push(d);
  return join(d, 'db.sqlite');
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('createGroupSync', () => {
  it('runs one sync for the calls made while another is running, and never resolves a call with an older sync', async () => {
    const started: number[] = [];
    const releases: (() => void)[] = [];
    const g = createGroupSync(
      () =>
        new Promise<void>((r) => {
          started.push(Date.now());
          releases.push(r);
        }),
    );
    const order: string[] = [];
    const a = g.flush().then(() => order.push('a'));
    const b = g.flush().then(() => order.push('b')); // arrives while sync 1 runs: needs sync 2
    const c = g.flush().then(() => order.push('c')); // shares sync 2
    expect(g.syncs).toBe(1);
    releases[0]?.();
    await a;
    expect(order).toEqual(['a']);
    await new Promise((r) => setImmediate(r));
    expect(g.syncs).toBe(2);
    expect(order).toEqual(['a']); // b and c wait for sync 2
    releases[1]?.();
    await Promise.all([b, c]);
    expect(order).toEqual(['a', 'b', 'c']);
    expect(g.syncs).toBe(2);
  });

  it('passes a failed fsync on to the waiting writer', async () => {
    const g = createGroupSync(() => Promise.reject(new Error('EIO')));
    await expect(g.flush()).rejects.toThrow('EIO');
  });
});

describe('GroupCommitSqliteDialect', () => {
  it('awaits one fsync per committed transaction or autocommit write, after the commit, and none for reads', async () => {
    const file = tempFile();
    const sqlite = new SQLite(file);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    const real = walSync(file);
    const seenInTransaction: boolean[] = [];
    const g = createGroupSync(async () => {
      seenInTransaction.push(sqlite.inTransaction);
      await real();
    });
    const db = new Kysely<{ t: { id: number; v: string } }>({
      dialect: new GroupCommitSqliteDialect(sqlite, g),
    });
    try {
      await sql`create table t (id integer primary key, v text not null)`.execute(db);
      const afterDdl = g.syncs;
      expect(afterDdl).toBe(1);

      await db.insertInto('t').values({ id: 1, v: 'a' }).execute();
      expect(g.syncs).toBe(2);

      await db.transaction().execute(async (trx) => {
        await trx.insertInto('t').values({ id: 2, v: 'b' }).execute();
        await trx.updateTable('t').set({ v: 'c' }).where('id', '=', 1).execute();
        expect(g.syncs).toBe(2); // nothing synced inside the transaction
      });
      expect(g.syncs).toBe(3);

      const rows = await db.selectFrom('t').selectAll().orderBy('id').execute();
      expect(rows).toEqual([
        { id: 1, v: 'c' },
        { id: 2, v: 'b' },
      ]);
      expect(g.syncs).toBe(3); // reads do not sync
      expect(seenInTransaction.every((x) => x === false)).toBe(true);
    } finally {
      await db.destroy();
    }
  });

  it('openStore (SQLite) uses WAL with synchronous NORMAL under group commit, and reopens migrated', async () => {
    const file = tempFile();
    const s1 = await openStore({ kind: 'sqlite', file });
    const mode = await sql<{ synchronous: number }>`pragma synchronous`.execute(s1.db);
    expect(mode.rows[0]?.synchronous).toBe(1); // NORMAL + group fsync (see durable-sqlite.ts)
    await s1.close();
    const s2 = await openStore({ kind: 'sqlite', file });
    expect(s2.ready()).toBe(true);
    await s2.close();
  });
});
