/**
 * "Download my data" in words a buyer reads (OrderDataPage): the order's history and the vendor's actions, not
 * the store's field names (`amountBaseUnits`, `cancel_requested`). The JSON file beside it keeps the names.
 */
import type { OrderStatus } from '../../core/api';
import type { SellerException } from '../../core/seller-api';
import { EXCEPTION_LABEL, HISTORY_EVENT_WORDS, STATUS_LABEL } from '../../core/seller-words';
import { formatClaim } from '../lib/claim-amount';

const EVENT: Record<string, string> = {
  ...HISTORY_EVENT_WORDS,
  cancelled_by_buyer: 'cancelled by you',
  cancelled_by_seller: 'cancelled by the vendor (you asked)',
  shipped: 'shipped',
  delivered: 'delivered',
};

/** "payment arrived: Paid". */
export function historyWords(h: { event: string; status: OrderStatus }): string {
  return `${EVENT[h.event] ?? h.event.replace(/_/g, ' ')}: ${STATUS_LABEL[h.status] ?? h.status}`;
}

const ACTION: Record<string, string> = {
  shipped: 'Shipped the order',
  tracking: 'Changed the tracking number',
  delivered: 'Marked the order delivered',
  cancelled: 'Cancelled the order (you asked)',
  resolved: 'Settled a question about the order',
  refund: 'Sent part of a refund',
  refunded: 'Sent a refund',
  email_resent: 'Sent an e-mail again',
};

/** A detail of the vendor's action as "label: value" (an amount in $CLAIM, a question in words). */
function detailWords(key: string, value: string): string {
  switch (key) {
    case 'amountBaseUnits':
      return /^\d+$/.test(value) ? `amount: ${formatClaim(BigInt(value))} $CLAIM` : `amount: ${value}`;
    case 'exception':
      return `about: ${EXCEPTION_LABEL[value as SellerException] ?? value.replace(/_/g, ' ')}`;
    case 'signature':
      return `transaction: ${value}`;
    case 'trackingNumber':
      return `tracking number: ${value}`;
    case 'emailId':
      return `e-mail: ${value}`;
    case 'id':
      return `record: ${value}`;
    default:
      return `${key}: ${value}`;
  }
}

/** "Sent a refund (amount: 22,145.485396 $CLAIM, about: The buyer asked to cancel, transaction: 5urz…)". */
export function actionWords(a: { action: string; detail: Record<string, string> }): string {
  const what = ACTION[a.action] ?? a.action.replace(/_/g, ' ');
  const order = ['amountBaseUnits', 'exception', 'trackingNumber', 'carrier', 'note', 'signature'];
  const keys = Object.keys(a.detail).sort(
    (x, y) => (order.indexOf(x) + 1 || order.length + 1) - (order.indexOf(y) + 1 || order.length + 1),
  );
  return keys.length === 0
    ? what
    : `${what} (${keys.map((k) => detailWords(k, String(a.detail[k]))).join(', ')})`;
}
