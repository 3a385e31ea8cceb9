/**
 * The order calls both checkouts share: GET /api/orders/:id, the reply checks of quotes and created orders, and
 * the Idempotency-Key. Every call goes through src/web/lib/call.ts (typed result or ApiRequestError).
 */
import type { OrderCreated, OrderPublic, QuoteResponse } from '../../../core/api';
import { call, isObject } from '../../lib/call';

const BASE_UNITS = /^\d+$/;

export function isQuote(b: unknown): b is QuoteResponse {
  return (
    isObject(b) &&
    typeof b.quote === 'string' &&
    typeof b.solanaPayUrl === 'string' &&
    b.solanaPayUrl.startsWith('solana:') &&
    typeof b.amountBaseUnits === 'string' &&
    BASE_UNITS.test(b.amountBaseUnits) &&
    typeof b.amount === 'string' &&
    typeof b.reference === 'string' &&
    typeof b.expiresAt === 'string' &&
    typeof b.totalCents === 'number'
  );
}

export function isCreated(b: unknown): b is OrderCreated {
  return (
    isObject(b) &&
    typeof b.orderUrl === 'string' &&
    typeof b.orderId === 'string' &&
    typeof b.solanaPayUrl === 'string' &&
    typeof b.reference === 'string' &&
    typeof b.amount === 'string'
  );
}

export function isOrder(b: unknown): b is OrderPublic {
  return (
    isObject(b) &&
    typeof b.orderId === 'string' &&
    typeof b.status === 'string' &&
    Array.isArray(b.emails) &&
    typeof b.reference === 'string'
  );
}

/**
 * GET /api/orders/:id: the order's public status (never shipping details). `pageToken` (the order page's token,
 * from the creation's `orderUrl`): the status poll of the checkout that made the order sends it, so the server
 * knows someone waits on the payment (its watcher checks that order first under a backlog); the id alone does not.
 */
export function getOrder(orderId: string, signal?: AbortSignal, pageToken?: string): Promise<OrderPublic> {
  return call('GET', `/api/orders/${encodeURIComponent(orderId)}`, {
    check: isOrder,
    ...(signal ? { signal } : {}),
    ...(pageToken ? { headers: { 'x-order-token': pageToken } } : {}),
  });
}

/** A fresh Idempotency-Key (one per order attempt). */
export function newIdempotencyKey(): string {
  // randomUUID needs a secure context; getRandomValues does not.
  if (typeof crypto.randomUUID === 'function' && window.isSecureContext) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}
