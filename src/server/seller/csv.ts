/** The seller's CSV export of order summaries. */
import { formatCents } from '../../core/money';
import type { SellerOrderSummary } from '../../core/seller-api';

/** RFC 4180 CSV of order summaries; cells starting with = + - @ are quoted with a leading ' (no formulas). */
export function ordersCsv(orders: SellerOrderSummary[]): string {
  const cell = (v: string | number): string => {
    let s = String(v);
    if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  const header = [
    'order',
    'created_at',
    'status',
    'vendor',
    'payment',
    'buyer_name',
    'buyer_email',
    'product',
    'total_usd',
    'amount_base_units',
    'received_base_units',
    'exceptions',
  ];
  const lines = orders.map((o) =>
    [
      o.orderId,
      o.createdAt,
      o.status,
      o.vendorId,
      o.paymentMethod,
      o.buyerName,
      o.buyerEmail,
      o.product,
      formatCents(o.totalCents),
      o.amountBaseUnits ?? '',
      o.receivedBaseUnits,
      o.exceptions.join(' '),
    ]
      .map(cell)
      .join(','),
  );
  return [header.join(','), ...lines].join('\r\n') + '\r\n';
}
