/**
 * The seller's order list query (parsed at the edge: src/server/http/seller-schemas.ts) and the SQL it selects:
 * always scoped to the signed-in seller's vendors.
 */
import { sql } from 'kysely';
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

/** A LIKE pattern matching `text` literally anywhere (\ escapes % and _). */
function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The seller's orders matching the query (no order, no page: the caller adds them). QR records without details
 * and without any payment (a page view) are not listed.
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
  const search = q.search?.trim();
  if (search) {
    const pattern = containsPattern(search);
    // shipping_json holds the buyer's name and e-mail (JSON text); the order number is the id.
    query = query.where((eb) =>
      eb.or([
        eb(sql`lower(orders.shipping_json)`, 'like', sql`${pattern} escape '\\'`),
        eb(sql`lower(orders.id)`, 'like', sql`${pattern} escape '\\'`),
      ]),
    );
  }
  return query;
}
