/**
 * The console's sales summary (GET /api/seller/summary): today, the last 7 days and the last 30 days, each from
 * midnight in the vendor's time zone to now, and what stands open now. Reads only, over the signed-in seller's
 * orders:
 * - orders: placed in the period, whatever became of them: the All tab's count for the period's dates (the same
 *   SQL, `inRange`), so the summary and the tab it names agree;
 * - received: every transfer recorded in the period (extras and overpayments included), in $CLAIM base units,
 *   and their USD value, each at its own time (`payments.usd_cents`, written when recorded; transfers without one
 *   are counted apart);
 * - refunds: recorded in the period, count and base units; net: received less refunded;
 * - now, not per period: the orders with an open exception (the Exceptions tab without a search or dates: the same
 *   SQL, the same grace for shipping details) and what is still owed back on them (src/core/refunds.ts), the part
 *   of what was received that is not the vendor's to keep.
 */
import { exceptionsOf } from '../../core/order-exceptions';
import { owedOf } from '../../core/refunds';
import type { SellerException, SellerSummary, SellerSummaryPeriod } from '../../core/seller-api';
import { addDays, dateIn, startOfDay } from '../../core/zone-dates';
import { exceptionFactsOf, resolvedOf } from '../orders/exceptions';
import { owedInputOf } from '../orders/money';
import { inRange, openException } from './query';
import { dueBeforeOf, type SellerViewDeps } from './views';

/** Open exceptions a refund settles: while one is open, what the rule owes on its order is still to go back. */
const OWED_BACK_ON: readonly SellerException[] = [
  'extra_payment',
  'overpaid',
  'oversold',
  'cancel_requested',
];

export async function salesSummary(
  deps: Pick<SellerViewDeps, 'store' | 'now' | 'detailsGraceMs'>,
  vendorIds: readonly string[],
  timeZone: string,
): Promise<SellerSummary> {
  const db = deps.store.db;
  const now = deps.now();
  const dueBefore = dueBeforeOf({ ...deps, now: () => now });
  const today = dateIn(timeZone, now.getTime());
  const periods = [
    { period: 'today' as const, day: today },
    { period: '7d' as const, day: addDays(today, -6) },
    { period: '30d' as const, day: addDays(today, -29) },
  ].map((p) => ({ ...p, from: startOfDay(p.day, timeZone) }));
  const earliest = periods[2]!.from;
  const vendors = vendorIds.length ? [...vendorIds] : [''];
  const [orders, payments, refunds, open] = await Promise.all([
    // The All tab's orders (the list's own range query, no queue): every order placed, whatever became of it.
    inRange(db, vendorIds, { from: earliest }).select('created_at').execute(),
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
    // Every order, whenever placed: an exception is open until the vendor settles it.
    inRange(db, vendorIds, {})
      .where((eb) => openException(eb, dueBefore))
      .select([
        'id',
        'status',
        'amount_base_units',
        'dust_base_units',
        'cancel_requested_at',
        'shipping_json',
      ])
      .execute(),
  ]);
  const [facts, resolved] = await Promise.all([
    exceptionFactsOf(db, open, dueBefore),
    resolvedOf(
      db,
      open.map((o) => o.id),
    ),
  ]);
  let owedBack = 0n;
  let owedBackOrders = 0;
  for (const o of open) {
    const settled = resolved.get(o.id) ?? [];
    const exceptions = exceptionsOf({
      hasExtra: false,
      ...facts.get(o.id),
      status: o.status,
      hasShipping: o.shipping_json !== null,
    }).filter((x) => !settled.includes(x));
    if (!exceptions.some((x) => OWED_BACK_ON.includes(x))) continue;
    const remaining = owedOf(await owedInputOf(db, o)).remainingBaseUnits;
    if (remaining > 0n) {
      owedBack += remaining;
      owedBackOrders++;
    }
  }
  return {
    timeZone,
    asOf: now.toISOString(),
    periods: periods.map(({ period, from, day }): SellerSummaryPeriod => {
      const inPeriod = payments.filter((p) => p.recorded_at >= from);
      const priced = inPeriod.filter((p) => p.usd_cents !== null);
      const refunded = refunds.filter((r) => r.at >= from);
      const received = inPeriod.reduce((s, p) => s + BigInt(p.received_base_units), 0n);
      const refundedBase = refunded.reduce((s, r) => s + BigInt(r.amount_base_units), 0n);
      return {
        period,
        from,
        fromDate: day,
        orders: orders.filter((o) => o.created_at >= from).length,
        receivedBaseUnits: received.toString(),
        netBaseUnits: (received - refundedBase).toString(),
        receivedUsdCents: priced.reduce((s, p) => s + Number(p.usd_cents), 0),
        paymentsWithoutUsd: inPeriod.length - priced.length,
        refunds: refunded.length,
        refundedBaseUnits: refundedBase.toString(),
      };
    }),
    openExceptions: open.length,
    owedBackBaseUnits: owedBack.toString(),
    owedBackOrders,
  };
}
