/**
 * src/server/stock/xact-locks.ts on PostgreSQL: a transaction asks for an advisory lock once (asking again is
 * answered from memory), the lock is really held to the end of the transaction (another connection cannot take it
 * until then), and another transaction asks again. A hold's two locks (the wallet's, the client's) in one statement.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from '../../src/server/store/schema';
import { lockBuyer, xactLock } from '../../src/server/stock/xact-locks';

const PG_URL = process.env.TEST_DATABASE_URL;

describe.runIf(Boolean(PG_URL))('advisory locks once per transaction (PostgreSQL)', () => {
  let db: Kysely<Database>;
  let other: pg.Client;
  const sent: string[] = [];
  const key = `test-lock:${Date.now()}:${Math.random()}`;
  /** Whether another connection can take `k` now (it lets go at once if it could). */
  const free = async (k: string) => {
    const { rows } = await other.query<{ ok: boolean }>(
      'select pg_try_advisory_lock(hashtextextended($1::text, 0)) as ok',
      [k],
    );
    if (rows[0]?.ok) await other.query('select pg_advisory_unlock(hashtextextended($1::text, 0))', [k]);
    return rows[0]?.ok;
  };

  beforeAll(async () => {
    db = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: PG_URL, max: 2 }) }),
      log: (e) => {
        if (e.level === 'query') sent.push(e.query.sql);
      },
    });
    other = new pg.Client({ connectionString: PG_URL });
    await other.connect();
  });
  afterAll(async () => {
    await other?.end();
    await db?.destroy();
  });

  it('takes each lock once, holds it to the commit, and a new transaction asks again', async () => {
    const locks = () => sent.filter((q) => q.includes('pg_advisory_xact_lock')).length;
    await db.transaction().execute(async (trx) => {
      await xactLock(trx, key);
      await xactLock(trx, `${key}:b`);
      await xactLock(trx, key);
      await xactLock(trx, `${key}:b`);
      expect(locks()).toBe(2);
      expect(await free(key)).toBe(false);
      expect(await free(`${key}:b`)).toBe(false);
    });
    expect(await free(key)).toBe(true);
    await db.transaction().execute(async (trx) => {
      await xactLock(trx, key);
      expect(await free(key)).toBe(false);
    });
    expect(locks()).toBe(3);
    expect(await free(key)).toBe(true);
  });

  it("takes a hold's wallet and client locks in one statement, held to the commit, not asked again", async () => {
    const statements = () => sent.filter((q) => q.includes('pg_advisory_xact_lock'));
    const before = statements().length;
    const wallet = `${key}:w`;
    const holder = `${key}:h`;
    await db.transaction().execute(async (trx) => {
      await lockBuyer(trx, wallet, holder);
      expect(statements().length).toBe(before + 1);
      expect(
        statements()
          .at(-1)
          ?.match(/pg_advisory_xact_lock/g)?.length,
      ).toBe(2);
      // Asked again by the balance rule, the cap and the per-buyer limit: answered from memory.
      await xactLock(trx, `wallet:${wallet}`);
      await xactLock(trx, `hold:${holder}`);
      await lockBuyer(trx, wallet, holder);
      expect(statements().length).toBe(before + 1);
      expect(await free(`wallet:${wallet}`)).toBe(false);
      expect(await free(`hold:${holder}`)).toBe(false);
    });
    expect(await free(`wallet:${wallet}`)).toBe(true);
    expect(await free(`hold:${holder}`)).toBe(true);
    // The wallet's alone (no client lock to take), and only what is not held yet.
    await db.transaction().execute(async (trx) => {
      await xactLock(trx, `wallet:${wallet}`);
      await lockBuyer(trx, wallet, undefined);
      expect(statements().length).toBe(before + 2);
      await lockBuyer(trx, wallet, holder);
      expect(statements().length).toBe(before + 3);
      expect(
        statements()
          .at(-1)
          ?.match(/pg_advisory_xact_lock/g)?.length,
      ).toBe(1);
      expect(await free(`hold:${holder}`)).toBe(false);
    });
  });
});
