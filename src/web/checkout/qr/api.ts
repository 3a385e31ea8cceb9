/**
 * The QR checkout's order calls: quotes that may be unpriced, the QR record (POST /api/orders without details),
 * its renewed quote, and the details with "Send Order Confirmation".
 */
import type {
  AnyOrderCreated,
  AnyQuoteResponse,
  OrderCreated,
  OrderPublic,
  OrderRequest,
  QuoteRequest,
  ShippingUS,
} from '../../../core/api';
import { call, isObject, replyOf } from '../../lib/call';
import { isCreated, isOrder, isQuote } from '../shared/order-api';

/** An unpriced QR quote (no price known): no amount and no payment link. */
function isUnpricedQuote(b: unknown): b is AnyQuoteResponse {
  return (
    isObject(b) &&
    typeof b.quote === 'string' &&
    b.solanaPayUrl === null &&
    b.amountBaseUnits === null &&
    b.amount === null &&
    typeof b.reference === 'string' &&
    typeof b.expiresAt === 'string' &&
    typeof b.totalCents === 'number'
  );
}

function isAnyCreated(b: unknown): b is AnyOrderCreated {
  return (
    isCreated(b) ||
    (isObject(b) &&
      typeof b.orderId === 'string' &&
      typeof b.reference === 'string' &&
      b.solanaPayUrl === null &&
      b.amount === null)
  );
}

/**
 * POST /api/quotes from a QR page: priced, or unpriced (`unpriced: true`, no price known) for a confirmation
 * with 'N/A'. `renew` (an earlier token) keeps that quote's payment reference.
 */
export function requestQrQuote(req: QuoteRequest, signal?: AbortSignal): Promise<AnyQuoteResponse> {
  return call('POST', '/api/quotes', {
    check: (b): b is AnyQuoteResponse => isQuote(b) || isUnpricedQuote(b),
    body: req,
    ...(signal ? { signal } : {}),
  });
}

/** POST /api/orders from a QR page: the order may be unpriced (amount and link null). Same idempotency. */
export function createQrOrder(
  req: OrderRequest,
  idempotencyKey: string,
  signal?: AbortSignal,
): Promise<AnyOrderCreated> {
  return call('POST', '/api/orders', {
    check: isAnyCreated,
    body: req,
    headers: { 'idempotency-key': idempotencyKey },
    ...(signal ? { signal } : {}),
  });
}

/** The answer of the POST /api/orders the entry sent before hydration (lib/early-record.ts), read as createQrOrder's. */
export function earlyQrOrder(answer: Promise<Response>): Promise<AnyOrderCreated> {
  return replyOf(answer, { check: isAnyCreated });
}

/**
 * POST /api/orders/:id/confirmation: QR pages' "Send Order Confirmation". `token`: the record's page token (from
 * its `orderUrl`, held by this browser), without which the server attaches nothing. `shipping` attaches the details
 * to a record that has none yet (a different second set is refused); the e-mails go once the payment lands.
 */
export function requestConfirmation(
  orderId: string,
  token: string,
  shipping?: ShippingUS,
  signal?: AbortSignal,
): Promise<OrderPublic> {
  return call('POST', `/api/orders/${encodeURIComponent(orderId)}/confirmation`, {
    check: isOrder,
    body: { token, ...(shipping ? { shipping } : {}) },
    ...(signal ? { signal } : {}),
  });
}

/** The page token of an order page link (`…/order/<token>`), or '' when there is none. */
export function pageTokenOf(orderUrl: string | null): string {
  if (!orderUrl) return '';
  return /\/order\/([0-9a-f]{32})$/.exec(orderUrl)?.[1] ?? '';
}

/**
 * PUT /api/orders/:id/quote: a QR record with nothing paid and no details yet takes a renewed quote (same
 * reference; the quantity changed or the quote is about to expire). 409 once anything was paid or sent. `token`:
 * the record's page token (from its `orderUrl`), without which the server changes nothing.
 */
export function requoteOrder(
  orderId: string,
  quote: string,
  token: string,
  signal?: AbortSignal,
): Promise<OrderCreated> {
  return call('PUT', `/api/orders/${encodeURIComponent(orderId)}/quote`, {
    check: isCreated,
    body: { quote, token },
    ...(signal ? { signal } : {}),
  });
}
