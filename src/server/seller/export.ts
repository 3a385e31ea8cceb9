/**
 * The CSV export's rows (GET /api/seller/orders.csv): every order the list's query matches, with what a vendor
 * books and ships from — items, the buyer's address fields, tracking, shipped and delivered times, refunds, and
 * the amounts in $CLAIM and USD. Reads only; the buyer's details are opened for their own vendor.
 */
import type { ShippingInput } from '../../core/order';
import type { SellerOrderSummary } from '../../core/seller-api';
import { itemsOf } from '../orders/rows';
import { openActionDetail, openShipping } from '../privacy/order-data';
import type { OrderQuery } from './query';
import { allOrders, type SellerViewDeps } from './views';

export interface SellerExportRow {
  summary: SellerOrderSummary;
  /** Units ordered, every line together. */
  quantity: number;
  /** The variants ordered ("" when none), joined with "; ". */
  variant: string;
  address: {
    address1: string;
    address2: string;
    city: string;
    state: string;
    postalCode: string;
    country: string;
  };
  /** USD value of what was received, each transfer at its own time; null when one of them has none. */
  receivedUsdCents: number | null;
  refundedBaseUnits: string;
  refunds: number;
  trackingNumber: string;
  carrier: string;
  shippedAt: string;
  deliveredAt: string;
}

const NO_ADDRESS = { address1: '', address2: '', city: '', state: '', postalCode: '', country: '' };

function addressOf(s: ShippingInput | undefined): SellerExportRow['address'] {
  if (!s) return NO_ADDRESS;
  return s.kind === 'international'
    ? {
        address1: s.address1,
        address2: s.address2 ?? '',
        city: s.city,
        state: s.stateProvince,
        postalCode: s.postalCode,
        country: s.country,
      }
    : {
        address1: s.address1,
        address2: s.address2 ?? '',
        city: s.city,
        state: s.usState,
        postalCode: s.zip,
        country: 'US',
      };
}

export async function exportRows(
  deps: SellerViewDeps,
  vendorIds: readonly string[],
  q: OrderQuery,
): Promise<SellerExportRow[]> {
  const db = deps.store.db;
  const summaries = await allOrders(deps, vendorIds, q);
  const out: SellerExportRow[] = [];
  for (let i = 0; i < summaries.length; i += 500) {
    const chunk = summaries.slice(i, i + 500);
    const ids = chunk.map((o) => o.orderId);
    const [orders, payments, refunds, history, actions] = await Promise.all([
      db.selectFrom('orders').select(['id', 'items_json', 'shipping_json']).where('id', 'in', ids).execute(),
      db.selectFrom('payments').select(['order_id', 'usd_cents']).where('order_id', 'in', ids).execute(),
      db
        .selectFrom('refunds')
        .select(['order_id', 'amount_base_units'])
        .where('order_id', 'in', ids)
        .execute(),
      db
        .selectFrom('order_history')
        .select(['order_id', 'status', 'at'])
        .where('order_id', 'in', ids)
        .where('status', 'in', ['shipped', 'delivered'])
        .orderBy('seq')
        .execute(),
      db
        .selectFrom('seller_actions')
        .select(['order_id', 'action', 'detail_json', 'at'])
        .where('order_id', 'in', ids)
        .where('action', 'in', ['shipped', 'tracking'])
        .orderBy('at')
        .orderBy('id')
        .execute(),
    ]);
    const byId = new Map(orders.map((o) => [o.id, o]));
    for (const s of chunk) {
      const o = byId.get(s.orderId);
      const items = o ? itemsOf(o) : [];
      const opened = o ? openShipping(deps.sealer, o.id, o.shipping_json) : undefined;
      const paid = payments.filter((p) => p.order_id === s.orderId);
      const refunded = refunds.filter((r) => r.order_id === s.orderId);
      const hist = history.filter((h) => h.order_id === s.orderId);
      // The latest shipped or "tracking changed" action holds the tracking number in force.
      const last = actions.filter((a) => a.order_id === s.orderId).at(-1);
      const tracking = last ? openActionDetail(deps.sealer, s.orderId, last.detail_json) : {};
      out.push({
        summary: s,
        quantity: items.reduce((n, it) => n + it.quantity, 0),
        variant: items
          .map((it) => it.variantLabel ?? '')
          .filter((v) => v !== '')
          .join('; '),
        address: addressOf(opened?.state === 'given' ? opened.shipping : undefined),
        receivedUsdCents:
          paid.length > 0 && paid.every((p) => p.usd_cents !== null)
            ? paid.reduce((n, p) => n + Number(p.usd_cents), 0)
            : paid.length === 0
              ? 0
              : null,
        refundedBaseUnits: refunded.reduce((n, r) => n + BigInt(r.amount_base_units), 0n).toString(),
        refunds: refunded.length,
        trackingNumber: tracking.trackingNumber ?? '',
        carrier: tracking.carrier ?? '',
        shippedAt: hist.find((h) => h.status === 'shipped')?.at ?? '',
        deliveredAt: hist.find((h) => h.status === 'delivered')?.at ?? '',
      });
    }
  }
  return out;
}
