/**
 * The plain words the seller console and its CSV use for statuses and exceptions (never the internal names).
 * Browser-safe.
 */
import type { OrderStatus } from './api';
import type { SellerException, SellerOrderSummary, SellerQueue } from './seller-api';

/**
 * A status in words, as it was when it was entered (the order view's history). What an order reads as now is
 * `statusWords`, which follows the money.
 */
/** An order history's events in words, the same for the buyer and the vendor (who did what is said by each). */
export const HISTORY_EVENT_WORDS: Record<string, string> = {
  created: 'order placed',
  recorded: 'QR order recorded',
  requote: 'price renewed',
  payment: 'payment arrived',
  top_up: 'missing amount arrived',
  finalized: 'payment final on chain',
  expire: 'time to pay ran out',
};

export const STATUS_LABEL: Record<OrderStatus, string> = {
  awaiting_payment: 'Awaiting payment',
  paid: 'Paid',
  // Every transfer that paid it is final on chain: nothing can undo it.
  final: 'Paid and settled',
  expired: 'Expired',
  underpaid: 'Underpaid',
  paid_late: 'Paid late',
  shipped: 'Shipped',
  delivered: 'Delivered',
  oversold: 'Oversold',
  cancelled: 'Cancelled',
};

/** The exception whose refund the status waits on: while it is open the status asks for the refund. */
const REFUND_DUE: Partial<Record<OrderStatus, SellerException>> = {
  cancelled: 'cancel_requested',
  oversold: 'oversold',
};

/**
 * What an order reads as now, in the list, the order view and the CSV: the money decides. A cancelled or
 * oversold order asks for its refund while it is owed ("Cancelled: refund the buyer") and reads as done once a
 * refund closed it ("Cancelled and refunded"); so does an underpaid or late order the vendor refunded. A QR
 * order paid moments ago without details says it waits for them.
 */
export function statusWords(
  o: Pick<SellerOrderSummary, 'status' | 'exceptions' | 'resolved' | 'closedByRefund' | 'awaitingDetails'>,
): string {
  const base = STATUS_LABEL[o.status];
  if (o.closedByRefund) return `${base} and refunded`;
  const due = REFUND_DUE[o.status];
  if (due && o.exceptions.includes(due) && !o.resolved.includes(due)) return `${base}: refund the buyer`;
  if (o.awaitingDetails) return `${base}, waiting for shipping details`;
  return base;
}

/**
 * Why the order view offers no shipping, for an order neither shippable nor shipped: a cancelled or oversold
 * order has nothing to ship (not "only a fully paid order can be shipped": it was paid), an unpaid one waits.
 */
export function noShippingWords(status: OrderStatus): string {
  switch (status) {
    case 'cancelled':
      return 'This order was cancelled: it does not ship.';
    case 'oversold':
      return 'Oversold: the piece went to another buyer, nothing to ship.';
    case 'expired':
      return 'Expired without payment: nothing to ship.';
    default:
      return 'Only a fully paid order can be shipped.';
  }
}

/** What the order view's "Ship to" says when the buyer has not sent shipping details (a QR order paid first). */
export const NO_DETAILS_YET = 'No shipping details yet: the buyer has not sent them.';

/**
 * The order view's "Ship to" lines: the address on its lines, else the name or what stands for it (details
 * erased or unreadable), else that the details have not come yet, never an empty heading.
 */
export function shipToLines(o: { buyerName: string; packingSlip: { shipTo: string[] } }): string[] {
  if (o.packingSlip.shipTo.length > 0) return o.packingSlip.shipTo;
  return [o.buyerName || NO_DETAILS_YET];
}

export const EXCEPTION_LABEL: Record<SellerException, string> = {
  underpaid: 'Underpaid',
  paid_late: 'Paid late',
  extra_payment: 'Extra payment',
  no_shipping_details: 'Paid without shipping details',
  oversold: 'Oversold: refund the buyer',
  overpaid: 'Paid more than the total',
  cancel_requested: 'The buyer asked to cancel',
  unreadable_payment: 'A payment the store could not read: check it by hand',
};

export const QUEUE_LABEL: Record<SellerQueue, string> = {
  to_ship: 'To ship',
  exceptions: 'Exceptions',
  shipped: 'Shipped',
  all: 'All',
};

export const PAYMENT_METHOD_LABEL: Record<'wallet' | 'qr', string> = {
  wallet: 'Wallet',
  qr: 'QR code',
};
