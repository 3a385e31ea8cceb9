/**
 * The console's live list: which of the seller's orders were created or changed since the console last asked
 * (GET /api/seller/changes). Read from the store, so every instance on one PostgreSQL answers the same, and the
 * check is cheap enough to poll every few seconds: an index range on (vendor_id, updated_at) and one on the
 * seller actions' time. Reads only.
 */
import type { OrderStatus } from '../../core/api';
import type { SellerChanges } from '../../core/seller-api';
import { orderNumberOf } from '../orders/rows';
import type { Db } from '../orders/types';
import { inRange } from './query';

/**
 * How far before the cursor each check looks again: a transaction stamps its changes when it starts and they
 * become visible when it commits, so a change stamped just before the previous answer may appear only after it.
 * The console drops what it already knows (same order, same time).
 */
export const CHANGES_OVERLAP_MS = 30_000;
export const MAX_CHANGES = 200;

export async function changesSince(
  db: Db,
  vendorIds: readonly string[],
  since: string | undefined,
  now: Date,
): Promise<SellerChanges> {
  const cursor = now.toISOString();
  if (since === undefined) return { cursor, changes: [] };
  const after = new Date(Date.parse(since) - CHANGES_OVERLAP_MS).toISOString();
  const [orders, recent] = await Promise.all([
    inRange(db, vendorIds, {})
      .select(['orders.id', 'orders.updated_at', 'orders.created_at', 'orders.status'])
      .where('orders.updated_at', '>=', after)
      .orderBy('orders.updated_at', 'desc')
      .limit(MAX_CHANGES)
      .execute(),
    // Every vendor's recent seller actions by time (index seller_actions_at), then this seller's among them: a
    // join would walk every order of the vendor first.
    db
      .selectFrom('seller_actions')
      .select(['order_id', 'at'])
      .where('at', '>=', after)
      .orderBy('at', 'desc')
      .limit(5 * MAX_CHANGES)
      .execute(),
  ]);
  const ids = [...new Set(recent.map((a) => a.order_id))];
  const own = new Map(
    (ids.length
      ? await db
          .selectFrom('orders')
          .select(['id', 'created_at', 'status'])
          .where('id', 'in', ids)
          .where('vendor_id', 'in', vendorIds.length ? [...vendorIds] : [''])
          .execute()
      : []
    ).map((o) => [o.id, o]),
  );
  const actions = recent.flatMap((a) => {
    const o = own.get(a.order_id);
    return o === undefined ? [] : [{ id: a.order_id, at: a.at, created_at: o.created_at, status: o.status }];
  });
  const latest = new Map<string, { at: string; createdAt: string; status: OrderStatus }>();
  for (const c of [
    ...orders.map((o) => ({ id: o.id, at: o.updated_at, createdAt: o.created_at, status: o.status })),
    ...actions.map((a) => ({ id: a.id, at: a.at, createdAt: a.created_at, status: a.status })),
  ]) {
    const known = latest.get(c.id);
    if (!known || known.at < c.at) latest.set(c.id, { at: c.at, createdAt: c.createdAt, status: c.status });
  }
  const changes = [...latest.entries()]
    .map(([orderId, c]) => ({
      orderId,
      orderNumber: orderNumberOf(orderId),
      status: c.status,
      at: c.at,
      createdAt: c.createdAt,
    }))
    .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0))
    .slice(-MAX_CHANGES);
  return { cursor, changes };
}
