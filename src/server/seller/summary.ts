/**
 * The console's sales summary (GET /api/seller/summary): today, the last 7 days and the last 30 days, each from
 * midnight in the vendor's time zone to now. Reads only, over the signed-in seller's orders:
 * - orders: placed in the period and paid in full (paid, final, paid late, shipped, delivered);
 * - received: every transfer recorded in the period (extras included), in $CLAIM base units, and their USD value,
 *   each at its own time (`payments.usd_cents`, written when recorded; transfers without one are counted apart);
 * - refunds: recorded in the period, count and base units;
 * - open exceptions: orders placed in the period with an exception still open.
 */
import type { SellerSummary, SellerSummaryPeriod } from '../../core/seller-api';
import { addDays, dateIn, startOfDay } from '../../core/zone-dates';
import type { Db } from '../orders/types';
import { inRange, openException } from './query';

const PAID_IN_FULL = ['paid', 'final', 'paid_late', 'shipped', 'delivered'] as const;

export async function salesSummary(
  db: Db,
  vendorIds: readonly string[],
  timeZone: string,
  now: Date,
): Promise<SellerSummary> {
  const today = dateIn(timeZone, now.getTime());
  const periods = [
    { period: 'today' as const, from: startOfDay(today, timeZone) },
    { period: '7d' as const, from: startOfDay(addDays(today, -6), timeZone) },
    { period: '30d' as const, from: startOfDay(addDays(today, -29), timeZone) },
  ];
  const earliest = periods[2]!.from;
  const vendors = vendorIds.length ? [...vendorIds] : [''];
  const [orders, payments, refunds, exceptions] = await Promise.all([
    inRange(db, vendorIds, { from: earliest })
      .where('status', 'in', [...PAID_IN_FULL])
      .select('created_at')
      .execute(),
    db
      .selectFrom('payments')
      .innerJoin('orders', 'orders.id', 'payments.order_id')
      .select(['payments.received_base_units', 'payments.usd_cents', 'payments.recorded_at'])
      .where('orders.vendor_id', 'in', vendors)
      .where('payments.recorded_at', '>=', earliest)
      .execute(),
    db
      .selectFrom('refunds')
      .innerJoin('orders', 'orders.id', 'refunds.order_id')
      .select(['refunds.amount_base_units', 'refunds.at'])
      .where('orders.vendor_id', 'in', vendors)
      .where('refunds.at', '>=', earliest)
      .execute(),
    inRange(db, vendorIds, { from: earliest })
      .where((eb) => openException(eb))
      .select('created_at')
      .execute(),
  ]);
  return {
    timeZone,
    asOf: now.toISOString(),
    periods: periods.map(({ period, from }): SellerSummaryPeriod => {
      const inPeriod = payments.filter((p) => p.recorded_at >= from);
      const priced = inPeriod.filter((p) => p.usd_cents !== null);
      const refunded = refunds.filter((r) => r.at >= from);
      return {
        period,
        from,
        orders: orders.filter((o) => o.created_at >= from).length,
        receivedBaseUnits: inPeriod.reduce((s, p) => s + BigInt(p.received_base_units), 0n).toString(),
        receivedUsdCents: priced.reduce((s, p) => s + Number(p.usd_cents), 0),
        paymentsWithoutUsd: inPeriod.length - priced.length,
        refunds: refunded.length,
        refundedBaseUnits: refunded.reduce((s, r) => s + BigInt(r.amount_base_units), 0n).toString(),
        openExceptions: exceptions.filter((o) => o.created_at >= from).length,
      };
    }),
  };
}
