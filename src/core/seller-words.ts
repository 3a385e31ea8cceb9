/**
 * The plain words the seller console and its CSV use for statuses and exceptions (never the internal names).
 * Browser-safe.
 */
import type { OrderStatus } from './api';
import type { SellerException, SellerQueue } from './seller-api';

export const STATUS_LABEL: Record<OrderStatus, string> = {
  awaiting_payment: 'Awaiting payment',
  paid: 'Paid',
  final: 'Paid (final)',
  expired: 'Expired',
  underpaid: 'Underpaid',
  paid_late: 'Paid late',
  shipped: 'Shipped',
  delivered: 'Delivered',
  oversold: 'Oversold (refund the buyer)',
  cancelled: 'Cancelled (refund the buyer)',
};

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
