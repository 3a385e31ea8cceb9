/**
 * Reads behind the seller's exceptions: which orders have an extra payment, paid more than the amount in the
 * counted transfers, were asked by the buyer to be cancelled, or may be paid by a transaction the store could not
 * read; which exceptions the seller has settled (seller
 * actions `resolved` and `refunded` name the exception); and the orders of a signed-in seller.
 */
import type { PaymentRole } from '../../core/api';
import { moneyFactsOf, REFUND_KEEPS_ORDER } from '../../core/refunds';
import type { SellerException } from '../../core/seller-api';
import { DomainError } from '../../core/errors';
import type { OrderRow } from '../store/schema';
import type { Db } from './types';

/** Exceptions whose refund leaves the order to ship (src/core/refunds.ts); a refund settling any other closes it. */
export { REFUND_KEEPS_ORDER };

/** A settling refund's detail (JSON, the exception in clear) for an exception that keeps the order to ship. */
export const refundKeepsOrderPatterns = (): string[] => REFUND_KEEPS_ORDER.map((e) => `%"exception":"${e}"%`);

/** Actions that settle an exception: "Record action" and "Mark refunded" (detail.exception names it). */
export const RESOLVING_ACTIONS = ['resolved', 'refunded'];

/**
 * The ledger and request facts behind an order's exceptions (src/core/order-exceptions.ts): an extra payment or
 * an over-amount counts only above the order's dust threshold (src/core/refunds.ts moneyFactsOf).
 */
export interface LedgerFacts {
  hasExtra: boolean;
  overpaid: boolean;
  cancelAsked: boolean;
  /** A transaction the watcher could not read may pay the order (unreadable.ts). */
  unreadablePayment?: boolean;
  /** Its first transfer was recorded after the grace's cutoff: missing shipping details are not due yet. */
  detailsAwaited?: boolean;
}

/**
 * The cutoff of the grace for shipping details (QR_DETAILS_GRACE_MS): an order paid without them is "Paid without
 * shipping details" once its first transfer was recorded at or before this instant (ISO-8601 UTC), not before —
 * its buyer may still be typing them. The same instant for the list, its counts, the summary and one order.
 */
export const detailsDueBefore = (now: Date, graceMs: number): string =>
  new Date(now.getTime() - graceMs).toISOString();

export async function exceptionFactsOf(
  db: Db,
  orders: readonly Pick<
    OrderRow,
    'id' | 'status' | 'amount_base_units' | 'dust_base_units' | 'cancel_requested_at'
  >[],
  /** ./exceptions.ts detailsDueBefore: the grace for shipping details ends for transfers recorded by then. */
  dueBefore: string,
): Promise<Map<string, LedgerFacts>> {
  const out = new Map<string, LedgerFacts>();
  if (orders.length === 0) return out;
  const ids = orders.map((o) => o.id);
  const [payments, unreadable] = await Promise.all([
    db
      .selectFrom('payments')
      .select(['order_id', 'role', 'received_base_units', 'recorded_at'])
      .where('order_id', 'in', ids)
      .orderBy('seq')
      .execute(),
    db.selectFrom('order_unreadable_payments').select('order_id').where('order_id', 'in', ids).execute(),
  ]);
  const unreadableIds = new Set(unreadable.map((r) => r.order_id));
  const ledgers = new Map<string, { role: PaymentRole; receivedBaseUnits: bigint }[]>();
  const firstAt = new Map<string, string>();
  for (const p of payments) {
    ledgers.set(p.order_id, [
      ...(ledgers.get(p.order_id) ?? []),
      { role: p.role, receivedBaseUnits: BigInt(p.received_base_units) },
    ]);
    const first = firstAt.get(p.order_id);
    if (first === undefined || p.recorded_at < first) firstAt.set(p.order_id, p.recorded_at);
  }
  for (const o of orders) {
    const mine = ledgers.get(o.id) ?? [];
    // Dust (below the order's threshold) is no exception: an outsider's base unit to a paid order's reference.
    const money = moneyFactsOf({
      status: o.status,
      amountBaseUnits: o.amount_base_units === null ? null : BigInt(o.amount_base_units),
      dustBaseUnits: BigInt(o.dust_base_units ?? '0'),
      payments: mine,
    });
    out.set(o.id, {
      ...money,
      // The buyer's cancel request is the order's own fact (orders.cancel_requested_at, "Cancel instead").
      cancelAsked: o.cancel_requested_at !== null,
      unreadablePayment: unreadableIds.has(o.id),
      detailsAwaited: (firstAt.get(o.id) ?? '') > dueBefore,
    });
  }
  return out;
}

export async function resolvedOf(db: Db, orderIds: string[]): Promise<Map<string, SellerException[]>> {
  const out = new Map<string, SellerException[]>();
  if (orderIds.length === 0) return out;
  const rows = await db
    .selectFrom('seller_actions')
    .select(['order_id', 'detail_json'])
    .where('order_id', 'in', orderIds)
    .where('action', 'in', RESOLVING_ACTIONS)
    .execute();
  for (const r of rows) {
    const e = (JSON.parse(r.detail_json) as { exception?: SellerException }).exception;
    if (e) out.set(r.order_id, [...(out.get(r.order_id) ?? []), e]);
  }
  return out;
}

/**
 * One of the seller's orders (locked on PostgreSQL when `lock`). Another vendor's order is "not found" too: its
 * existence is not this seller's business.
 */
export async function sellerOrder(
  db: Db,
  vendorIds: readonly string[],
  orderId: string,
  lock = false,
): Promise<OrderRow> {
  let sel = db
    .selectFrom('orders')
    .selectAll()
    .where('id', '=', orderId)
    .where('vendor_id', 'in', vendorIds.length ? [...vendorIds] : ['']);
  if (lock) sel = sel.forUpdate();
  const o = orderId.length <= 128 ? await sel.executeTakeFirst() : undefined;
  if (!o) throw new DomainError('not_found', 'order_not_found', 'No such order.');
  return o;
}
