/**
 * The buyer's order page in words (OrderPage): the status line, what happens next, what is owed back. Pure, so
 * each sentence can be checked against what happened.
 */
import type { OrderPageView } from '../../core/api';

/**
 * Everything owed back has been refunded (and something was). What is owed is the server's own rule
 * (src/core/refunds.ts with the order's dust threshold), sent with the page: never worked out again here.
 */
export function refundedAll(v: OrderPageView): boolean {
  return BigInt(v.owed.remainingBaseUnits) === 0n && BigInt(v.owed.refundedBaseUnits) > 0n;
}

/** What arrived above the order's amount (0 when not overpaid or unpriced). */
export function overpaidBy(v: OrderPageView): bigint {
  if (v.amountBaseUnits === null) return 0n;
  const over = BigInt(v.receivedBaseUnits) - BigInt(v.amountBaseUnits);
  return over > 0n ? over : 0n;
}

/** What the page says about an extra payment: owed back, back already, or dust (owed nothing). */
export const extraText = (v: OrderPageView, index: number) => {
  if (BigInt(v.owed.perPayment[index] ?? '0') === 0n) return 'extra payment (too small to be sent back)';
  return refundedAll(v) ? 'extra payment (refunded)' : 'extra payment (the seller refunds it)';
};

/** The buyer asked the vendor to cancel and the vendor has not answered yet (the order's own fact). */
export const cancelAsked = (v: OrderPageView) => v.privacy.cancel === 'requested';

export function statusLine(v: OrderPageView, now: number): string {
  if (
    cancelAsked(v) &&
    (v.status === 'paid' || v.status === 'final' || v.status === 'paid_late' || v.status === 'underpaid')
  )
    return 'Cancellation requested: waiting for the seller';
  switch (v.status) {
    case 'awaiting_payment': {
      if (v.amount === null) return 'Awaiting payment: the seller will contact you to arrange it';
      const left = Date.parse(v.expiresAt) - now;
      return left > 0
        ? `Awaiting payment: ${Math.max(1, Math.ceil(left / 60_000))} min left`
        : 'Awaiting payment: the payment window is closing';
    }
    case 'paid':
      return 'Payment received';
    case 'final':
      return 'Payment received and final';
    case 'underpaid':
      return 'Payment received, but less than the order total';
    case 'paid_late':
      return 'Payment received after the payment window closed';
    case 'expired':
      return 'Expired: the payment window closed and no payment was received';
    case 'shipped':
      return v.shipment
        ? `Shipped: tracking number ${v.shipment.trackingNumber}${v.shipment.carrier ? ` (${v.shipment.carrier})` : ''}`
        : 'Shipped';
    case 'delivered':
      return 'Delivered';
    case 'oversold':
      return 'Payment received, but the item sold out before it arrived';
    case 'cancelled':
      return refundedAll(v) ? 'Cancelled and refunded' : 'Cancelled: the seller refunds your payment';
  }
}

export function nextSteps(v: OrderPageView): string {
  if (cancelAsked(v) && v.status !== 'cancelled')
    return 'You asked the seller to cancel this order. They have been e-mailed; while they look at it the order does not ship. Once they cancel it, they refund your payment to the wallet that paid, and this page shows the refund.';
  if (
    v.shippingDetails !== 'given' &&
    (v.status === 'paid' || v.status === 'final' || v.status === 'paid_late')
  )
    // 'missing': the grace for details is over and the seller was e-mailed; 'awaiting': not yet.
    return `We have your payment but not your shipping details yet: send them from the product page where you paid (same device), or contact the seller. ${
      v.shippingDetails === 'missing'
        ? 'The seller has been told.'
        : 'The seller sees the order as paid and waiting for your details.'
    }`;
  switch (v.status) {
    case 'awaiting_payment':
      return 'Scan the QR code or use the payment link on the product page. This page updates by itself once the payment is recorded.';
    case 'paid':
    case 'final':
      return 'The seller has your order and ships it to the address you gave. The confirmation e-mail has the details.';
    case 'underpaid':
      return 'Pay the missing amount with the link below (it carries this order’s reference), or wait for the seller to contact you to settle the difference.';
    case 'paid_late':
      return 'Your payment is recorded. Because it arrived after the quote expired, the seller will review it and confirm your order before shipping.';
    case 'expired':
      return 'Nothing was paid, so nothing more happens. To buy, start a new order on the product page.';
    case 'shipped':
      return 'The seller has sent your order. Follow the parcel with the tracking number (it is also in your e-mail).';
    case 'delivered':
      return 'The seller has marked your order delivered.';
    case 'oversold':
      return refundedAll(v)
        ? 'Your payment arrived after the reservation lapsed and the item had sold out meanwhile. The seller has refunded it to your wallet (below).'
        : 'Your payment is recorded, but it arrived after the reservation lapsed and the item had sold out meanwhile. The seller will refund you.';
    case 'cancelled':
      return refundedAll(v)
        ? 'The seller cancelled this order as you asked and refunded your payment to your wallet (below). It will not ship.'
        : 'The seller cancelled this order as you asked. It will not ship, and the seller refunds your payment to your wallet.';
  }
}
