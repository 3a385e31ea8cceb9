/**
 * Fulfilment: what the seller does to an order after it is paid — Mark shipped (tracking number, the buyer's
 * e-mail), Mark delivered, record the action taken about an exception, record a refund checked on chain, send a
 * failed e-mail again. Each is one transaction on the seller's own order that checks first and then writes the
 * order, its history, the seller's action (`seller_actions`: who and when) and the e-mails it causes; a refusal
 * changes nothing.
 */
import { randomUUID } from 'node:crypto';
import { trackingUrl as trackingUrlOf } from '../../core/carriers';
import { explorerTxUrl } from '../../core/explorer';
import { formatBaseUnits } from '../../core/money';
import { owedOf, type Owed } from '../../core/refunds';
import { isUniqueViolation } from '../store/store';
import { DomainError } from '../../core/errors';
import { exceptionsOf } from '../../core/order-exceptions';
import { transition } from '../../core/order-status';
import type { SellerException } from '../../core/seller-api';
import { extrasOf, resolvedOf, sellerOrder } from './exceptions';
import { queueEmails } from './notifications';
import { sealActionDetail } from '../privacy/order-data';
import { addHistory, shippingOf } from './rows';
import type { OrderRow } from '../store/schema';
import type { CheckedRefund, Db, OrderContext, RefundTarget, SellerActor, Shipment } from './types';

/** A seller action; its free text (tracking number, carrier, note) sealed to the order (src/server/privacy). */
async function recordAction(
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
    // Refused before anything is written: the buyer's e-mail needs the address it ships to.
    if (o.shipping_json === null)
      throw new DomainError(
        'conflict',
        'no_shipping_details',
        'This order has no shipping details yet: it cannot be shipped.',
      );
    if (shippingOf(ctx.sealer, o) === undefined)
      throw new DomainError(
        'conflict',
        'details_unavailable',
        'This order’s shipping details were erased or are unreadable: it cannot be shipped from here.',
      );
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
  });
  if (added > 0) ctx.deps.onOutboxChange?.();
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
  });
}

/** Records the action the seller took about an exception of the order (it must have that exception). */
export async function resolveException(
  ctx: OrderContext,
  seller: SellerActor,
  orderId: string,
  input: { exception: SellerException; note: string },
): Promise<void> {
  const at = ctx.deps.now().toISOString();
  await ctx.db.transaction().execute(async (trx) => {
    const o = await sellerOrder(trx, seller.vendorIds, orderId, ctx.isPg);
    await assertOpenExceptionOf(trx, o, input.exception, { allowResolved: true });
    await recordAction(ctx, trx, o.id, 'resolved', input, seller.address, at);
  });
}

/** The order has `exception` (and, unless `allowResolved`, no action settled it yet). */
async function assertOpenExceptionOf(
  q: Db,
  o: Pick<OrderRow, 'id' | 'status' | 'shipping_json'>,
  exception: SellerException,
  opts: { allowResolved: boolean },
): Promise<void> {
  const extras = await extrasOf(q, [o.id]);
  const facts = { status: o.status, hasShipping: o.shipping_json !== null, hasExtra: extras.has(o.id) };
  if (!exceptionsOf(facts).includes(exception))
    throw new DomainError('conflict', 'no_such_exception', 'This order does not have that exception.');
  if (!opts.allowResolved && (await resolvedOf(q, [o.id])).get(o.id)?.includes(exception))
    throw new DomainError('conflict', 'already_resolved', 'This exception is already resolved.');
}

/** A refund signature recorded before (for any order). */
async function refundRecorded(q: Db, signature: string): Promise<boolean> {
  const row = await q
    .selectFrom('refunds')
    .select('signature')
    .where('signature', '=', signature)
    .executeTakeFirst();
  return row !== undefined;
}

const alreadyRecorded = () =>
  new DomainError('conflict', 'refund_already_recorded', 'This refund transaction is already recorded.', {
    field: 'signature',
  });

/** What the order owes its payer now (src/core/refunds.ts), from its ledger and recorded refunds. */
export async function owedNow(
  q: Db,
  o: Pick<OrderRow, 'id' | 'status' | 'amount_base_units'>,
): Promise<Owed> {
  const [payments, refunds] = await Promise.all([
    q.selectFrom('payments').select(['role', 'received_base_units']).where('order_id', '=', o.id).execute(),
    q.selectFrom('refunds').select('amount_base_units').where('order_id', '=', o.id).execute(),
  ]);
  return owedOf({
    status: o.status,
    amountBaseUnits: o.amount_base_units === null ? null : BigInt(o.amount_base_units),
    payments: payments.map((p) => ({ role: p.role, receivedBaseUnits: BigInt(p.received_base_units) })),
    refunds: refunds.map((r) => ({ amountBaseUnits: BigInt(r.amount_base_units) })),
  });
}

/**
 * "Mark refunded", before the chain is read: the refusals that need no RPC (the exception, already settled, the
 * signature already recorded, nothing paid). Returns what the on-chain check needs.
 */
export async function refundTarget(
  ctx: OrderContext,
  seller: SellerActor,
  orderId: string,
  input: { exception: SellerException; signature: string },
): Promise<RefundTarget> {
  const o = await sellerOrder(ctx.db, seller.vendorIds, orderId);
  await assertOpenExceptionOf(ctx.db, o, input.exception, { allowResolved: false });
  if (await refundRecorded(ctx.db, input.signature)) throw alreadyRecorded();
  const payments = await ctx.db
    .selectFrom('payments')
    .select(['signature', 'slot'])
    .where('order_id', '=', o.id)
    .orderBy('seq')
    .execute();
  return {
    id: o.id,
    recipient: o.recipient,
    mint: o.mint,
    payments: payments.map((p) => ({
      signature: p.signature,
      slot: p.slot === null ? null : Number(p.slot),
    })),
  };
}

/**
 * Records a refund the chain confirmed, in one transaction that re-checks what `refundTarget` checked (the order
 * row is locked on PostgreSQL; SQLite has one writer) and what is owed: a refund above what was received and not
 * yet refunded is refused in words. The refund row is unique by signature. When what is owed has been returned,
 * the exception is settled (seller action `refunded`); before that the refund is recorded as partial (`refund`).
 * The buyer is e-mailed the amount and the transaction link.
 */
export async function recordRefund(
  ctx: OrderContext,
  seller: SellerActor,
  orderId: string,
  refund: CheckedRefund,
): Promise<void> {
  const at = ctx.deps.now().toISOString();
  let added = 0;
  await ctx.db
    .transaction()
    .execute(async (trx) => {
      const o = await sellerOrder(trx, seller.vendorIds, orderId, ctx.isPg);
      await assertOpenExceptionOf(trx, o, refund.exception, { allowResolved: false });
      if (await refundRecorded(trx, refund.signature)) throw alreadyRecorded();
      const owed = await owedNow(trx, o);
      if (refund.amountBaseUnits > owed.refundableBaseUnits)
        throw new DomainError(
          'conflict',
          'refund_too_much',
          `That transaction returned ${formatBaseUnits(refund.amountBaseUnits)} $CLAIM, more than the ${formatBaseUnits(owed.refundableBaseUnits)} $CLAIM received for this order and not yet refunded.`,
          { field: 'signature' },
        );
      await trx
        .insertInto('refunds')
        .values({
          signature: refund.signature,
          order_id: o.id,
          amount_base_units: refund.amountBaseUnits.toString(),
          exception: refund.exception,
          address: seller.address,
          at,
        })
        .execute();
      const settled = refund.amountBaseUnits >= owed.remainingBaseUnits;
      await recordAction(
        ctx,
        trx,
        o.id,
        settled ? 'refunded' : 'refund',
        {
          exception: refund.exception,
          signature: refund.signature,
          amountBaseUnits: refund.amountBaseUnits.toString(),
        },
        seller.address,
        at,
      );
      const cluster = { cluster: ctx.deps.settings.solana.cluster, rpcUrl: ctx.deps.settings.solana.rpcUrl };
      added = await queueEmails(
        ctx,
        trx,
        o,
        { type: 'refunded' },
        {
          at,
          refund: {
            amountBaseUnits: refund.amountBaseUnits,
            transactionUrl: explorerTxUrl(refund.signature, cluster),
          },
          distinctKey: refund.signature,
        },
      );
    })
    .catch((err: unknown) => {
      // The same signature recorded at the same instant by another request: the key let one through.
      if (isUniqueViolation(err)) throw alreadyRecorded();
      throw err;
    });
  if (added > 0) ctx.deps.onOutboxChange?.();
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
  });
  if (added > 0) ctx.deps.onOutboxChange?.();
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
    if (row.state !== 'failed')
      throw new DomainError('conflict', 'email_not_failed', 'Only a failed e-mail can be sent again.');
    await trx
      .updateTable('outbox')
      .set({ state: 'pending', attempts: 0, next_attempt_at: at, locked_until: null, lock_token: null })
      .where('id', '=', row.id)
      .where('state', '=', 'failed')
      .execute();
    await recordAction(ctx, trx, o.id, 'email_resent', { emailId: row.id }, seller.address, at);
  });
  ctx.deps.onOutboxChange?.();
}
