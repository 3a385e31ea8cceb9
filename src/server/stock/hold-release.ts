/**
 * Holds given back (docs/decisions/holds.md): one reservation at a time, conditionally (only a row still `held`
 * is released, so a hold released twice — its own deadline, the vendor, the order's expiry, a payment racing any
 * of them — moves the stock line once). Every release writes its change-log row.
 *
 * - `releaseLapsed`: every hold past its own deadline, by the wall clock, whatever the payment watcher's lag (the
 *   sweep every 30 s; and a product's, as soon as a read for it sees one: ./repository.ts): a hold is short, and a payment that comes after it lapsed is sold if the piece is still free (else oversold and
 *   refunded: the sale rule, src/core/stock.ts).
 * - `releaseHoldsOf`: the vendor gives back everything held on one of their lines (then may lower the stock).
 */
import type { Kysely, Transaction } from 'kysely';
import type { StockKey } from '../../core/stock';
import type { Database } from '../store/schema';
import { keyOf, log, moveLine, variantOf } from './lines';

interface HeldRow {
  order_id: string;
  product_id: string;
  variant_id: string;
  quantity: number;
}

/**
 * Releases one reservation if it is still held (a conditional update of its row, which PostgreSQL locks to the
 * commit; SQLite has one writer): its units go back on the line. Returns the units released (0: not held).
 */
export async function releaseHeld(
  trx: Transaction<Database>,
  r: HeldRow,
  at: string,
  actor: string,
): Promise<number> {
  const marked = await trx
    .updateTable('reservations')
    .set({ state: 'released', updated_at: at })
    .where('order_id', '=', r.order_id)
    .where('product_id', '=', r.product_id)
    .where('variant_id', '=', r.variant_id)
    .where('state', '=', 'held')
    .executeTakeFirst();
  if (Number(marked.numUpdatedRows) === 0) return 0;
  const q = Number(r.quantity);
  const row = await moveLine(trx, r, 0, -q, at);
  await log(trx, keyOf(r), 'release', { onHand: 0, reserved: -q }, row, r.order_id, actor, at);
  return q;
}

/** How many lapsed holds one sweep releases at most (the next sweep takes the rest). */
const SWEEP_LIMIT = 500;

/**
 * Every hold whose own deadline is at or before `at` is released (actor `expiry`), or only those of `productIds`
 * (a buyer's read saw them past their deadline: their pieces come back now, not at the next sweep). Returns the
 * units released.
 */
export async function releaseLapsed(
  db: Kysely<Database>,
  at: string,
  productIds?: readonly string[],
): Promise<number> {
  let sel = db
    .selectFrom('reservations')
    .select(['order_id', 'product_id', 'variant_id', 'quantity'])
    .where('state', '=', 'held')
    .where('expires_at', '<=', at);
  if (productIds) sel = sel.where('product_id', 'in', productIds);
  const due = await sel.orderBy('expires_at').limit(SWEEP_LIMIT).execute();
  let n = 0;
  // One short transaction per hold: the stock row is locked only for its own release.
  for (const r of due) n += await db.transaction().execute((trx) => releaseHeld(trx, r, at, 'expiry'));
  return n;
}

/**
 * Everything held on one line is released (`actor`: the vendor, e.g. `seller:<address>`). The orders stay open:
 * a payment that still comes is sold if the unit is free, else the order is oversold and refunded.
 */
export async function releaseHoldsOf(
  db: Kysely<Database>,
  key: StockKey,
  actor: string,
  at: string,
): Promise<number> {
  const held = await db
    .selectFrom('reservations')
    .select(['order_id', 'product_id', 'variant_id', 'quantity'])
    .where('product_id', '=', key.productId)
    .where('variant_id', '=', variantOf(key))
    .where('state', '=', 'held')
    .execute();
  let n = 0;
  // One transaction per hold, locking its reservation then the line, as a payment's sale does: never a deadlock.
  for (const r of held) n += await db.transaction().execute((trx) => releaseHeld(trx, r, at, actor));
  return n;
}
