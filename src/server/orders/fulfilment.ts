/**
 * Fulfilment: what the seller does to an order after it is paid — Mark shipped (tracking number, the buyer's
 * e-mail), Mark delivered, change the tracking, the seller's note, send a failed e-mail again (exceptions,
 * refunds and cancelling at the buyer's request: ./exception-actions.ts). Each is one transaction on the seller's own order that checks first and then writes the
 * order, its history, the seller's action (`seller_actions`: who and when) and the e-mails it causes; a refusal
 * changes nothing.
 */
import { randomUUID } from 'node:crypto';
import { trackingUrl as trackingUrlOf } from '../../core/carriers';
import { DomainError } from '../../core/errors';
import { shipBlockOf } from '../../core/ship-readiness';
import { transition } from '../../core/order-status';
import { sellerOrder } from './exceptions';
import { closedByRefund } from './money';
import { queueEmails } from './notifications';
import { openShipping, sealActionDetail } from '../privacy/order-data';
import { resendFailed } from '../mail/queue';
import { addHistory } from './rows';
import { queueOrderEvent, tellQueued } from './webhook-events';
import type { Db, OrderContext, SellerActor, Shipment } from './types';

/** A seller action; its free text (tracking number, carrier, note) sealed to the order (src/server/privacy). */
export async function recordAction(
  ctx: OrderContext,
  q: Db,
  orderId: string,
  action: string,
  detail: object,
  address: string,
  at: string,
): Promise<void> {
  const detail_json = sealActionDetail(ctx.sealer, orderId, detail as Record<string, unknown>);
  await q
    .insertInto('seller_actions')
    .values({ id: randomUUID(), order_id: orderId, action, detail_json, address, at })
    .execute();
}

function refusedTransition(reason: string): DomainError {
  const messages: Record<string, string> = {
    not_paid_yet: 'Only a fully paid order can be shipped.',
    already_shipped: 'This order has already been shipped.',
    not_shipped: 'Only a shipped order can be marked delivered.',
    cancelled: 'This order was cancelled: it does not ship.',
  };
  return new DomainError('conflict', reason, messages[reason] ?? 'The order cannot do that now.');
}

/** Mark shipped: status `shipped`, the tracking number recorded, the buyer's e-mail queued (same transaction). */
export async function markShipped(
  ctx: OrderContext,
  seller: SellerActor,
  orderId: string,
  shipment: Shipment,
): Promise<void> {
  const at = ctx.deps.now().toISOString();
  let added = 0;
  await ctx.db.transaction().execute(async (trx) => {
    const o = await sellerOrder(trx, seller.vendorIds, orderId, ctx.isPg);
    const t = transition(o.status, { type: 'ship' });
    if (!t.ok) throw refusedTransition(t.refusal.reason);
    // Refused before anything is written, in the console's own words (src/core/ship-readiness.ts): money that went
    // back (a refund that returns the order, settled or begun) means it does not ship; no address (never sent,
    // deleted by the buyer, unreadable) is nowhere to ship, and the buyer's e-mail needs it.
    const [refunds, closed] = await Promise.all([
      trx.selectFrom('refunds').select('exception').where('order_id', '=', o.id).execute(),
      closedByRefund(trx, [o.id]),
    ]);
    const block = shipBlockOf({
      shippingDetails: openShipping(ctx.sealer, o.id, o.shipping_json).state,
      refundedExceptions: refunds.map((r) => r.exception),
      closedByRefund: closed.has(o.id),
    });
    if (block) throw new DomainError('conflict', block.code, block.message);
    const moved = await trx
      .updateTable('orders')
      .set({ status: t.next, updated_at: at })
      .where('id', '=', o.id)
      .where('status', '=', o.status) // a concurrent change (payment, another click) makes this one retry
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1)
      throw new DomainError('conflict', 'order_changed', 'The order changed meanwhile. Please reload it.');
    await addHistory(trx, o.id, t.next, 'shipped', at);
    await recordAction(ctx, trx, o.id, 'shipped', shipment, seller.address, at);
    const trackingUrl = trackingUrlOf(shipment.carrier, shipment.trackingNumber);
    added = await queueEmails(
      ctx,
      trx,
      { ...o, status: t.next, updated_at: at },
      { type: 'shipped' },
      { at, shipment: { ...shipment, ...(trackingUrl ? { trackingUrl } : {}) } },
    );
    await queueOrderEvent(ctx, trx, { ...o, status: t.next, updated_at: at }, 'order.shipped', at, {
      shipment: { ...shipment, ...(trackingUrl ? { trackingUrl } : {}) },
    });
  });
  if (added > 0) ctx.deps.onOutboxChange?.();
  tellQueued(ctx);
}

/** Mark delivered (once: a second time changes nothing). */
export async function markDelivered(ctx: OrderContext, seller: SellerActor, orderId: string): Promise<void> {
  const at = ctx.deps.now().toISOString();
  await ctx.db.transaction().execute(async (trx) => {
    const o = await sellerOrder(trx, seller.vendorIds, orderId, ctx.isPg);
    const t = transition(o.status, { type: 'deliver' });
    if (!t.ok) throw refusedTransition(t.refusal.reason);
    if (o.status === t.next) return; // already delivered: nothing to record twice
    await trx.updateTable('orders').set({ status: t.next, updated_at: at }).where('id', '=', o.id).execute();
    await addHistory(trx, o.id, t.next, 'delivered', at);
    await recordAction(ctx, trx, o.id, 'delivered', {}, seller.address, at);
    await queueOrderEvent(ctx, trx, { ...o, status: t.next, updated_at: at }, 'order.delivered', at);
  });
  tellQueued(ctx);
}

/**
 * A new tracking number (and carrier) for a shipped order: recorded as the seller action `tracking` (the latest
 * one is the order's shipment); the buyer is told again.
 */
export async function updateTracking(
  ctx: OrderContext,
  seller: SellerActor,
  orderId: string,
  shipment: Shipment,
): Promise<void> {
  const at = ctx.deps.now().toISOString();
  let added = 0;
  await ctx.db.transaction().execute(async (trx) => {
    const o = await sellerOrder(trx, seller.vendorIds, orderId, ctx.isPg);
    if (o.status !== 'shipped' && o.status !== 'delivered')
      throw new DomainError('conflict', 'not_shipped', 'Only a shipped order has tracking to change.');
    const id = randomUUID();
    await recordAction(ctx, trx, o.id, 'tracking', { ...shipment, id }, seller.address, at);
    const trackingUrl = trackingUrlOf(shipment.carrier, shipment.trackingNumber);
    added = await queueEmails(
      ctx,
      trx,
      o,
      { type: 'tracking_changed' },
      {
        at,
        shipment: { ...shipment, ...(trackingUrl ? { trackingUrl } : {}) },
        distinctKey: `tracking:${id}`,
      },
    );
    // The same event again with the new tracking: a receiver keeps the latest.
    await queueOrderEvent(ctx, trx, o, 'order.shipped', at, {
      shipment: { ...shipment, ...(trackingUrl ? { trackingUrl } : {}) },
    });
  });
  if (added > 0) ctx.deps.onOutboxChange?.();
  tellQueued(ctx);
}

/** The seller's free-text note on the order (the latest one is shown; '' clears it). No e-mail. */
export async function setNote(
  ctx: OrderContext,
  seller: SellerActor,
  orderId: string,
  note: string,
): Promise<void> {
  const at = ctx.deps.now().toISOString();
  await ctx.db.transaction().execute(async (trx) => {
    const o = await sellerOrder(trx, seller.vendorIds, orderId, ctx.isPg);
    await recordAction(ctx, trx, o.id, 'note', { note }, seller.address, at);
  });
}

/** Re-queues a failed e-mail of the seller's order. */
export async function resendEmail(
  ctx: OrderContext,
  seller: SellerActor,
  orderId: string,
  emailId: string,
): Promise<void> {
  const at = ctx.deps.now().toISOString();
  await ctx.db.transaction().execute(async (trx) => {
    const o = await sellerOrder(trx, seller.vendorIds, orderId, ctx.isPg);
    const row = await trx
      .selectFrom('outbox')
      .select(['id', 'state'])
      .where('id', '=', emailId.slice(0, 128))
      .where('order_id', '=', o.id)
      .executeTakeFirst();
    if (!row) throw new DomainError('not_found', 'email_not_found', 'No such e-mail for this order.');
    // A withheld one too (the automated e-mail cap): the seller knows the buyer and decides.
    if (row.state !== 'failed' && row.state !== 'withheld')
      throw new DomainError(
        'conflict',
        'email_not_failed',
        'Only a failed or withheld e-mail can be sent again.',
      );
    await resendFailed(trx, row.id, at);
    await recordAction(ctx, trx, o.id, 'email_resent', { emailId: row.id }, seller.address, at);
  });
  ctx.deps.onOutboxChange?.();
}
