/**
 * Reads behind the seller's exceptions: which orders have an extra payment, which exceptions the seller has
 * settled (seller actions `resolved` and `refunded` name the exception), and the orders of a signed-in seller.
 */
import type { SellerException } from '../../core/seller-api';
import { DomainError } from '../../core/errors';
import type { OrderRow } from '../store/schema';
import type { Db } from './types';

/** Actions that settle an exception: "Record action" and "Mark refunded" (detail.exception names it). */
export const RESOLVING_ACTIONS = ['resolved', 'refunded'];

export async function extrasOf(db: Db, orderIds: string[]): Promise<Set<string>> {
  if (orderIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('payments')
    .select('order_id')
    .where('order_id', 'in', orderIds)
    .where('role', '=', 'extra')
    .execute();
  return new Set(rows.map((r) => r.order_id));
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
