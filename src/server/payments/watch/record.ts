/**
 * Recording and events: one transfer into the order's ledger through the order service's recordPayment (one
 * record at a time; the service re-checks that the signature is free and records each signature once), and the
 * events that tell what happened.
 */
import type { LandedPayment } from '../verify';
import {
  describeRefusal,
  type RecordablePayment,
  type Via,
  type WatchContext,
  type WatchedOrder,
} from './context';

/** True when the ledger has the transfer for this order afterwards. */
export async function recordTransfer(
  ctx: WatchContext,
  order: WatchedOrder,
  landed: LandedPayment,
  via: Via,
): Promise<boolean> {
  return ctx.recordLock.run(async () => {
    const result = await ctx.orders.recordPayment(
      { orderId: order.orderId },
      {
        signature: landed.signature,
        receivedBaseUnits: landed.receivedBaseUnits,
        finalized: landed.confirmationStatus === 'finalized',
        blockTime: landed.blockTime,
        slot: landed.slot,
      },
    );
    const outcome: RecordablePayment =
      landed.receivedBaseUnits >= order.amountBaseUnits
        ? { kind: 'Paid', ...landed, overpaid: landed.receivedBaseUnits > order.amountBaseUnits }
        : { kind: 'Underpaid', ...landed };
    if (!result.ok) {
      if (result.reason === 'signature_used') {
        ctx.emit({
          type: 'rejected',
          orderId: order.orderId,
          outcome: { kind: 'AlreadyUsed', signature: landed.signature },
        });
      } else if (result.reason !== 'order_not_found') {
        ctx.emit({
          type: 'error',
          where: `record ${order.orderId}`,
          error: new Error(describeRefusal(result)),
        });
      }
      return false;
    }
    if (!result.changed) return true;
    ctx.emit({
      type: 'recorded',
      orderId: order.orderId,
      outcome,
      role: result.role,
      status: result.status,
      via,
    });
    // Already finalized when first seen (e.g. found late): the order went straight to final.
    if (result.status === 'final' && order.status !== 'final') {
      ctx.emit({ type: 'final', orderId: order.orderId, signature: landed.signature });
    }
    if (result.role === 'partial' && result.status === 'awaiting_payment' && outcome.kind === 'Underpaid') {
      ctx.emit({ type: 'partial', orderId: order.orderId, outcome });
    }
    return true;
  });
}
