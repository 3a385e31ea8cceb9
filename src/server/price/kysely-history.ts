/**
 * The price history persisted in the store (table price_history, SQLite or PostgreSQL), so the sparkline of
 * GET /api/price/history survives a restart. Each append also prunes points older than the retention (24 h);
 * both in one transaction (one durable commit). Several instances on one PostgreSQL may append the same instant:
 * the first one wins.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema';
import type { PriceHistoryStore, PricePoint } from './history';

export const PRICE_HISTORY_RETENTION_MS = 24 * 60 * 60_000;

export function createKyselyPriceHistoryStore(
  db: Kysely<Database>,
  opts: { now?: () => number; retentionMs?: number } = {},
): PriceHistoryStore & { prune(): Promise<number> } {
  const now = opts.now ?? Date.now;
  const retentionMs = opts.retentionMs ?? PRICE_HISTORY_RETENTION_MS;
  const cutoff = () => new Date(now() - retentionMs).toISOString();
  return {
    async append(point: PricePoint) {
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto('price_history')
          .values({ t: point.t.toISOString(), price_usd: point.priceUsd })
          .onConflict((oc) => oc.column('t').doNothing())
          .execute();
        await trx.deleteFrom('price_history').where('t', '<', cutoff()).execute();
      });
    },
    async since(date: Date) {
      const rows = await db
        .selectFrom('price_history')
        .select(['t', 'price_usd'])
        .where('t', '>=', date.toISOString())
        .orderBy('t')
        .execute();
      return rows.map((r) => ({ t: new Date(r.t), priceUsd: r.price_usd }));
    },
    async prune() {
      const res = await db.deleteFrom('price_history').where('t', '<', cutoff()).executeTakeFirst();
      return Number(res.numDeletedRows);
    },
  };
}
