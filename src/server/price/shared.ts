/**
 * The fleet's one price poller (issue 31, item 5): the instance holding the 'price' lease (ops/lease.ts) polls
 * the sources and stores what it has in `price_current` after each refresh; the others serve that
 * (service.ts `follow`). On SQLite there is one instance and no share: it polls.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema';
import type { HeldLease } from '../ops/lease';
import type { PriceShare, PriceSnapshot } from './service';

const NAME = 'claim';

export function createPriceShare(db: Kysely<Database>, lease: Pick<HeldLease, 'held'>): PriceShare {
  return {
    leading: () => lease.held(),
    async publish(snapshot: PriceSnapshot) {
      const json = JSON.stringify(snapshot);
      const at = new Date().toISOString();
      await db
        .insertInto('price_current')
        .values({ name: NAME, snapshot_json: json, updated_at: at })
        .onConflict((oc) => oc.column('name').doUpdateSet({ snapshot_json: json, updated_at: at }))
        .execute();
    },
    async latest() {
      const row = await db
        .selectFrom('price_current')
        .select('snapshot_json')
        .where('name', '=', NAME)
        .executeTakeFirst();
      return row ? (JSON.parse(row.snapshot_json) as PriceSnapshot) : undefined;
    },
  };
}
