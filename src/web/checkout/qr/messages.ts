import type { OrderStatus } from '../../../core/api';
import { groupThousands } from '../../lib/claim-amount';

/** The QR checkout's user-visible texts. Alerts are the spec's (§8), to the letter. */
export const MSG_SENT = 'Order confirmation sent to both seller and buyer!';
export const MSG_FAILED = 'Failed to send order confirmation.';
export const MSG_PRICE_FAILED = 'Failed to load price. Try again later.';
export const MSG_PRICE_ERROR = 'Error loading price.';
export const GENERATING = 'Generating QR Code...';
/** Shown in place of the time left when an awaiting order's window closes (the server then expires it). */
export const QR_TIME_UP =
  'Time is up: this order can no longer be paid. Do not send a payment with this QR code; start a new order instead. If you paid just now, the status above updates by itself.';
export const TITLE_SCAN = 'Scan to pay';
/** A phone is the device that pays: its wallet first, the QR for another device below. */
export const TITLE_PHONE = 'Pay with a wallet on this phone';
export const SCAN_ON_ANOTHER = 'Or scan this QR code with a wallet on another device:';
export const TITLE_PAYOUT_REFUSED = 'Not ready for QR payments';
export const CHECKING_STATUS = 'Checking payment status...';
export const SENT_WITHOUT_PRICE = 'Sent without a price: the seller will contact you to arrange payment';
export const CONFIRMATION_SENT_LABEL = 'Confirmation Sent';
export const COPIED = 'Payment link copied.';
export const COPY_FAILED = 'Could not copy: use "Open in wallet" or copy the link by hand.';

/** The confirmation button's text: the glass vendor's QR page (Eagles XL) reads 'Send Confirmation Email'. */
export function confirmLabel(vendorId: string): string {
  return vendorId === 'coopersglass' ? 'Send Confirmation Email' : 'Send Order Confirmation';
}

/** After the details of an unpaid record: the next step, where the QR is. */
export const nowPay = (amount: string) =>
  `Now pay ${groupThousands(amount)} $CLAIM to complete the order. The piece is yours once your payment arrives; until then someone else can still buy it.`;

export const STATUS_TEXT: Record<OrderStatus, string> = {
  awaiting_payment: 'Awaiting payment',
  paid: 'Payment received — Paid, nothing more to pay',
  final: 'Payment received and final — Paid, nothing more to pay',
  expired: 'Payment window expired',
  underpaid: 'Payment received, but less than the order total',
  paid_late: 'Payment received after the payment window closed',
  shipped: 'Shipped',
  delivered: 'Delivered',
  oversold: 'Payment received, but the item sold out first: the seller will refund you',
  cancelled: 'Order cancelled: the seller refunds your payment',
};

/** Over HTTPS the QR is a Solana Pay transaction request; this shows the plain transfer request instead. */
export const WALLET_CANNOT_READ = 'My wallet cannot read this code';
export const TRANSFER_FALLBACK_NOTE =
  "This simpler code works in any wallet that reads Solana Pay links. It cannot set up the seller's $CLAIM account: if your wallet says an account is not found, use the first code.";

/** The product sold out while this tab's QR was open and nothing was paid for it (view.ts soldOutView). */
export const RECORD_SOLD_OUT =
  'Sold out while your order was open, before anything was paid for it: please do not pay its QR code now (a payment would have to be refunded).';
