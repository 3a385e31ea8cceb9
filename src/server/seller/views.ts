/**
 * The seller console's views of orders: the list (filter, search, pages) and every match for the CSV export (one
 * order's detail is ./order-detail.ts). Reads only: the seller's actions are the order service's
 * (src/server/orders/fulfilment.ts).
 */
import { productLine } from '../../core/email-payload';
import { detailsMissing, exceptionsOf } from '../../core/order-exceptions';
import type {
  SellerException,
  SellerOrderList,
  SellerOrderSummary,
  SellerQueue,
} from '../../core/seller-api';
import { detailsDueBefore, exceptionFactsOf, resolvedOf, type LedgerFacts } from '../orders/exceptions';
import { closedByRefund } from '../orders/money';
import { itemsOf, orderNumberOf } from '../orders/rows';
import { openShipping } from '../privacy/order-data';
import type { SearchCache } from '../privacy/search';
import type { Sealer } from '../privacy/seal';
import type { OrderRow } from '../store/schema';
import type { Store } from '../store/store';
import { inRange, MAX_PAGE_SIZE, queueFlag, scoped, type OrderQuery } from './query';

export const NO_FACTS: LedgerFacts = { hasExtra: false, overpaid: false, cancelAsked: false };

export interface SellerViewDeps {
  store: Store;
  /** Opens the buyers' sealed details for their own vendor (src/server/privacy). */
  sealer: Sealer;
  /** Opened search text of the vendor's orders, in memory (src/server/privacy/search.ts). */
  search: SearchCache;
  now: () => Date;
  /** QR_DETAILS_GRACE_MS: how long a paid order waits for its shipping details before it is an exception. */
  detailsGraceMs: number;
}

/** The grace's cutoff now (src/server/orders/exceptions.ts detailsDueBefore): one instant per read. */
export const dueBeforeOf = (deps: Pick<SellerViewDeps, 'now' | 'detailsGraceMs'>): string =>
  detailsDueBefore(deps.now(), deps.detailsGraceMs);

/** What the console shows in place of a name when the details are gone or failed their check. */
export const DETAILS_ERASED = 'details erased';
export const DETAILS_UNREADABLE = 'details unreadable';

/** The order's details opened for its vendor, and what to show when they are not there. */
export function detailsOf(sealer: Sealer, o: OrderRow) {
  const opened = openShipping(sealer, o.id, o.shipping_json);
  const shipping = opened.state === 'given' ? opened.shipping : undefined;
  const placeholder =
    opened.state === 'erased' ? DETAILS_ERASED : opened.state === 'unreadable' ? DETAILS_UNREADABLE : '';
  // Erased or unreadable details were given: the order is not "paid without shipping details".
  return { shipping, placeholder, given: opened.state !== 'none' };
}

export function summaryOf(
  sealer: Sealer,
  o: OrderRow,
  facts: LedgerFacts,
  resolved: SellerException[],
  /** A refund closed the order (src/server/orders/money.ts closedByRefund). */
  closed: boolean,
): SellerOrderSummary {
  const { shipping, placeholder, given } = detailsOf(sealer, o);
  const exceptionFacts = { ...facts, status: o.status, hasShipping: given };
  return {
    orderId: o.id,
    orderNumber: orderNumberOf(o.id),
    createdAt: o.created_at,
    status: o.status,
    vendorId: o.vendor_id,
    paymentMethod: o.payment_method,
    buyerName: shipping?.fullName ?? placeholder,
    buyerEmail: shipping?.email ?? '',
    product: productLine(itemsOf(o)),
    totalCents: o.total_cents,
    amountBaseUnits: o.amount_base_units,
    receivedBaseUnits: o.received_base_units ?? '0',
    exceptions: exceptionsOf(exceptionFacts),
    resolved,
    closedByRefund: closed,
    awaitingDetails: detailsMissing(exceptionFacts) && (facts.detailsAwaited ?? false),
  };
}

/** Whether an order's items name the term (product name or variant; `needle` lower-cased). */
function itemsMatch(itemsJson: string, needle: string): boolean {
  // Most orders do not contain the term anywhere in their items' text: skip parsing those.
  if (!/["\\]/.test(needle) && !itemsJson.toLowerCase().includes(needle)) return false;
  return itemsOf({ items_json: itemsJson }).some(
    (i) => i.name.toLowerCase().includes(needle) || (i.variantLabel?.toLowerCase().includes(needle) ?? false),
  );
}

const QUEUE_FLAGS = ['to_ship', 'exceptions', 'shipped'] as const;

export async function listOrders(
  deps: SellerViewDeps,
  vendorIds: readonly string[],
  q: OrderQuery,
): Promise<SellerOrderList> {
  const db = deps.store.db;
  const dueBefore = dueBeforeOf(deps);
  const page = q.page ?? 1;
  const pageSize = q.pageSize ?? 25;
  // "#1A2B3C4D" is how the order number is written on pages and e-mails.
  const search = q.search?.trim().replace(/^#/, '');
  let rows: OrderRow[];
  let total: number;
  let counts: Record<SellerQueue, number>;
  if (search) {
    // The details are sealed: the vendor's own orders are matched in the server (src/server/privacy/search.ts),
    // by buyer name, e-mail, address or order number, and by product here, newest first. Every queue is counted
    // over the same matches.
    const candidates = await inRange(db, vendorIds, q)
      .select(['orders.id', 'orders.updated_at', 'orders.items_json'])
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    const needle = search.toLowerCase();
    const matching = await deps.search.matching(candidates, search, (ids) =>
      db.selectFrom('orders').select(['id', 'shipping_json']).where('id', 'in', ids).execute(),
    );
    const found = candidates.filter((c) => matching.has(c.id) || itemsMatch(c.items_json, needle));
    // The queues of the matches only (the same SQL predicates as without a search), 500 at a time.
    const flags = new Map<string, { status: string } & Record<(typeof QUEUE_FLAGS)[number], number>>();
    for (let i = 0; i < found.length; i += 500) {
      const chunk = found.slice(i, i + 500).map((f) => f.id);
      const rows = await db
        .selectFrom('orders')
        .where('id', 'in', chunk)
        .select((eb) => [
          'orders.id',
          'orders.status',
          queueFlag(eb, 'to_ship', dueBefore).as('to_ship'),
          queueFlag(eb, 'exceptions', dueBefore).as('exceptions'),
          queueFlag(eb, 'shipped', dueBefore).as('shipped'),
        ])
        .execute();
      for (const r of rows)
        flags.set(r.id, {
          status: r.status,
          to_ship: Number(r.to_ship),
          exceptions: Number(r.exceptions),
          shipped: Number(r.shipped),
        });
    }
    counts = { to_ship: 0, exceptions: 0, shipped: 0, all: found.length };
    for (const f of flags.values()) for (const k of QUEUE_FLAGS) counts[k] += f[k];
    const hits = found.filter((c) => {
      const f = flags.get(c.id);
      if (!f) return false;
      return (
        (q.queue === undefined || q.queue === 'all' || f[q.queue] === 1) &&
        (q.status === undefined || (q.status === 'exceptions' ? f.exceptions === 1 : f.status === q.status))
      );
    });
    total = hits.length;
    const pageIds = hits.slice((page - 1) * pageSize, page * pageSize).map((h) => h.id);
    const byId = new Map(
      (pageIds.length
        ? await db.selectFrom('orders').selectAll().where('id', 'in', pageIds).execute()
        : []
      ).map((r) => [r.id, r]),
    );
    rows = pageIds.flatMap((id) => byId.get(id) ?? []);
  } else {
    const [count, byQueue] = await Promise.all([
      scoped(db, vendorIds, q, dueBefore)
        .select((eb) => eb.fn.countAll<string | number>().as('n'))
        .executeTakeFirst(),
      inRange(db, vendorIds, q)
        .select((eb) => [
          eb.fn.countAll<string | number>().as('all'),
          eb.fn.sum<string | number | null>(queueFlag(eb, 'to_ship', dueBefore)).as('to_ship'),
          eb.fn.sum<string | number | null>(queueFlag(eb, 'exceptions', dueBefore)).as('exceptions'),
          eb.fn.sum<string | number | null>(queueFlag(eb, 'shipped', dueBefore)).as('shipped'),
        ])
        .executeTakeFirst(),
    ]);
    total = Number(count?.n ?? 0);
    counts = {
      to_ship: Number(byQueue?.to_ship ?? 0),
      exceptions: Number(byQueue?.exceptions ?? 0),
      shipped: Number(byQueue?.shipped ?? 0),
      all: Number(byQueue?.all ?? 0),
    };
    rows = await scoped(db, vendorIds, q, dueBefore)
      .selectAll('orders')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(pageSize)
      .offset((page - 1) * pageSize)
      .execute();
  }
  const ids = rows.map((r) => r.id);
  const [facts, resolved, closed] = await Promise.all([
    exceptionFactsOf(db, rows, dueBefore),
    resolvedOf(db, ids),
    closedByRefund(db, ids),
  ]);
  return {
    orders: rows.map((o) =>
      summaryOf(deps.sealer, o, facts.get(o.id) ?? NO_FACTS, resolved.get(o.id) ?? [], closed.has(o.id)),
    ),
    total,
    page,
    pageSize,
    counts,
  };
}

/** Every order matching the filter (no pagination), newest first, for the CSV export. */
export async function allOrders(
  deps: SellerViewDeps,
  vendorIds: readonly string[],
  q: OrderQuery,
): Promise<SellerOrderSummary[]> {
  const out: SellerOrderSummary[] = [];
  for (let page = 1; ; page++) {
    const batch = await listOrders(deps, vendorIds, { ...q, page, pageSize: MAX_PAGE_SIZE });
    out.push(...batch.orders);
    if (batch.orders.length < MAX_PAGE_SIZE) return out;
  }
}
