/**
 * Row helpers the stock repository's parts share (./repository.ts): keys, levels and availability read from the
 * `stock` table, a line's counts moved, an order's reservation marked, and the change-log row written.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import { availableOf, stockKey, type StockKey, type StockLevel } from '../../core/stock';
import type { Database, ReservationState, StockChangeKind } from '../store/schema';

export type Db = Kysely<Database> | Transaction<Database>;

export const variantOf = (k: StockKey) => k.variantId ?? '';

export const keyOf = (r: { product_id: string; variant_id: string }): StockKey =>
  r.variant_id !== '' ? { productId: r.product_id, variantId: r.variant_id } : { productId: r.product_id };

export async function log(
  q: Db,
  key: StockKey,
  kind: StockChangeKind,
  delta: { onHand: number; reserved: number },
  after: { on_hand: number; reserved: number; change_seq: number },
  orderId: string | null,
  actor: string,
  at: string,
): Promise<void> {
  // Every caller has just written the line's stock row in this transaction, bumping its change_seq.
  await q
    .insertInto('stock_changes')
    .values({
      id: randomUUID(),
      product_id: key.productId,
      variant_id: variantOf(key),
      seq: Number(after.change_seq),
      kind,
      on_hand_delta: delta.onHand,
      reserved_delta: delta.reserved,
      on_hand_after: Number(after.on_hand),
      reserved_after: Number(after.reserved),
      order_id: orderId,
      actor,
      at,
    })
    .execute();
}

/** Moves a line's counts and bumps its change_seq; returns the line after (for the change log). */
export const moveLine = (
  trx: Db,
  r: { product_id: string; variant_id: string },
  onHandDelta: number,
  reservedDelta: number,
  at: string,
) =>
  trx
    .updateTable('stock')
    .set((eb) => ({
      on_hand: eb('on_hand', '+', onHandDelta),
      reserved: eb('reserved', '+', reservedDelta),
      change_seq: eb('change_seq', '+', 1),
      updated_at: at,
    }))
    .where('product_id', '=', r.product_id)
    .where('variant_id', '=', r.variant_id)
    .returning(['on_hand', 'reserved', 'change_seq'])
    .executeTakeFirstOrThrow();

/** Sets the state of an order's reservation of one line. */
export const markReservation = (
  trx: Db,
  r: { order_id: string; product_id: string; variant_id: string },
  state: ReservationState,
  at: string,
) =>
  trx
    .updateTable('reservations')
    .set({ state, updated_at: at })
    .where('order_id', '=', r.order_id)
    .where('product_id', '=', r.product_id)
    .where('variant_id', '=', r.variant_id)
    .execute();

export const toLevel = (r: {
  product_id: string;
  variant_id: string;
  on_hand: number;
  reserved: number;
}): StockLevel => ({
  productId: r.product_id,
  ...(r.variant_id !== '' ? { variantId: r.variant_id } : {}),
  onHand: Number(r.on_hand),
  reserved: Number(r.reserved),
});

/** Every stock line. */
export async function levels(q: Db): Promise<StockLevel[]> {
  const rows = await q
    .selectFrom('stock')
    .select(['product_id', 'variant_id', 'on_hand', 'reserved'])
    .orderBy('product_id')
    .orderBy('variant_id')
    .execute();
  return rows.map(toLevel);
}

/** Units available now of these lines' products, per line. */
export async function availableMap(q: Db, lines: readonly StockKey[]): Promise<(k: StockKey) => number> {
  const ids = [...new Set(lines.map((l) => l.productId))];
  const rows = ids.length
    ? await q
        .selectFrom('stock')
        .select(['product_id', 'variant_id', 'on_hand', 'reserved'])
        .where('product_id', 'in', ids)
        .execute()
    : [];
  const map = new Map(rows.map((r) => [stockKey(toLevel(r)), availableOf(toLevel(r))]));
  return (k) => map.get(stockKey(k)) ?? 0; // no line: nothing to sell
}
