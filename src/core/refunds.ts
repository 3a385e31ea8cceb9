/**
 * Who is owed what: the rule that decides how much of an order's money goes back, and to whom. Pure and
 * browser-safe; amounts are token base units (bigint). It reads only the order's ledger — the transfers counted
 * toward it and the extra payments after it, each recorded by the watcher — its payers (who sent each transfer,
 * read from the chain by src/server/payments/payers.ts) and the refunds already recorded, never a transfer that
 * merely names the order's reference.
 *
 * - Dust is owed nothing: a transfer below the order's dust threshold (an extra, or any transfer when the whole
 *   order goes back), and an over-amount below it. It still counts toward the amount it helped pay.
 * - Oversold (paid in full, the piece went to someone else), cancelled (the seller cancelled at the buyer's
 *   request before shipping) or closed by a refund (underpaid or paid late, returned): everything received is
 *   owed.
 * - Otherwise: every extra payment (a transfer after the full amount), plus whatever the counted transfers paid
 *   above the order amount (an overpayment in the completing transfer), each to the sender of that money.
 * - Refunds already sent count against it; the rest is still owed (never below zero).
 * - A refund goes to one sender, at most what is owed to that sender now (`refundLimits`): beyond what the order
 *   needed when the refund leaves the order to ship (an extra payment, an over-amount), or everything that sender
 *   paid when it closes the order (oversold, cancelled, underpaid, paid late). A sender of dust only is owed
 *   nothing, and a refund to them is refused.
 */
import type { OrderStatus, PaymentRole } from './api';
import type { SellerException } from './seller-api';
import { REFUND_KEEPS_ORDER as KEEPS_ORDER } from './ship-readiness';

/** One ledger transfer, in ledger order. `payer`: who sent it (a wallet or token account), when known. */
export interface LedgerTransfer {
  role: PaymentRole;
  receivedBaseUnits: bigint;
  payer?: string | null;
}

export interface OwedInput {
  status: OrderStatus;
  /** The order amount; null for an unpriced order (then only extras and oversold count). */
  amountBaseUnits: bigint | null;
  /** Below this a transfer (or an over-amount) is dust, owed nothing. Default 0 (nothing is dust). */
  dustBaseUnits?: bigint;
  payments: readonly LedgerTransfer[];
  /**
   * A refund closed the order (it settled an exception other than an extra payment or an over-amount): it will
   * not ship, so everything it received goes back, later transfers included. Default false.
   */
  closed?: boolean;
  /** `payer`: the sender it went back to (null for refunds recorded before senders were). */
  refunds: readonly { amountBaseUnits: bigint; payer?: string | null }[];
}

export interface Owed {
  /** Everything the ledger received. */
  receivedBaseUnits: bigint;
  /** What the rule says goes back (before refunds). */
  owedBaseUnits: bigint;
  refundedBaseUnits: bigint;
  /** Still to return: owed − refunded, at least 0. */
  remainingBaseUnits: bigint;
  /** The most refunds may return in all when the order is returned whole: received but dust − refunded, ≥ 0. */
  refundableBaseUnits: bigint;
}

/**
 * Exceptions whose refund returns only money above the price (an extra payment, the over-amount of the
 * completing transfer): settling one leaves the order to ship. A refund settling any other (oversold, cancelled
 * at the buyer's request, underpaid, paid late) closes the order: it will not ship.
 */
export const REFUND_KEEPS_ORDER: readonly SellerException[] = KEEPS_ORDER;

const sum = (xs: readonly bigint[]): bigint => xs.reduce((a, b) => a + b, 0n);
const atLeastZero = (n: bigint): bigint => (n > 0n ? n : 0n);
const min = (a: bigint, b: bigint): bigint => (a < b ? a : b);

/** The whole order goes back: oversold or cancelled, or a refund against an exception that closes the order. */
function returnsWhole(input: Pick<OwedInput, 'status' | 'closed'>, exception?: SellerException): boolean {
  if (input.closed || input.status === 'oversold' || input.status === 'cancelled') return true;
  return exception !== undefined && !REFUND_KEEPS_ORDER.includes(exception);
}

/**
 * What each transfer paid beyond what the order needed, in ledger order (what is owed back for it before
 * refunds). `whole`: the order needs nothing (it goes back whole).
 */
export function owedParts(
  input: Pick<OwedInput, 'amountBaseUnits' | 'dustBaseUnits' | 'payments'>,
  whole: boolean,
): bigint[] {
  const dust = input.dustBaseUnits ?? 0n;
  const isDust = (n: bigint) => n < dust;
  if (whole) return input.payments.map((p) => (isDust(p.receivedBaseUnits) ? 0n : p.receivedBaseUnits));
  let need = input.amountBaseUnits ?? 0n;
  const over = input.amountBaseUnits === null ? 0n : overpaidOf(input.amountBaseUnits, input.payments);
  return input.payments.map((p) => {
    if (p.role === 'extra') return isDust(p.receivedBaseUnits) ? 0n : p.receivedBaseUnits;
    if (input.amountBaseUnits === null) return 0n;
    const applied = min(need, p.receivedBaseUnits);
    need -= applied;
    // The over-amount in the counted transfers, dust as a whole, is owed nothing.
    return isDust(over) ? 0n : p.receivedBaseUnits - applied;
  });
}

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

/** The ledger facts behind the money exceptions: an extra payment above dust, an over-amount above dust. */
export function moneyFactsOf(
  input: Pick<OwedInput, 'status' | 'amountBaseUnits' | 'dustBaseUnits' | 'payments'>,
): {
  hasExtra: boolean;
  overpaid: boolean;
} {
  const parts = owedParts(input, false);
  return {
    hasExtra: input.payments.some((p, i) => p.role === 'extra' && parts[i]! > 0n),
    overpaid: input.payments.some((p, i) => p.role !== 'extra' && parts[i]! > 0n),
  };
}

export function owedOf(input: OwedInput): Owed {
  const received = sum(input.payments.map((p) => p.receivedBaseUnits));
  const owed = sum(owedParts(input, returnsWhole(input)));
  const returnable = sum(owedParts(input, true));
  const refunded = sum(input.refunds.map((r) => r.amountBaseUnits));
  return {
    receivedBaseUnits: received,
    owedBaseUnits: owed,
    refundedBaseUnits: refunded,
    remainingBaseUnits: atLeastZero(owed - refunded),
    refundableBaseUnits: atLeastZero(returnable - refunded),
  };
}

/**
 * What the order still owes back for a refund against `exception`: what is still owed, or, when such a refund
 * closes the order (paid late, no shipping details, unreadable: the order goes back whole), everything returnable.
 * A refund of at least this much settles the exception; less leaves it open (a refund begun).
 */
export function stillOwedFor(input: OwedInput, exception: SellerException): bigint {
  const order = owedOf(input);
  return returnsWhole(input, exception) ? order.refundableBaseUnits : order.remainingBaseUnits;
}

/** What one sender sent, is owed for a refund against an exception, got back, and may get back now. */
export interface SenderOwed {
  paidBaseUnits: bigint;
  owedBaseUnits: bigint;
  refundedBaseUnits: bigint;
  /** The most one refund to this sender may return now: owed − refunded to them, within the order's own limit. */
  limitBaseUnits: bigint;
}

/**
 * The most a refund against `exception` may return to each sender (keyed by `payer`; transfers without a known
 * sender are left out). One rule for the console's default ("Refund with wallet") and the server's check of a
 * recorded refund. Refunds recorded without a sender (before senders were recorded) count against everyone.
 */
export function refundLimits(input: OwedInput, exception: SellerException): Map<string, SenderOwed> {
  const whole = returnsWhole(input, exception);
  const parts = owedParts(input, whole);
  const orderLimit = stillOwedFor(input, exception);
  const unattributed = sum(input.refunds.filter((r) => !r.payer).map((r) => r.amountBaseUnits));
  const out = new Map<string, SenderOwed>();
  input.payments.forEach((p, i) => {
    if (!p.payer) return;
    const s = out.get(p.payer) ?? {
      paidBaseUnits: 0n,
      owedBaseUnits: 0n,
      refundedBaseUnits: 0n,
      limitBaseUnits: 0n,
    };
    s.paidBaseUnits += p.receivedBaseUnits;
    s.owedBaseUnits += parts[i]!;
    out.set(p.payer, s);
  });
  for (const [payer, s] of out) {
    s.refundedBaseUnits = sum(input.refunds.filter((r) => r.payer === payer).map((r) => r.amountBaseUnits));
    s.limitBaseUnits = min(atLeastZero(s.owedBaseUnits - s.refundedBaseUnits - unattributed), orderLimit);
  }
  return out;
}

/** Who a refund goes to by default: the sender owed most now (the earliest on a tie), or none when nobody is. */
export function defaultRefundTo<T extends { limitBaseUnits: bigint }>(senders: readonly T[]): T | undefined {
  let best: T | undefined;
  for (const s of senders)
    if (s.limitBaseUnits > 0n && (!best || s.limitBaseUnits > best.limitBaseUnits)) best = s;
  return best;
}
