/**
 * What the paid state says, as pure functions of the server's order (wallet and QR checkouts share it; unit-tested
 * in receipt.test.ts). The receipt is the end of a purchase: "Paid", the short order number, the amount with
 * separators, what happens next, and one button to the order page. Only good or neutral news for the buyer's own
 * purchase: no sold-out banner, no "that was the last one".
 */
import type { OrderPublic, OrderStatus } from '../../../core/api';
import { formatBaseUnits, groupThousands } from '../../../core/money';
import { orderNumberOf } from '../../../core/order-number';

/** The statuses that end a purchase on the receipt (the full amount received, the goods the buyer's). */
const RECEIPT: ReadonlySet<OrderStatus> = new Set(['paid', 'final', 'paid_late', 'shipped', 'delivered']);

export function showsReceipt(o: Pick<OrderPublic, 'status'>): boolean {
  return RECEIPT.has(o.status);
}

export interface ReceiptText {
  /** "80F9C6E3": the order number of the order page and the e-mails. */
  number: string;
  /** "23,079.737310 $CLAIM", or null for an order sent without a price. */
  amount: string | null;
  /** What happens next, in one or two sentences. */
  next: string;
  /** Paid more than the order: what happens to the extra (null when not overpaid). */
  extra: string | null;
}

export function receiptText(
  o: Pick<OrderPublic, 'orderId' | 'status' | 'amount' | 'amountBaseUnits' | 'receivedBaseUnits'>,
  opts: { detailsMissing?: boolean; vendorName?: string } = {},
): ReceiptText {
  const seller = opts.vendorName ?? 'The seller';
  let next: string;
  if (opts.detailsMissing)
    next =
      'One step left: fill in your shipping details below and send them, so the seller knows where to ship.';
  else if (o.status === 'paid_late')
    next =
      'Your payment arrived after the payment window closed: the seller checks it and confirms your order before shipping. Your order page shows when they do.';
  else if (o.status === 'shipped')
    next = `${seller} has sent your order. Your order page has the tracking number.`;
  else if (o.status === 'delivered') next = `${seller} has marked your order delivered.`;
  else
    next = `${seller} packs your order and ships it to the address you gave. A confirmation e-mail is on its way; your order page shows the tracking number once it ships.`;
  let extra: string | null = null;
  if (o.amountBaseUnits !== null && o.receivedBaseUnits !== undefined) {
    const over = BigInt(o.receivedBaseUnits) - BigInt(o.amountBaseUnits);
    if (over > 0n)
      extra = `You sent ${groupThousands(formatBaseUnits(over))} $CLAIM more than the order total: the seller refunds the extra to the wallet that paid.`;
  }
  return {
    number: orderNumberOf(o.orderId),
    amount: o.amount === null ? null : `${groupThousands(o.amount)} $CLAIM`,
    next,
    extra,
  };
}
