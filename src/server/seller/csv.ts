/**
 * The seller's CSV export: one row per order, RFC 4180 (CRLF, quotes doubled), UTF-8. Amounts in $CLAIM with
 * their six decimals (exact, from base units) and in USD with two; times ISO-8601 UTC; statuses in plain words.
 * Cells starting with = + - @ (or a tab or carriage return) get a leading ' so a spreadsheet does not run them.
 */
import { formatBaseUnits, formatCents } from '../../core/money';
import { EXCEPTION_LABEL, PAYMENT_METHOD_LABEL, statusWords } from '../../core/seller-words';
import type { SellerExportRow } from './export';

/** The columns, in order (the CSV's header). */
export const CSV_COLUMNS = [
  'order_number',
  'order_id',
  'placed_at',
  'status',
  'vendor',
  'payment_method',
  'buyer_name',
  'buyer_email',
  'address1',
  'address2',
  'city',
  'state',
  'postal_code',
  'country',
  'products',
  'variant',
  'quantity',
  'total_usd',
  'amount_claim',
  'received_claim',
  'received_usd',
  'refunds',
  'refunded_claim',
  'tracking_number',
  'carrier',
  'shipped_at',
  'delivered_at',
  'open_exceptions',
  'resolved_exceptions',
] as const;

export function ordersCsv(rows: SellerExportRow[]): string {
  const cell = (v: string | number): string => {
    let s = String(v);
    if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  const claim = (base: string | null) => (base === null ? '' : formatBaseUnits(BigInt(base)));
  const lines = rows.map((r) => {
    const o = r.summary;
    const open = o.exceptions.filter((e) => !o.resolved.includes(e));
    const values: Record<(typeof CSV_COLUMNS)[number], string | number> = {
      order_number: o.orderNumber,
      order_id: o.orderId,
      placed_at: o.createdAt,
      status: statusWords(o),
      vendor: o.vendorId,
      payment_method: PAYMENT_METHOD_LABEL[o.paymentMethod],
      buyer_name: o.buyerName,
      buyer_email: o.buyerEmail,
      address1: r.address.address1,
      address2: r.address.address2,
      city: r.address.city,
      state: r.address.state,
      postal_code: r.address.postalCode,
      country: r.address.country,
      products: o.product,
      variant: r.variant,
      quantity: r.quantity,
      total_usd: formatCents(o.totalCents),
      amount_claim: claim(o.amountBaseUnits),
      received_claim: claim(o.receivedBaseUnits),
      received_usd: r.receivedUsdCents === null ? '' : formatCents(r.receivedUsdCents),
      refunds: r.refunds,
      refunded_claim: claim(r.refundedBaseUnits),
      tracking_number: r.trackingNumber,
      carrier: r.carrier,
      shipped_at: r.shippedAt,
      delivered_at: r.deliveredAt,
      open_exceptions: open.map((e) => EXCEPTION_LABEL[e]).join('; '),
      resolved_exceptions: o.resolved.map((e) => EXCEPTION_LABEL[e]).join('; '),
    };
    return CSV_COLUMNS.map((c) => cell(values[c])).join(',');
  });
  return [CSV_COLUMNS.join(','), ...lines].join('\r\n') + '\r\n';
}
