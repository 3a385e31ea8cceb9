/**
 * The seller's order list query (parsed at the edge: src/server/http/seller-schemas.ts) and the SQL it selects:
 * always scoped to the signed-in seller's vendors.
 *
 * Queues (docs/decisions/seller-console.md "Queues"), as SQL predicates so the list, its counts and the CSV agree:
 * - `to_ship`: fully paid (paid, final; paid late once the vendor recorded an action for it), with the buyer's
 *   details, not shipped, not refunded (a refund other than of an extra payment or an over-amount closes the
 *   order; nor begun, part of it returned: src/core/ship-readiness.ts), no open cancel request from the buyer
 *   (declined, it is to ship again).
 * - `exceptions`: at least one exception not yet resolved (missing shipping details only once the grace for them
 *   ended: `dueBefore`, src/server/orders/exceptions.ts detailsDueBefore).
 * - `shipped`: shipped or delivered.
 * - `all`: every order.
 */
import { sql, type ExpressionBuilder } from 'kysely';
import { CANCELLABLE, HAS_PAYMENT } from '../../core/order-status';
import type { SellerException, SellerQueue, SellerStatusFilter } from '../../core/seller-api';
import { REFUND_KEEPS_ORDER, refundKeepsOrderPatterns, RESOLVING_ACTIONS } from '../orders/exceptions';
import type { Db } from '../orders/types';
import type { Database } from '../store/schema';

export interface OrderQuery {
  queue?: SellerQueue;
  status?: SellerStatusFilter;
  /** Buyer name, buyer e-mail, address, order number or product name (case-insensitive substring). */
  search?: string;
  /** Orders created at or after this instant (ISO-8601 UTC). */
  from?: string;
  /** Orders created before this instant (ISO-8601 UTC). */
  to?: string;
  page?: number;
  pageSize?: number;
}

export const MAX_PAGE_SIZE = 100;

type Eb = ExpressionBuilder<Database, 'orders'>;

/** A seller action settling `exception` on this order ("Record action" or "Mark refunded"). */
function resolved(eb: Eb, exception: SellerException, actions: readonly string[] = RESOLVING_ACTIONS) {
  return eb.exists(
    eb
      .selectFrom('seller_actions')
      .select('seller_actions.id')
      .whereRef('seller_actions.order_id', '=', 'orders.id')
      .where('seller_actions.action', 'in', [...actions])
      // The exception is a bookkeeping field, in clear in the JSON (docs/decisions/privacy.md).
      .where('seller_actions.detail_json', 'like', `%"exception":"${exception}"%`),
  );
}

/** The order's dust threshold (orders.dust_base_units, written with each transfer; none before: 0). */
const DUST = sql`cast(coalesce(orders.dust_base_units, '0') as numeric)`;

/** An extra payment at or above the order's dust threshold (src/core/refunds.ts moneyFactsOf). */
function hasExtra(eb: Eb) {
  return eb.exists(
    eb
      .selectFrom('payments')
      .select('payments.signature')
      .whereRef('payments.order_id', '=', 'orders.id')
      .where('payments.role', '=', 'extra')
      .where(sql<boolean>`cast(payments.received_base_units as numeric) >= ${DUST}`),
  );
}

/**
 * The transfers counted toward the order (all but extras) add up to more than its amount: the completing transfer
 * overpaid (src/core/refunds.ts overpaidOf), by at least the order's dust threshold. Amounts are integer base units stored as text; NUMERIC keeps them
 * exact on both stores. The order's ledger sum (orders.received_base_units) above its amount is a necessary
 * condition, checked first.
 */
function overpaid(eb: Eb) {
  return eb.and([
    eb('status', 'not in', ['oversold', 'cancelled']),
    eb('amount_base_units', 'is not', null),
    // First the order row's ledger sum (extras included, written with each payment): most orders are not above
    // their amount, and skip the per-order sum below.
    sql<boolean>`cast(orders.received_base_units as numeric) > cast(orders.amount_base_units as numeric)`,
    // Above the amount by at least the dust threshold (an over-amount below it is dust: owed nothing).
    sql<boolean>`(select coalesce(sum(cast(p.received_base_units as numeric)), 0) from payments p where p.order_id = orders.id and p.role <> 'extra') - cast(orders.amount_base_units as numeric) >= (case when ${DUST} > 0 then ${DUST} else 1 end)`,
  ]);
}

/** The buyer asked to cancel (orders.cancel_requested_at) a paid order not shipped, or now cancelled. */
function cancelAsked(eb: Eb) {
  return eb.and([
    eb('status', 'in', [...CANCELLABLE, 'cancelled']),
    eb('cancel_requested_at', 'is not', null),
  ]);
}

/**
 * Paid without shipping details (src/core/order-exceptions.ts detailsMissing), and the grace for them is over:
 * its first transfer was recorded at or before `dueBefore`.
 */
function detailsOverdue(eb: Eb, dueBefore: string) {
  return eb.and([
    eb('shipping_json', 'is', null),
    eb(
      'status',
      'in',
      [...HAS_PAYMENT].filter((x) => x !== 'cancelled'),
    ),
    eb.exists(
      eb
        .selectFrom('payments')
        .select('payments.signature')
        .whereRef('payments.order_id', '=', 'orders.id')
        .where('payments.recorded_at', '<=', dueBefore),
    ),
  ]);
}

/**
 * The order has at least one exception (src/core/order-exceptions.ts) without a settling action. `dueBefore`: the
 * grace for shipping details ends for transfers recorded by then (src/server/orders/exceptions.ts).
 */
export function openException(eb: Eb, dueBefore: string) {
  const open = (kind: SellerException, when: ReturnType<Eb['and']> | ReturnType<Eb>) =>
    eb.and([when, eb.not(resolved(eb, kind))]);
  return eb.or([
    open('underpaid', eb('status', '=', 'underpaid')),
    open('paid_late', eb('status', '=', 'paid_late')),
    open('oversold', eb('status', '=', 'oversold')),
    open('no_shipping_details', detailsOverdue(eb, dueBefore)),
    // A cancelled order owes everything back under its cancel request, extras included.
    open('extra_payment', eb.and([hasExtra(eb), eb('status', '!=', 'cancelled')])),
    open('overpaid', overpaid(eb)),
    open('cancel_requested', cancelAsked(eb)),
    open(
      'unreadable_payment',
      eb.exists(
        eb
          .selectFrom('order_unreadable_payments')
          .select('order_unreadable_payments.signature')
          .whereRef('order_unreadable_payments.order_id', '=', 'orders.id'),
      ),
    ),
  ]);
}

/** Fully paid, details given, not shipped, not refunded: the vendor's work. */
export function toShip(eb: Eb) {
  return eb.and([
    eb.or([
      eb('status', 'in', ['paid', 'final']),
      // Paid after the quote expired: the vendor decides first (ship at the price paid, or refund); "Record
      // action" on it says it ships.
      eb.and([eb('status', '=', 'paid_late'), resolved(eb, 'paid_late', ['resolved'])]),
    ]),
    eb('shipping_json', 'is not', null),
    eb('details_erased_at', 'is', null),
    // The buyer asked to cancel: not to ship until the vendor declines the request (orders.cancel_declined_at).
    eb.not(eb.and([cancelAsked(eb), eb('cancel_declined_at', 'is', null)])),
    eb.not(
      eb.exists(
        eb
          .selectFrom('seller_actions')
          .select('seller_actions.id')
          .whereRef('seller_actions.order_id', '=', 'orders.id')
          .where('seller_actions.action', '=', 'refunded')
          .where((w) =>
            w.and(refundKeepsOrderPatterns().map((p) => w('seller_actions.detail_json', 'not like', p))),
          ),
      ),
    ),
    // Nor begun: part of the money went back against an exception whose refund returns the order
    // (src/core/ship-readiness.ts: it does not ship).
    eb.not(
      eb.exists(
        eb
          .selectFrom('refunds')
          .select('refunds.signature')
          .whereRef('refunds.order_id', '=', 'orders.id')
          .where('refunds.exception', 'not in', [...REFUND_KEEPS_ORDER]),
      ),
    ),
  ]);
}

export function shipped(eb: Eb) {
  return eb('status', 'in', ['shipped', 'delivered']);
}

export function inQueue(eb: Eb, queue: SellerQueue, dueBefore: string) {
  switch (queue) {
    case 'to_ship':
      return toShip(eb);
    case 'exceptions':
      return openException(eb, dueBefore);
    case 'shipped':
      return shipped(eb);
    case 'all':
      return sql<boolean>`1 = 1`;
  }
}

/**
 * The seller's orders in the query's date range (no queue, no status, no search, no order, no page). QR records
 * without details and without any payment (a page view) are not listed.
 */
export function inRange(db: Db, vendorIds: readonly string[], q: Pick<OrderQuery, 'from' | 'to'>) {
  let query = db
    .selectFrom('orders')
    .where('vendor_id', 'in', vendorIds.length ? [...vendorIds] : [''])
    // A QR record made to show a QR is not an order: the vendor sees it once the buyer commits (details) or pays.
    .where((eb) =>
      eb.not(
        eb.and([
          eb('payment_method', '=', 'qr'),
          eb('shipping_json', 'is', null),
          eb.not(
            eb.exists(
              eb
                .selectFrom('payments')
                .select('payments.signature')
                .whereRef('payments.order_id', '=', 'orders.id'),
            ),
          ),
        ]),
      ),
    );
  if (q.from !== undefined) query = query.where('created_at', '>=', q.from);
  if (q.to !== undefined) query = query.where('created_at', '<', q.to);
  return query;
}

/** The seller's orders matching the query's range, queue and status filter (the search is the caller's). */
export function scoped(db: Db, vendorIds: readonly string[], q: OrderQuery, dueBefore: string) {
  let query = inRange(db, vendorIds, q);
  if (q.queue !== undefined && q.queue !== 'all') {
    const queue = q.queue;
    query = query.where((eb) => inQueue(eb, queue, dueBefore));
  }
  if (q.status === 'exceptions') query = query.where((eb) => openException(eb, dueBefore));
  else if (q.status !== undefined) query = query.where('status', '=', q.status);
  // The search is not SQL: the buyer's details are sealed, so views.ts matches them in the server.
  return query;
}

/** 1 when the order is in the queue, else 0 (for counting every queue in one pass). */
export function queueFlag(eb: Eb, queue: Exclude<SellerQueue, 'all'>, dueBefore: string) {
  return eb
    .case()
    .when(inQueue(eb, queue, dueBefore))
    .then(1)
    .else(0)
    .end();
}
