/** The seller console's words for statuses and exceptions, and its formatting of amounts, times and errors. */
import type { OrderStatus } from '../../core/api';
import { formatBaseUnits } from '../../core/money';
import type { SellerException } from '../../core/seller-api';
import { ApiRequestError } from '../lib/call';
import { formatLocalDateTime } from '../lib/time';

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
};

export const EXCEPTION_LABEL: Record<SellerException, string> = {
  underpaid: 'Underpaid',
  paid_late: 'Paid late',
  extra_payment: 'Extra payment',
  no_shipping_details: 'Paid without shipping details',
  oversold: 'Oversold: refund the buyer',
};

export const claim = (base: string | null) => (base === null ? 'N/A' : formatBaseUnits(BigInt(base)));
export const when = (iso: string) => formatLocalDateTime(iso);
export const message = (err: unknown) =>
  err instanceof ApiRequestError ? err.message : 'Something went wrong.';
