/**
 * The seller's order list query (parsed at the edge: src/server/http/seller-schemas.ts) and the SQL it selects:
 * always scoped to the signed-in seller's vendors.
 */
import { HAS_PAYMENT } from '../../core/order-status';
import type { SellerStatusFilter } from '../../core/seller-api';
import type { Db } from '../orders/types';

export interface OrderQuery {
  status?: SellerStatusFilter;
  /** Buyer name, buyer e-mail or order number (case-insensitive substring). */
  search?: string;
  page?: number;
  pageSize?: number;
}

export const MAX_PAGE_SIZE = 100;

/**
 * The seller's orders matching the query's status filter (no order, no page, no search: the caller's). QR
 * records without details and without any payment (a page view) are not listed.
 */
export function scoped(db: Db, vendorIds: readonly string[], q: OrderQuery) {
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
  if (q.status === 'exceptions') {
    query = query.where((eb) =>
      eb.or([
        eb('status', 'in', ['underpaid', 'paid_late', 'oversold']),
        eb.and([eb('shipping_json', 'is', null), eb('status', 'in', [...HAS_PAYMENT])]),
        eb.exists(
          eb
            .selectFrom('payments')
            .select('payments.signature')
            .whereRef('payments.order_id', '=', 'orders.id')
            .where('payments.role', '=', 'extra'),
        ),
      ]),
    );
  } else if (q.status !== undefined) {
    query = query.where('status', '=', q.status);
  }
  // The search is not SQL: the buyer's details are sealed, so views.ts matches them in the server.
  return query;
}
