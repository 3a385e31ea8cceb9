/**
 * The PostgreSQL store's pool kept warm (DATABASE_POOL_WARM, src/server/store/store.ts): its connections are open
 * before the store is returned, serve a burst without setting up a backend, and stay open past the idle timeout;
 * without it a connection opens when needed and closes once idle. Each warm connection has run the warm-up
 * (src/server/store/pg-warm.ts: every table of the schema planned, the drop line's function called in a transaction
 * rolled back); a warm-up that fails leaves no connection in a transaction and the store works.
 */
import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/server/store/store';
import { WARM_MARK } from '../../src/server/store/pg-warm';
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

/** The backends whose last query was this schema's warm-up: their state and that query. */
async function warmedBackends(schema: string): Promise<{ state: string; query: string }[]> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ state: string; query: string }>(
      `select state, query from pg_stat_activity where starts_with(query, $1)`,
      [`${WARM_MARK}${schema} */`],
    );
    return rows;
  } finally {
    await client.end();
  }
}

async function freshSchema() {
  const config = await backend.fresh();
  if (config.kind !== 'postgres') throw new Error('a PostgreSQL backend was expected');
  return { ...config, poolSize: 3 };
}

describe.runIf(PG_URL)("the PostgreSQL pool's warm-up", () => {
  it('each connection has run the warm-up before the store is returned, and nothing it did remains', async () => {
    const config = await freshSchema();
    const store = await openStore(config, { warmPool: true });
    try {
      expect(store.connections()).toBe(3);
      const warmed = await warmedBackends(config.schema!);
      expect(warmed).toHaveLength(3);
      for (const b of warmed) {
        expect(b.state).toBe('idle');
        // (pg_stat_activity shows a query's first 1 kB: the function's call and the first tables.)
        expect(b.query).toContain(
          `*/ begin;\nselect * from drop_line_advance('', '', '');\nselect * from drop_line_join('', '{}', '{}', '{}', '', '');\nselect * from rpc_budget_claim('', '', '[]', 0, '[]');\nrollback;\nselect * from "drop_line" limit 0;`,
        );
      }
      const { rows } = await sql<{ n: string }>`select count(*) as n from drop_line`.execute(store.db);
      expect(Number(rows[0]!.n)).toBe(0);
    } finally {
      await store.close();
    }
  });

  it('without DATABASE_POOL_WARM no connection is warmed', async () => {
    const config = await freshSchema();
    const store = await openStore(config);
    try {
      await sql`select 1`.execute(store.db);
      expect(await warmedBackends(config.schema!)).toHaveLength(0);
    } finally {
      await store.close();
    }
  });

  it('a warm-up that fails closes its connection (no transaction left open) and the store still answers', async () => {
    const config = await freshSchema();
    const migrated = await openStore(config);
    // The drop line's function now fails when called: every warm-up fails inside its transaction.
    await sql`
      create or replace function drop_line_advance(p_product text, p_now text, p_cutoff text)
      returns table(let_through text, free_units bigint) language plpgsql volatile as $fn$
      begin raise exception 'broken on purpose'; end $fn$`.execute(migrated.db);
    await migrated.close();

    const store = await openStore(config, { warmPool: true });
    try {
      // The failed connections were closed (their backends end a moment later), not given back in an aborted
      // transaction.
      await expect.poll(() => warmedBackends(config.schema!), { timeout: 5_000 }).toHaveLength(0);
      const { rows } = await sql<{ one: number }>`select 1 as one`.execute(store.db);
      expect(rows).toEqual([{ one: 1 }]);
      await store.db.transaction().execute(async (trx) => {
        await sql`select count(*) from orders`.execute(trx);
      });
    } finally {
      await store.close();
    }
  });
});
