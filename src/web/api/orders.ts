/**
 * The order API from the browser: POST /api/quotes, POST /api/orders (Idempotency-Key), GET /api/orders/:id,
 * POST /api/orders/:id/confirmation. One file: the reply checks and the fetchers (shared by the QR and wallet
 * checkouts). Every call resolves to a typed result or throws an ApiRequestError (HTTP refusal, network failure
 * or a malformed reply); aborted requests reject with the AbortError as fetch does.
 */
import type {
  AnyOrderCreated,
  AnyQuoteResponse,
  ApiError,
  OrderCreated,
  OrderPageView,
  OrderPublic,
  OrderRequest,
  QuoteRequest,
  QuoteResponse,
  ShippingUS,
} from '../../core/api';

export class ApiRequestError extends Error {
  override name = 'ApiRequestError';
  constructor(
    /** HTTP status, or 0 when the request never got an answer. */
    readonly status: number,
    /** The ApiError code ('price_unavailable', 'quote_expired', …), 'network' or 'bad_reply'. */
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const isAbort = (err: unknown): boolean => err instanceof DOMException && err.name === 'AbortError';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const BASE_UNITS = /^\d+$/;

async function call<T>(
  method: 'GET' | 'POST' | 'PUT',
  path: string,
  check: (body: unknown) => body is T,
  opts: { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers: {
        accept: 'application/json',
        ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...opts.headers,
      },
      ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
      cache: 'no-store',
    });
  } catch (err) {
    if (isAbort(err)) throw err;
    throw new ApiRequestError(0, 'network', 'The store could not be reached.');
  }
  let body: unknown;
  try {
    body = await res.json();
  } catch (err) {
    if (isAbort(err)) throw err;
    body = undefined;
  }
  if (!res.ok) {
    const e = isObject(body) ? (body as Partial<ApiError>) : {};
    throw new ApiRequestError(
      res.status,
      typeof e.error === 'string' ? e.error : 'http_error',
      typeof e.message === 'string' ? e.message : `HTTP ${res.status}`,
    );
  }
  if (!check(body)) throw new ApiRequestError(res.status, 'bad_reply', 'The store sent an unexpected reply.');
  return body;
}

function isQuote(b: unknown): b is QuoteResponse {
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

function isCreated(b: unknown): b is OrderCreated {
  return (
    isObject(b) &&
    typeof b.orderUrl === 'string' &&
    typeof b.orderId === 'string' &&
    typeof b.solanaPayUrl === 'string' &&
    typeof b.reference === 'string' &&
    typeof b.amount === 'string'
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

function isOrder(b: unknown): b is OrderPublic {
  return (
    isObject(b) &&
    typeof b.orderId === 'string' &&
    typeof b.status === 'string' &&
    Array.isArray(b.emails) &&
    typeof b.reference === 'string'
  );
}

/** POST /api/quotes: the server prices the items and issues a fresh reference and the Solana Pay URL. */
export function requestQuote(req: QuoteRequest, signal?: AbortSignal): Promise<QuoteResponse> {
  return call('POST', '/api/quotes', isQuote, { body: req, ...(signal ? { signal } : {}) });
}

/**
 * POST /api/quotes from a QR page: priced, or unpriced (`unpriced: true`, no price known) for a confirmation
 * with 'N/A'. `renew` (an earlier token) keeps that quote's payment reference.
 */
export function requestQrQuote(req: QuoteRequest, signal?: AbortSignal): Promise<AnyQuoteResponse> {
  return call('POST', '/api/quotes', (b): b is AnyQuoteResponse => isQuote(b) || isUnpricedQuote(b), {
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
  return call('POST', '/api/orders', isAnyCreated, {
    body: req,
    headers: { 'idempotency-key': idempotencyKey },
    ...(signal ? { signal } : {}),
  });
}

/** POST /api/orders. Re-sending the same body with the same key replays the first answer (no second order). */
export function createOrder(
  req: OrderRequest,
  idempotencyKey: string,
  signal?: AbortSignal,
): Promise<OrderCreated> {
  return call('POST', '/api/orders', isCreated, {
    body: req,
    headers: { 'idempotency-key': idempotencyKey },
    ...(signal ? { signal } : {}),
  });
}

/** GET /api/orders/:id: the order's public status (never shipping details). */
export function getOrder(orderId: string, signal?: AbortSignal): Promise<OrderPublic> {
  return call('GET', `/api/orders/${encodeURIComponent(orderId)}`, isOrder, signal ? { signal } : {});
}

/**
 * POST /api/orders/:id/confirmation: QR pages' "Send Order Confirmation" (seller then buyer, once). `shipping`
 * attaches the details to a QR record that has none yet (the record was made when the QR was first shown).
 */
export function requestConfirmation(
  orderId: string,
  shipping?: ShippingUS,
  signal?: AbortSignal,
): Promise<OrderPublic> {
  return call('POST', `/api/orders/${encodeURIComponent(orderId)}/confirmation`, isOrder, {
    body: shipping ? { shipping } : {},
    ...(signal ? { signal } : {}),
  });
}

/**
 * PUT /api/orders/:id/quote: a QR record with nothing paid and no details yet takes a renewed quote (same
 * reference; the quantity changed or the quote is about to expire). 409 once anything was paid or sent.
 */
export function requoteOrder(orderId: string, quote: string, signal?: AbortSignal): Promise<OrderCreated> {
  return call('PUT', `/api/orders/${encodeURIComponent(orderId)}/quote`, isCreated, {
    body: { quote },
    ...(signal ? { signal } : {}),
  });
}

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
  return call('GET', `/api/order-pages/${encodeURIComponent(token)}`, isOrderPage, signal ? { signal } : {});
}

/** A fresh Idempotency-Key (one per order attempt). */
export function newIdempotencyKey(): string {
  // randomUUID needs a secure context; getRandomValues does not.
  if (typeof crypto.randomUUID === 'function' && window.isSecureContext) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}
