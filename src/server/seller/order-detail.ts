/**
 * One order in the seller console: items, shipping, payments, history, e-mails, the seller's actions. Reads
 * only: the seller's actions are the order service's (src/server/orders/fulfilment.ts).
 */
import { joinShippingAddress } from '../../core/order';
import type { SellerException, SellerOrderDetail } from '../../core/seller-api';
import { RESOLVING_ACTIONS, sellerOrder } from '../orders/exceptions';
import { itemsOf } from '../orders/rows';
import { openActionDetail, openError, openMail } from '../privacy/order-data';
import { detailsOf, summaryOf, type SellerViewDeps } from './views';

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
    detail: openActionDetail(deps.sealer, o.id, a.detail_json),
    address: a.address,
    at: a.at,
  }));
  const hasExtra = payments.some((p) => p.role === 'extra');
  const resolved = parsedActions
    .filter((a) => RESOLVING_ACTIONS.includes(a.action) && a.detail.exception)
    .map((a) => a.detail.exception as SellerException);
  const { shipping } = detailsOf(deps.sealer, o);
  const shippedAction = [...parsedActions].reverse().find((a) => a.action === 'shipped');
  return {
    ...summaryOf(deps.sealer, o, hasExtra, resolved),
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
    emails: emails.map((e) => {
      const opened = openMail(deps.sealer, o.id, e);
      return {
        id: e.id,
        kind: e.kind,
        recipient: e.role,
        // Sealed; 'erased' or 'unreadable' when it is not there any more.
        to: opened.state === 'readable' ? opened.to : opened.state,
        state: e.state,
        attempts: e.attempts,
        lastError: openError(deps.sealer, o.id, e.last_error),
        deliveredAt: e.delivered_at,
        createdAt: e.created_at,
      };
    }),
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
