/** bench:drop's checks of the store (../drop.ts): the drop's stock line, reservations, stock log and orders. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_DROP } from './production';

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
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('items_json', 'like', `%${BENCH_DROP}%`)
      .executeTakeFirstOrThrow();
    const states = Object.fromEntries(res.map((r) => [r.state, Number(r.n)]));
    return {
      onHand: Number(line.on_hand),
      reserved: Number(line.reserved),
      states,
      reserves: log.filter((l) => l.kind === 'reserve').length,
      last: log.at(-1),
      orders: Number(orders.n),
    };
  } finally {
    await store.close();
  }
}

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
