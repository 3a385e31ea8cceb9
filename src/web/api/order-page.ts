/**
 * The buyer's order page, through src/web/lib/call.ts: GET /api/order-pages/:token, and the buyer's control
 * over their details (delete, cancel instead; "Download my data" is a plain link to /data).
 */
import type { OrderDataExport, OrderPageView } from '../../core/api';
import { call, isObject } from '../lib/call';

function isOrderPage(b: unknown): b is OrderPageView {
  return (
    isObject(b) &&
    typeof b.number === 'string' &&
    typeof b.status === 'string' &&
    Array.isArray(b.items) &&
    Array.isArray(b.payments) &&
    typeof b.totalCents === 'number' &&
    isObject(b.privacy)
  );
}

/** GET /api/order-pages/:token: the buyer's order page (404 order_not_found for any unknown token). */
export function getOrderPage(token: string, signal?: AbortSignal): Promise<OrderPageView> {
  return call('GET', `/api/order-pages/${encodeURIComponent(token)}`, {
    check: isOrderPage,
    ...(signal ? { signal } : {}),
  });
}

/** The URL of "Download my data" (a JSON attachment of everything the shop keeps about this order). */
export function myDataUrl(token: string): string {
  return `/api/order-pages/${encodeURIComponent(token)}/data`;
}

/** DELETE /api/order-pages/:token/details: "Delete my details" (409 order_will_ship before shipping). */
export function deleteMyDetails(token: string): Promise<OrderPageView> {
  return call('DELETE', `/api/order-pages/${encodeURIComponent(token)}/details`, { check: isOrderPage });
}

/** POST /api/order-pages/:token/cancel: "Cancel instead" before shipping. */
export function cancelOrderInstead(token: string): Promise<OrderPageView> {
  return call('POST', `/api/order-pages/${encodeURIComponent(token)}/cancel`, {
    body: {},
    check: isOrderPage,
  });
}

function isDataExport(b: unknown): b is OrderDataExport {
  return (
    isObject(b) &&
    isObject(b.order) &&
    isObject(b.details) &&
    Array.isArray(b.emails) &&
    Array.isArray(b.sellerActions) &&
    isObject(b.retention)
  );
}

/** GET /api/order-pages/:token/data, read by the "Download my data" page (the same JSON the file holds). */
export function getMyData(token: string, signal?: AbortSignal): Promise<OrderDataExport> {
  return call('GET', myDataUrl(token), { check: isDataExport, ...(signal ? { signal } : {}) });
}
