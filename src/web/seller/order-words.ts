/** Plain words for one order in the seller console: payments, e-mails, history events, the seller's actions. */
import type { MailDelivery, PaymentRole } from '../../core/api';
import type { SellerException } from '../../core/seller-api';
import { HISTORY_EVENT_WORDS } from '../../core/seller-words';

export const PAYMENT_ROLE: Record<PaymentRole, string> = {
  payment: 'Payment',
  top_up: 'Missing amount paid',
  partial: 'Part payment',
  extra: 'Extra payment',
};

const EMAIL: Record<string, [toBuyer: string, toYou: string]> = {
  order_confirmation: ['Order confirmation to the buyer', 'New order (to you)'],
  payment_received: ['Payment received (to the buyer)', 'Payment received (to you)'],
  payment_underpaid: ['Less than the total arrived (to the buyer)', 'Less than the total arrived (to you)'],
  details_missing: ['Shipping details missing (to the buyer)', 'Paid without shipping details (to you)'],
  paid_late: ['Paid after the time limit (to the buyer)', 'Paid after the time limit (to you)'],
  order_shipped: ['Shipped, with tracking (to the buyer)', 'Shipped (to you)'],
  tracking_updated: ['New tracking number (to the buyer)', 'New tracking number (to you)'],
  payment_oversold: ['Sold out, refund on its way (to the buyer)', 'Sold to someone else (to you)'],
  refund_sent: ['Refund sent (to the buyer)', 'Refund sent (to you)'],
  details_erased: ['Details deleted (to the buyer)', 'The buyer deleted their details (to you)'],
  cancel_requested: ['Cancel request (to the buyer)', 'The buyer asks to cancel (to you)'],
};

export function emailWords(kind: string, recipient: 'seller' | 'buyer'): string {
  const words = EMAIL[kind];
  if (!words) return kind.replace(/_/g, ' ');
  return recipient === 'buyer' ? words[0] : words[1];
}

export const MAIL_STATE: Record<MailDelivery, string> = {
  pending: 'waiting to be sent',
  sent: 'sent',
  retrying: 'retrying',
  failed: 'failed',
  withheld: 'withheld (not sent)',
};

const EVENT: Record<string, string> = {
  ...HISTORY_EVENT_WORDS,
  cancelled_by_buyer: 'cancelled by the buyer',
  cancelled_by_seller: 'cancelled by you (the buyer asked)',
  shipped: 'marked shipped',
  delivered: 'marked delivered',
};
export const eventWords = (event: string) => EVENT[event] ?? event.replace(/_/g, ' ');

/** The exceptions a refund can settle from this page (what was received can go back). */
export const REFUNDABLE: readonly SellerException[] = [
  'extra_payment',
  'overpaid',
  'oversold',
  'cancel_requested',
  'underpaid',
  'paid_late',
];

/** Why the payment watcher could not read a transaction (docs/decisions/transaction-versions.md). */
export const UNREADABLE_REASON: Record<string, string> = {
  unsupported_version: 'A transaction in a newer format than the store reads',
  malformed: 'A transaction the node described in a form the store could not read',
  rpc_error: 'A transaction the node kept failing to return',
};
