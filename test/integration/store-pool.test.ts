/**
 * The PostgreSQL store's pool kept warm (DATABASE_POOL_WARM, src/server/store/store.ts): its connections are open
 * before the store is returned, serve a burst without setting up a backend, and stay open past the idle timeout;
 * without it a connection opens when needed and closes once idle.
 */
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/server/store/store';
import { PG_URL, postgresBackend } from './orders-support';

const backend = postgresBackend();
afterAll(() => backend.cleanup());

/** Ten statements at once, each on its own connection: the backends' pids and start times. */
async function burst(store: Store): Promise<{ pid: number; started: Date }[]> {
  const rows = await Promise.all(
    Array.from({ length: 10 }, () =>
      sql<{ pid: number; started: Date }>`
        select pg_backend_pid() as pid, (select backend_start from pg_stat_activity where pid = pg_backend_pid()) as started
        from pg_sleep(0.1)`.execute(store.db),
    ),
  );
  return rows.map((r) => r.rows[0]!);
}

describe.runIf(PG_URL)('the PostgreSQL pool', () => {
  it('kept warm: ten connections open at start serve a burst and stay open past the idle timeout; else they close', async () => {
    const warm = await openStore(await backend.fresh(), { warmPool: true });
    const cold = await openStore(await backend.fresh());
    try {
      const opened = new Date();
      expect(warm.connections()).toBe(10);
      expect(cold.connections()).toBeLessThanOrEqual(1); // the migration check's
      // The burst finds its backends already there: every one started before the store was returned.
      const served = await burst(warm);
      expect(new Set(served.map((r) => r.pid)).size).toBe(10);
      for (const r of served) expect(r.started.getTime()).toBeLessThanOrEqual(opened.getTime());
      // The cold pool sets up its backends for the burst.
      const coldServed = await burst(cold);
      expect(coldServed.filter((r) => r.started.getTime() > opened.getTime()).length).toBeGreaterThanOrEqual(
        9,
      );
      expect(cold.connections()).toBe(10);
      // Past the idle timeout (10 s): the warm pool keeps them, the cold one has closed them.
      await new Promise((r) => setTimeout(r, 11_500));
      expect(warm.connections()).toBe(10);
      expect(cold.connections()).toBe(0);
      expect((await burst(warm)).map((r) => r.pid).sort()).toEqual(served.map((r) => r.pid).sort());
    } finally {
      await warm.close();
      await cold.close();
    }
  }, 30_000);
});
