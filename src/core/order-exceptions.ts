/**
 * What about an order the seller has to look at and resolve (the seller console's exceptions). Pure and
 * browser-safe; the order module reads the facts (src/server/orders/exceptions.ts).
 */
import type { OrderStatus } from './api';
import { CANCELLABLE, HAS_PAYMENT } from './order-status';
import type { SellerException } from './seller-api';

export interface ExceptionFacts {
  status: OrderStatus;
  /** The buyer's shipping details are known (a QR record paid before them has none). */
  hasShipping: boolean;
  /** The ledger has a transfer after the full amount (an overpayment). */
  hasExtra: boolean;
  /**
   * The transfers counted toward the amount paid more than it (src/core/refunds.ts overpaidOf > 0): the
   * completing transfer overpaid. Default false.
   */
  overpaid?: boolean;
  /** The buyer asked the vendor to cancel from their order page. Default false. */
  cancelAsked?: boolean;
  /** A transaction the store could not read may pay the order (the order module's note). Default false. */
  unreadablePayment?: boolean;
  /**
   * Paid without shipping details less than the grace ago (QR_DETAILS_GRACE_MS from its first transfer): the buyer
   * may still be typing them, so the missing details are no exception yet. Default false.
   */
  detailsAwaited?: boolean;
}

/** Money arrived for an order that has no shipping details (a QR record paid first) and is to ship. */
export function detailsMissing(o: Pick<ExceptionFacts, 'status' | 'hasShipping'>): boolean {
  // A cancelled order does not ship: its missing details are nothing to look at.
  return !o.hasShipping && HAS_PAYMENT.has(o.status) && o.status !== 'cancelled';
}

export function exceptionsOf(o: ExceptionFacts): SellerException[] {
  const out: SellerException[] = [];
  if (detailsMissing(o) && !o.detailsAwaited) out.push('no_shipping_details');
  if (o.status === 'underpaid') out.push('underpaid');
  if (o.status === 'paid_late') out.push('paid_late');
  // Paid after the reservation lapsed and the stock went to someone else: refund the buyer.
  if (o.status === 'oversold') out.push('oversold');
  // A cancelled order owes everything back under its cancel request, extras included.
  if (o.hasExtra && o.status !== 'cancelled') out.push('extra_payment');
  // Over the amount in the counted transfers: owed back unless the whole order is (oversold, cancelled).
  if (o.overpaid && o.status !== 'oversold' && o.status !== 'cancelled') out.push('overpaid');
  // A paid order the buyer asked to cancel, and the same order once the seller cancelled it (refund it all).
  if (o.cancelAsked && (CANCELLABLE.has(o.status) || o.status === 'cancelled')) out.push('cancel_requested');
  // Whatever the status: money may have arrived that the ledger does not show.
  if (o.unreadablePayment) out.push('unreadable_payment');
  return out;
}
