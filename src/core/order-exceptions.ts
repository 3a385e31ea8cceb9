/**
 * What about an order the seller has to look at and resolve (the seller console's exceptions). Pure and
 * browser-safe; the order module reads the facts (src/server/orders/exceptions.ts).
 */
import type { OrderStatus } from './api';
import { HAS_PAYMENT } from './order-status';
import type { SellerException } from './seller-api';

export interface ExceptionFacts {
  status: OrderStatus;
  /** The buyer's shipping details are known (a QR record paid before them has none). */
  hasShipping: boolean;
  /** The ledger has a transfer after the full amount (an overpayment). */
  hasExtra: boolean;
}

export function exceptionsOf(o: ExceptionFacts): SellerException[] {
  const out: SellerException[] = [];
  if (!o.hasShipping && HAS_PAYMENT.has(o.status)) out.push('no_shipping_details');
  if (o.status === 'underpaid') out.push('underpaid');
  if (o.status === 'paid_late') out.push('paid_late');
  // Paid after the reservation lapsed and the stock went to someone else: refund the buyer.
  if (o.status === 'oversold') out.push('oversold');
  if (o.hasExtra) out.push('extra_payment');
  return out;
}
