/**
 * Who is owed what: the rule that decides how much of an order's money goes back to its payer. Pure and
 * browser-safe; amounts are token base units (bigint). It reads only the order's ledger — the transfers counted
 * toward it and the extra payments after it, each recorded by the watcher — and the refunds already recorded,
 * never a transfer that merely names the order's reference.
 *
 * - Oversold (paid in full, the piece went to someone else) or cancelled (the seller cancelled at the buyer's
 *   request before shipping): everything received is owed.
 * - Otherwise: every extra payment (a transfer after the full amount), plus whatever the counted transfers paid
 *   above the order amount (an overpayment in the completing transfer).
 * - Refunds already sent count against it; the rest is still owed (never below zero).
 * - A refund may be any amount up to what was received and not yet refunded (an underpaid order can be returned
 *   too); more than that is refused.
 */
import type { OrderStatus, PaymentRole } from './api';

export interface OwedInput {
  status: OrderStatus;
  /** The order amount; null for an unpriced order (then only extras and oversold count). */
  amountBaseUnits: bigint | null;
  payments: readonly { role: PaymentRole; receivedBaseUnits: bigint }[];
  refunds: readonly { amountBaseUnits: bigint }[];
}

export interface Owed {
  /** Everything the ledger received. */
  receivedBaseUnits: bigint;
  /** What the rule says goes back (before refunds). */
  owedBaseUnits: bigint;
  refundedBaseUnits: bigint;
  /** Still to return: owed − refunded, at least 0. */
  remainingBaseUnits: bigint;
  /** The most a new refund may be: received − refunded, at least 0. */
  refundableBaseUnits: bigint;
}

const sum = (xs: readonly bigint[]): bigint => xs.reduce((a, b) => a + b, 0n);
const atLeastZero = (n: bigint): bigint => (n > 0n ? n : 0n);

/**
 * What the transfers counted toward the order paid above its amount (an overpayment in the completing transfer,
 * not a separate extra payment); 0 for an unpriced order.
 */
export function overpaidOf(
  amountBaseUnits: bigint | null,
  payments: readonly { role: PaymentRole; receivedBaseUnits: bigint }[],
): bigint {
  if (amountBaseUnits === null) return 0n;
  const counted = sum(payments.filter((p) => p.role !== 'extra').map((p) => p.receivedBaseUnits));
  return atLeastZero(counted - amountBaseUnits);
}

export function owedOf(input: OwedInput): Owed {
  const received = sum(input.payments.map((p) => p.receivedBaseUnits));
  const extras = sum(input.payments.filter((p) => p.role === 'extra').map((p) => p.receivedBaseUnits));
  let owed: bigint;
  if (input.status === 'oversold' || input.status === 'cancelled') owed = received;
  else owed = extras + overpaidOf(input.amountBaseUnits, input.payments);
  const refunded = sum(input.refunds.map((r) => r.amountBaseUnits));
  return {
    receivedBaseUnits: received,
    owedBaseUnits: owed,
    refundedBaseUnits: refunded,
    remainingBaseUnits: atLeastZero(owed - refunded),
    refundableBaseUnits: atLeastZero(received - refunded),
  };
}
