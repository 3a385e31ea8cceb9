/**
 * The seller's exceptions and refunds on an order: record the action taken about an exception, "Mark refunded"
 * (the refusals before the chain is read, then the refund checked on chain recorded in one transaction), what the
 * order owes its payer now, and "Cancel order and refund" of an order the buyer asked to cancel. Each write is
 * one transaction on the seller's own order that checks first; a refusal changes nothing.
 */
import { explorerTxUrl } from '../../core/explorer';
import { formatBaseUnits } from '../../core/money';
import { refundLimits, stillOwedFor } from '../../core/refunds';
import { DomainError } from '../../core/errors';
import { exceptionsOf } from '../../core/order-exceptions';
import { transition } from '../../core/order-status';
import type { SellerException } from '../../core/seller-api';
import { isUniqueViolation } from '../store/store';
import type { OrderRow } from '../store/schema';
import { detailsDueBefore, exceptionFactsOf, resolvedOf, sellerOrder } from './exceptions';
import { owedInputOf } from './money';
import { recordAction } from './fulfilment';
import { queueEmails } from './notifications';
import { addHistory } from './rows';
import { announceExceptions, queueOrderEvent, tellQueued } from './webhook-events';
import type { CheckedRefund, Db, OrderContext, RefundTarget, SellerActor } from './types';

/**
 * "Cancel order and refund", for a paid order the buyer asked to cancel (the open `cancel_requested` exception):
 * status `cancelled`, the units it bought back on sale, the seller's action `cancelled` (who and when). Then
 * everything received is owed (src/core/refunds.ts); the refunds recorded against `cancel_requested` settle it
 * when they add up to it. No e-mail now (there is no cancellation e-mail kind): the buyer's order page says it
 * is cancelled, and each refund e-mails the buyer.
 */
export async function cancelOrder(ctx: OrderContext, seller: SellerActor, orderId: string): Promise<void> {
  const at = ctx.deps.now().toISOString();
  await ctx.db.transaction().execute(async (trx) => {
    const o = await sellerOrder(trx, seller.vendorIds, orderId, ctx.isPg);
    const t = transition(o.status, { type: 'cancel' });
    if (!t.ok) {
      if (t.refusal.reason === 'cancelled')
        throw new DomainError('conflict', 'already_cancelled', 'This order is already cancelled.');
      throw new DomainError(
        'conflict',
        'not_cancellable',
        t.refusal.reason === 'already_shipped'
          ? 'This order has already been shipped: it cannot be cancelled.'
          : 'Only a paid order that has not shipped can be cancelled here.',
      );
    }
    await assertOpenExceptionOf(ctx, trx, o, 'cancel_requested', { allowResolved: false });
    const moved = await trx
      .updateTable('orders')
      .set({ status: t.next, updated_at: at })
      .where('id', '=', o.id)
      .where('status', '=', o.status) // a payment meanwhile makes this one retry
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1)
      throw new DomainError('conflict', 'order_changed', 'The order changed meanwhile. Please reload it.');
    await addHistory(trx, o.id, t.next, 'cancelled_by_seller', at);
    await ctx.stock.restock(trx, o.id, at, 'cancelled');
    await recordAction(ctx, trx, o.id, 'cancelled', {}, seller.address, at);
    await queueOrderEvent(ctx, trx, { ...o, status: t.next, updated_at: at }, 'order.cancelled', at);
    await announceExceptions(ctx, trx, o.id, at);
  });
  tellQueued(ctx);
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
    await assertOpenExceptionOf(ctx, trx, o, input.exception, { allowResolved: true });
    // "Record action" on the buyer's cancel request of an order still to ship declines it: it ships again.
    if (input.exception === 'cancel_requested' && o.status !== 'cancelled' && o.cancel_declined_at === null)
      await trx.updateTable('orders').set({ cancel_declined_at: at }).where('id', '=', o.id).execute();
    await recordAction(ctx, trx, o.id, 'resolved', input, seller.address, at);
    await queueOrderEvent(ctx, trx, o, 'order.exception_settled', at, {
      exception: { kind: input.exception },
    });
  });
  tellQueued(ctx);
}

/** The order has `exception` (and, unless `allowResolved`, no action settled it yet). */
async function assertOpenExceptionOf(
  ctx: OrderContext,
  q: Db,
  o: Pick<
    OrderRow,
    'id' | 'status' | 'shipping_json' | 'amount_base_units' | 'dust_base_units' | 'cancel_requested_at'
  >,
  exception: SellerException,
  opts: { allowResolved: boolean },
): Promise<void> {
  const dueBefore = detailsDueBefore(ctx.deps.now(), ctx.deps.settings.qr.detailsGraceMs);
  const ledger = (await exceptionFactsOf(q, [o], dueBefore)).get(o.id);
  const facts = {
    hasExtra: false,
    ...ledger,
    status: o.status,
    hasShipping: o.shipping_json !== null,
  };
  if (!exceptionsOf(facts).includes(exception))
    throw new DomainError('conflict', 'no_such_exception', 'This order does not have that exception.');
  if (!opts.allowResolved && (await resolvedOf(q, [o.id])).get(o.id)?.includes(exception))
    throw new DomainError('conflict', 'already_resolved', 'This exception is already resolved.');
}

/**
 * A cancel request is refunded once the order is cancelled (then everything received is owed): before that a
 * refund against it would settle it with nothing owed.
 */
function assertRefundableNow(o: Pick<OrderRow, 'status'>, exception: SellerException): void {
  if (exception === 'cancel_requested' && o.status !== 'cancelled')
    throw new DomainError(
      'conflict',
      'cancel_first',
      'Cancel the order first ("Cancel order and refund"): then everything the buyer paid is owed back.',
    );
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
  await assertOpenExceptionOf(ctx, ctx.db, o, input.exception, { allowResolved: false });
  assertRefundableNow(o, input.exception);
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
 * row is locked on PostgreSQL; SQLite has one writer) and what is owed to the sender it went to
 * (src/core/refunds.ts refundLimits): a refund to a sender owed nothing, or above what is owed to them, is refused
 * in words. The refund row is unique by signature. When what is owed has been returned,
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
      await assertOpenExceptionOf(ctx, trx, o, refund.exception, { allowResolved: false });
      assertRefundableNow(o, refund.exception);
      if (await refundRecorded(trx, refund.signature)) throw alreadyRecorded();
      // Refunds follow the money (src/core/refunds.ts refundLimits): back to a sender of this order, at most what
      // is owed to that sender now. A sender of dust, or of nothing beyond what the order needed, is owed nothing.
      const input = await owedInputOf(trx, o, refund.payers);
      // Before this refund: what the order still owes back for this exception (a paid-late order goes back whole).
      const stillOwed = stillOwedFor(input, refund.exception);
      const limit = refundLimits(input, refund.exception).get(refund.to)?.limitBaseUnits ?? 0n;
      if (limit === 0n)
        throw new DomainError(
          'conflict',
          'refund_not_owed',
          'That transaction sent $CLAIM to a wallet this order owes nothing: it paid only dust, or nothing beyond what the order needed, or has had back what it was owed.',
          { field: 'signature' },
        );
      if (refund.amountBaseUnits > limit)
        throw new DomainError(
          'conflict',
          'refund_too_much',
          `That transaction returned ${formatBaseUnits(refund.amountBaseUnits)} $CLAIM, more than the ${formatBaseUnits(limit)} $CLAIM this order owes that wallet now.`,
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
          payer: refund.to,
        })
        .execute();
      const settled = refund.amountBaseUnits >= stillOwed;
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
      const refundData = {
        refund: {
          signature: refund.signature,
          amountCLAIM: formatBaseUnits(refund.amountBaseUnits),
          exception: refund.exception,
        },
      };
      await queueOrderEvent(ctx, trx, o, 'order.refund_recorded', at, refundData);
      if (settled)
        await queueOrderEvent(ctx, trx, o, 'order.exception_settled', at, {
          ...refundData,
          exception: { kind: refund.exception },
        });
    })
    .catch((err: unknown) => {
      // The same signature recorded at the same instant by another request: the key let one through.
      if (isUniqueViolation(err)) throw alreadyRecorded();
      throw err;
    });
  if (added > 0) ctx.deps.onOutboxChange?.();
  tellQueued(ctx);
}
