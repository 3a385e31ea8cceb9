/** bench:drop's checks of the store (../drop.ts): the drop's stock line, reservations, stock log and orders. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_DROP } from './production';

/**
 * Before a run: when this PostgreSQL runs without autovacuum (the test machines' server: `autovacuum = off`), the
 * database is vacuumed, as autovacuum would keep it. Each run creates a schema of some forty tables and the tests
 * drop hundreds; without vacuum the system catalogs swell with dead rows (pg_attribute: 269k dead to 3k live after
 * one test suite) and every backend's catalog reads slow down, run after run (drops.md "A bench run after another").
 * Returns whether it vacuumed.
 */
export async function vacuumWithoutAutovacuum(pgUrl: string): Promise<boolean> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ autovacuum: string }>('show autovacuum');
    if (rows[0]?.autovacuum !== 'off') return false;
    await client.query('vacuum');
    return true;
  } finally {
    await client.end();
  }
}

/** The drop's stock line, reservations, stock log and orders, read from the store after a run. */
export async function storeFacts(pgUrl: string, schema: string) {
  const { openStore } = await import('../../src/server/store/store');
  const store = await openStore({ kind: 'postgres', url: pgUrl, schema });
  try {
    const line = await store.db
      .selectFrom('stock')
      .select(['on_hand', 'reserved'])
      .where('product_id', '=', BENCH_DROP)
      .executeTakeFirstOrThrow();
    const res = await store.db
      .selectFrom('reservations')
      .select(['state', (eb) => eb.fn.countAll<number>().as('n')])
      .where('product_id', '=', BENCH_DROP)
      .groupBy('state')
      .execute();
    const log = await store.db
      .selectFrom('stock_changes')
      .select(['kind', 'on_hand_after', 'reserved_after', 'seq'])
      .where('product_id', '=', BENCH_DROP)
      .orderBy('seq')
      .execute();
    const orders = await store.db
      .selectFrom('orders')
      .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
      .where('items_json', 'like', `%${BENCH_DROP}%`)
      .groupBy('status')
      .execute();
    const states = Object.fromEntries(res.map((r) => [r.state, Number(r.n)]));
    const kinds: Record<string, number> = {};
    for (const l of log) kinds[l.kind] = (kinds[l.kind] ?? 0) + 1;
    const last = log.at(-1);
    return {
      onHand: Number(line.on_hand),
      reserved: Number(line.reserved),
      /** Reservations of the drop by state (held, sold, released). */
      states,
      /** Stock log rows of the drop by kind (seed, reserve, sale, release). */
      kinds,
      reserves: kinds.reserve ?? 0,
      /** The stock log's last row: its `on_hand_after`/`reserved_after` must be the line's. */
      last: last && { onHand: Number(last.on_hand_after), reserved: Number(last.reserved_after) },
      orders: orders.reduce((n, o) => n + Number(o.n), 0),
      /** The drop's orders by status. */
      statuses: Object.fromEntries(orders.map((o) => [o.status, Number(o.n)])),
    };
  } finally {
    await store.close();
  }
}

/** Lines of the instances' logs that say a pool connection timed out or was cut. */
export function poolTimeouts(dir: string, names: string[]): number {
  let n = 0;
  for (const name of names) {
    try {
      n += readFileSync(join(dir, name), 'utf8')
        .split('\n')
        .filter((l) =>
          /timeout exceeded when trying to connect|pool.*timeout|Connection terminated/i.test(l),
        ).length;
    } catch {
      /* no log */
    }
  }
  return n;
}
