/**
 * Order status: a closed set and a pure transition function. The store persists every transition with its
 * time; this module only decides. Browser-safe.
 *
 *   awaiting_payment ──payment (full, on time)──▶ paid ──finalized──▶ final
 *          │      └─────payment (full, on time, finalized)──────────▶ final
 *          │      └─────payment (short)─────────▶ underpaid
 *          │      └─────payment (full, late)────▶ paid_late
 *          └──expire──▶ expired ──payment (full)──▶ paid_late
 *                               └─payment (short)─▶ underpaid
 */
import type { OrderStatus } from './api';

export const ORDER_STATUSES = ['awaiting_payment', 'paid', 'final', 'expired', 'underpaid', 'paid_late'] as const satisfies readonly OrderStatus[];
export type { OrderStatus };

export type OrderEvent =
  /** A transfer to the order's reference was verified (right mint and recipient). */
  | { type: 'payment'; receivedBaseUnits: bigint; expectedBaseUnits: bigint; finalized: boolean; late: boolean }
  /** The already recorded payment reached finalized commitment. */
  | { type: 'finalized' }
  /** The quote's payment window passed without a payment. */
  | { type: 'expire' };

export type TransitionRefusal =
  | { reason: 'already_has_payment'; status: OrderStatus }
  | { reason: 'not_paid_yet'; status: OrderStatus }
  | { reason: 'not_awaiting_payment'; status: OrderStatus };

export type TransitionResult = { ok: true; next: OrderStatus } | { ok: false; refusal: TransitionRefusal };

/** Statuses in which a payment has been recorded. */
export const HAS_PAYMENT: ReadonlySet<OrderStatus> = new Set(['paid', 'final', 'underpaid', 'paid_late']);
/** Statuses in which the full amount has been received. */
export const FULLY_PAID: ReadonlySet<OrderStatus> = new Set(['paid', 'final', 'paid_late']);

export function transition(status: OrderStatus, event: OrderEvent): TransitionResult {
  switch (event.type) {
    case 'payment': {
      if (HAS_PAYMENT.has(status)) return { ok: false, refusal: { reason: 'already_has_payment', status } };
      const full = event.receivedBaseUnits >= event.expectedBaseUnits;
      if (!full) return { ok: true, next: 'underpaid' };
      if (status === 'expired' || event.late) return { ok: true, next: 'paid_late' };
      return { ok: true, next: event.finalized ? 'final' : 'paid' };
    }
    case 'finalized': {
      if (status === 'paid') return { ok: true, next: 'final' };
      if (status === 'final') return { ok: true, next: 'final' };
      if (HAS_PAYMENT.has(status)) return { ok: true, next: status }; // underpaid / paid_late stay as they are
      return { ok: false, refusal: { reason: 'not_paid_yet', status } };
    }
    case 'expire': {
      if (status === 'awaiting_payment') return { ok: true, next: 'expired' };
      return { ok: false, refusal: { reason: 'not_awaiting_payment', status } };
    }
  }
}
