/**
 * The seller console's views of orders: the list (filter, search, pages), every match for the CSV export, and
 * one order's detail (items, shipping, payments, history, e-mails, the seller's actions). Reads only: the
 * seller's actions are the order service's (src/server/orders/fulfilment.ts).
 */
import { productLine } from '../../core/email-payload';
import { joinShippingAddress } from '../../core/order';
import { exceptionsOf } from '../../core/order-exceptions';
import type {
  SellerException,
  SellerOrderDetail,
  SellerOrderList,
  SellerOrderSummary,
} from '../../core/seller-api';
import { extrasOf, RESOLVING_ACTIONS, resolvedOf, sellerOrder } from '../orders/exceptions';
import { itemsOf, shippingOf } from '../orders/rows';
import type { OrderRow } from '../store/schema';
import type { Store } from '../store/store';
import { MAX_PAGE_SIZE, scoped, type OrderQuery } from './query';

export interface SellerViewDeps {
  store: Store;
}

function summaryOf(o: OrderRow, hasExtra: boolean, resolved: SellerException[]): SellerOrderSummary {
  const shipping = shippingOf(o);
  return {
    orderId: o.id,
    createdAt: o.created_at,
    status: o.status,
    vendorId: o.vendor_id,
    paymentMethod: o.payment_method,
    buyerName: shipping?.fullName ?? '',
    buyerEmail: shipping?.email ?? '',
    product: productLine(itemsOf(o)),
    totalCents: o.total_cents,
    amountBaseUnits: o.amount_base_units,
    receivedBaseUnits: o.received_base_units ?? '0',
    exceptions: exceptionsOf({ status: o.status, hasShipping: shipping !== undefined, hasExtra }),
    resolved,
  };
}

export async function listOrders(
  deps: SellerViewDeps,
  vendorIds: readonly string[],
  q: OrderQuery,
): Promise<SellerOrderList> {
  const db = deps.store.db;
  const page = q.page ?? 1;
  const pageSize = q.pageSize ?? 25;
  const count = await scoped(db, vendorIds, q)
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirst();
  const rows = await scoped(db, vendorIds, q)
    .selectAll('orders')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(pageSize)
    .offset((page - 1) * pageSize)
    .execute();
  const ids = rows.map((r) => r.id);
  const [extras, resolved] = await Promise.all([extrasOf(db, ids), resolvedOf(db, ids)]);
  return {
    orders: rows.map((o) => summaryOf(o, extras.has(o.id), resolved.get(o.id) ?? [])),
    total: Number(count?.n ?? 0),
    page,
    pageSize,
  };
}

/** Every order matching the filter (no pagination), newest first, for the CSV export. */
export async function allOrders(
  deps: SellerViewDeps,
  vendorIds: readonly string[],
  q: OrderQuery,
): Promise<SellerOrderSummary[]> {
  const out: SellerOrderSummary[] = [];
  for (let page = 1; ; page++) {
    const batch = await listOrders(deps, vendorIds, { ...q, page, pageSize: MAX_PAGE_SIZE });
    out.push(...batch.orders);
    if (batch.orders.length < MAX_PAGE_SIZE) return out;
  }
}

export async function orderDetail(
  deps: SellerViewDeps,
  vendorIds: readonly string[],
  orderId: string,
): Promise<SellerOrderDetail> {
  const db = deps.store.db;
  const o = await sellerOrder(db, vendorIds, orderId);
  const [payments, history, emails, actions] = await Promise.all([
    db.selectFrom('payments').selectAll().where('order_id', '=', o.id).orderBy('seq').execute(),
    db.selectFrom('order_history').selectAll().where('order_id', '=', o.id).orderBy('seq').execute(),
    db
      .selectFrom('outbox')
      .selectAll()
      .where('order_id', '=', o.id)
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('seller_actions')
      .selectAll()
      .where('order_id', '=', o.id)
      .orderBy('at')
      .orderBy('id')
      .execute(),
  ]);
  const parsedActions = actions.map((a) => ({
    action: a.action,
    detail: JSON.parse(a.detail_json) as Record<string, string>,
    address: a.address,
    at: a.at,
  }));
  const hasExtra = payments.some((p) => p.role === 'extra');
  const resolved = parsedActions
    .filter((a) => RESOLVING_ACTIONS.includes(a.action) && a.detail.exception)
    .map((a) => a.detail.exception as SellerException);
  const shipping = shippingOf(o);
  const shippedAction = [...parsedActions].reverse().find((a) => a.action === 'shipped');
  return {
    ...summaryOf(o, hasExtra, resolved),
    reference: o.reference,
    recipient: o.recipient,
    expiresAt: o.expires_at,
    items: itemsOf(o).map((i) => ({
      name: i.name,
      ...(i.variantLabel ? { variantLabel: i.variantLabel } : {}),
      quantity: i.quantity,
      unitCents: i.unitCents,
      lineCents: i.lineCents,
    })),
    shipping: Object.fromEntries(Object.entries(shipping ?? {}).map(([k, v]) => [k, String(v)])),
    shippingAddress: shipping?.fullName ? joinShippingAddress(shipping) : '',
    payments: payments.map((p) => ({
      signature: p.signature,
      receivedBaseUnits: p.received_base_units,
      role: p.role,
      at: p.block_time !== null ? new Date(p.block_time * 1000).toISOString() : p.recorded_at,
      confirmation: p.confirmation,
    })),
    history: history.map((h) => ({ status: h.status, event: h.event, at: h.at })),
    emails: emails.map((e) => ({
      id: e.id,
      kind: e.kind,
      recipient: e.role,
      to: e.recipient_email,
      state: e.state,
      attempts: e.attempts,
      lastError: e.last_error,
      deliveredAt: e.delivered_at,
      createdAt: e.created_at,
    })),
    actions: parsedActions,
    ...(shippedAction
      ? {
          shipment: {
            trackingNumber: shippedAction.detail.trackingNumber ?? '',
            ...(shippedAction.detail.carrier ? { carrier: shippedAction.detail.carrier } : {}),
            at: shippedAction.at,
          },
        }
      : {}),
  };
}
