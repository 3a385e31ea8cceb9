/**
 * Order status: a closed set and a pure transition function. The store persists every transition with its
 * time; this module only decides. Browser-safe.
 *
 * Payments come from the payment ledger: every verified transfer to the order's reference is one `payment`
 * event carrying the ledger sum before it, so split payments add up, a top-up completes an underpaid order and
 * a transfer after the order is fully paid is recorded as an extra (overpayment). No payment is ever refused.
 *
 *   awaiting_payment ──sum ≥ amount (on time)──▶ paid ──finalized──▶ final
 *          │      └────sum ≥ amount (on time, all finalized)──────▶ final
 *          │      └────sum < amount (on time)──▶ awaiting_payment (recorded as partial: dust cannot block the order)
 *          │      └────sum < amount (late)─────▶ underpaid
 *          │      └────sum ≥ amount (late)─────▶ paid_late
 *          └──expire──▶ expired (nothing received, or dust) ──sum ≥ amount──▶ paid_late
 *          └──expire──▶ underpaid (a partial sum)                 └─sum < amount─▶ underpaid (dust: expired)
 *   expired/underpaid ──sum ≥ amount──▶ paid_late (paid if the completing transfer's block was before expiry:
 *     time is the chain's, so a payment found after a premature expiry is still on time)
 *   a short sum below the dust threshold never makes an exception: awaiting_payment/expired stay (late: expired)
 *   paid / final / paid_late ──ship (seller, tracking number)──▶ shipped ──deliver──▶ delivered
 *   shipped / delivered ──payment──▶ unchanged (recorded as extra); ──finalized──▶ unchanged
 *   paid / final / paid_late / oversold ──payment──▶ unchanged (recorded as extra)
 *   any order a refund closed (underpaid or paid late, returned) ──payment──▶ unchanged (recorded as extra: a
 *     top-up after the refund cannot complete it)
 *   paid / final / paid_late / underpaid ──cancel (seller, the buyer asked)──▶ cancelled (the stock goes back on
 *     sale; everything received is owed back) ──payment──▶ unchanged (recorded as extra); ──finalized──▶ unchanged
 *   any ──sum ≥ amount with the stock lost (reservation released, units sold to someone else)──▶ oversold
 *     (the payment is recorded; the seller refunds: src/core/stock.ts)
 */
import type { OrderStatus, PaymentRole } from './api';

export const ORDER_STATUSES = [
  'awaiting_payment',
  'paid',
  'final',
  'expired',
  'underpaid',
  'paid_late',
  'shipped',
  'delivered',
  'oversold',
  'cancelled',
] as const satisfies readonly OrderStatus[];
export type { OrderStatus };

/**
 * A ledger row's place in the order: `partial` (the sum stays short), `payment` (the transfer that brings the
 * sum to the amount), `top_up` (the same for an order already recorded as underpaid), `extra` (after the sum
 * had reached the amount: an overpayment to refund or credit).
 */
export type { PaymentRole };
export const PAYMENT_ROLES = [
  'payment',
  'top_up',
  'extra',
  'partial',
] as const satisfies readonly PaymentRole[];

export type OrderEvent =
  /** A transfer to the order's reference was verified (right mint and recipient) and is new to the ledger. */
  | {
      type: 'payment';
      /** This transfer's raw amount. */
      receivedBaseUnits: bigint;
      /** The ledger sum before this transfer (0 for the first one). Default 0. */
      paidBeforeBaseUnits?: bigint;
      expectedBaseUnits: bigint;
      /** Every transfer that counts toward the amount, this one included, is finalized. */
      finalized: boolean;
      /** The transfer's block is after the quote expiry. */
      late: boolean;
      /**
       * The ledger sum after this transfer is below the order's dust threshold: a short sum then never makes the
       * order an exception (underpaid). Default false.
       */
      belowDust?: boolean;
      /**
       * The order's reservation was released and its units are no longer available (someone else bought them):
       * a payment completing the amount makes the order `oversold` instead of paid. Default false.
       */
      stockLost?: boolean;
      /**
       * A refund closed the order (the seller returned an underpaid or late payment: it will not ship): a later
       * transfer cannot complete it and is an extra payment to return, the status unchanged. Default false.
       */
      closed?: boolean;
    }
  /** The recorded payments that count toward the amount all reached finalized commitment. */
  | { type: 'finalized' }
  /** The quote's payment window passed; `receivedBaseUnits` is the ledger sum then (default 0). */
  | { type: 'expire'; receivedBaseUnits?: bigint }
  /** The seller sent the parcel (only a fully paid order ships). */
  | { type: 'ship' }
  /** The seller marked the parcel delivered. */
  | { type: 'deliver' }
  /** The seller cancels a paid order before shipping (the buyer asked): everything received goes back. */
  | { type: 'cancel' };

export type TransitionRefusal =
  | { reason: 'not_paid_yet'; status: OrderStatus }
  | { reason: 'not_awaiting_payment'; status: OrderStatus }
  | { reason: 'already_shipped'; status: OrderStatus }
  | { reason: 'not_shipped'; status: OrderStatus }
  | { reason: 'cancelled'; status: OrderStatus };

export type TransitionResult =
  { ok: true; next: OrderStatus; role?: PaymentRole } | { ok: false; refusal: TransitionRefusal };

/** Statuses in which a payment has been recorded. */
export const HAS_PAYMENT: ReadonlySet<OrderStatus> = new Set([
  'paid',
  'final',
  'underpaid',
  'paid_late',
  'shipped',
  'delivered',
  'oversold',
  'cancelled',
]);
/**
 * Statuses in which the full amount has been received (`oversold` too: received, but the goods went to someone
 * else, so the seller refunds).
 */
export const FULLY_PAID: ReadonlySet<OrderStatus> = new Set([
  'paid',
  'final',
  'paid_late',
  'shipped',
  'delivered',
  'oversold',
]);
/** Fully paid and not yet sent: the orders a seller can ship (not oversold: the goods went to someone else). */
export const SHIPPABLE: ReadonlySet<OrderStatus> = new Set(['paid', 'final', 'paid_late']);
/** Statuses in which a new transfer is an extra payment (recorded, the status unchanged). */
export const TAKES_EXTRAS: ReadonlySet<OrderStatus> = new Set([...FULLY_PAID, 'cancelled']);
/** Paid (in full or in part) and not sent: the orders a seller can cancel at the buyer's request. */
export const CANCELLABLE: ReadonlySet<OrderStatus> = new Set(['paid', 'final', 'paid_late', 'underpaid']);

export function transition(status: OrderStatus, event: OrderEvent): TransitionResult {
  switch (event.type) {
    case 'payment': {
      const before = event.paidBeforeBaseUnits ?? 0n;
      // A cancelled order keeps its status too: anything arriving after is an extra payment to return.
      if (TAKES_EXTRAS.has(status) || event.closed) return { ok: true, next: status, role: 'extra' };
      const full = before + event.receivedBaseUnits >= event.expectedBaseUnits;
      if (!full) {
        // Short while the quote is open: recorded, but the order stays payable (dust must not block it).
        if (status === 'awaiting_payment' && !event.late)
          return { ok: true, next: 'awaiting_payment', role: 'partial' };
        // Dust after the window: recorded, but no exception for the seller.
        if (event.belowDust && (status === 'awaiting_payment' || status === 'expired'))
          return { ok: true, next: 'expired', role: 'partial' };
        return { ok: true, next: 'underpaid', role: 'partial' };
      }
      const role: PaymentRole = status === 'underpaid' ? 'top_up' : 'payment';
      if (event.stockLost) return { ok: true, next: 'oversold', role };
      // Lateness is the block's time, not the order's status: an order expired before the watcher had judged
      // this block is paid on time when the block was before the expiry.
      if (event.late) return { ok: true, next: 'paid_late', role };
      return { ok: true, next: event.finalized ? 'final' : 'paid', role };
    }
    case 'finalized': {
      if (status === 'paid') return { ok: true, next: 'final' };
      if (status === 'final') return { ok: true, next: 'final' };
      if (HAS_PAYMENT.has(status)) return { ok: true, next: status }; // underpaid / paid_late / oversold / cancelled stay
      return { ok: false, refusal: { reason: 'not_paid_yet', status } };
    }
    case 'expire': {
      if (status !== 'awaiting_payment')
        return { ok: false, refusal: { reason: 'not_awaiting_payment', status } };
      return { ok: true, next: (event.receivedBaseUnits ?? 0n) > 0n ? 'underpaid' : 'expired' };
    }
    case 'ship': {
      if (SHIPPABLE.has(status)) return { ok: true, next: 'shipped' };
      if (status === 'cancelled') return { ok: false, refusal: { reason: 'cancelled', status } };
      if (status === 'shipped' || status === 'delivered')
        return { ok: false, refusal: { reason: 'already_shipped', status } };
      return { ok: false, refusal: { reason: 'not_paid_yet', status } };
    }
    case 'deliver': {
      if (status === 'shipped' || status === 'delivered') return { ok: true, next: 'delivered' };
      return { ok: false, refusal: { reason: 'not_shipped', status } };
    }
    case 'cancel': {
      if (CANCELLABLE.has(status)) return { ok: true, next: 'cancelled' };
      if (status === 'cancelled') return { ok: false, refusal: { reason: 'cancelled', status } };
      if (status === 'shipped' || status === 'delivered')
        return { ok: false, refusal: { reason: 'already_shipped', status } };
      return { ok: false, refusal: { reason: 'not_paid_yet', status } };
    }
  }
}
