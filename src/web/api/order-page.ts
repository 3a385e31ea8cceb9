/** GET /api/order-pages/:token: the buyer's order page, through src/web/lib/call.ts. */
import type { OrderPageView } from '../../core/api';
import { call, isObject } from '../lib/call';

function isOrderPage(b: unknown): b is OrderPageView {
  return (
    isObject(b) &&
    typeof b.number === 'string' &&
    typeof b.status === 'string' &&
    Array.isArray(b.items) &&
    Array.isArray(b.payments) &&
    typeof b.totalCents === 'number'
  );
}

/** GET /api/order-pages/:token: the buyer's order page (404 order_not_found for any unknown token). */
export function getOrderPage(token: string, signal?: AbortSignal): Promise<OrderPageView> {
  return call('GET', `/api/order-pages/${encodeURIComponent(token)}`, {
    check: isOrderPage,
    ...(signal ? { signal } : {}),
  });
}
