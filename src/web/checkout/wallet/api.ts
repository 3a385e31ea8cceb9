/**
 * The wallet checkout's order calls: POST /api/quotes, POST /api/orders (Idempotency-Key), POST
 * /api/orders/:id/payment (the signature as a hint; the server re-reads the chain) and the wait for the
 * confirmation e-mails. Status comes from the server only.
 */
import type {
  OrderCreated,
  OrderPublic,
  OrderRequest,
  PayoutAccountStatus,
  QuoteRequest,
  QuoteResponse,
} from '../../../core/api';
import { call, isObject } from '../../lib/call';
import { getOrder, isCreated, isQuote } from '../shared/order-api';

/** POST /api/quotes: the server prices the items and issues a fresh reference and the Solana Pay URL. */
export function requestQuote(req: QuoteRequest, signal?: AbortSignal): Promise<QuoteResponse> {
  return call('POST', '/api/quotes', {
    check: isQuote,
    body: req,
    ...(signal ? { signal } : {}),
  });
}

/** GET /api/vendors/:id/payout-account: can the vendor be paid by payment link / QR now (token account exists)? */
export function payoutAccountOf(vendorId: string): Promise<PayoutAccountStatus> {
  return call('GET', `/api/vendors/${encodeURIComponent(vendorId)}/payout-account`, {
    check: (b): b is PayoutAccountStatus =>
      isObject(b) && (b.state === 'exists' || b.state === 'missing' || b.state === 'unknown'),
  });
}

/** POST /api/orders. Re-sending the same body with the same key replays the first answer (no second order). */
export function createOrder(
  req: OrderRequest,
  idempotencyKey: string,
  signal?: AbortSignal,
): Promise<OrderCreated> {
  return call('POST', '/api/orders', {
    check: isCreated,
    body: req,
    headers: { 'idempotency-key': idempotencyKey },
    ...(signal ? { signal } : {}),
  });
}

/** POST /api/orders/:id/payment: the transfer's signature as a hint (the server re-reads the chain). */
export async function sendPaymentHint(orderId: string, signature: string): Promise<void> {
  await call<unknown>('POST', `/api/orders/${encodeURIComponent(orderId)}/payment`, { body: { signature } });
}

const PAID = new Set(['paid', 'final', 'paid_late', 'shipped', 'delivered']);

/** Both confirmation e-mails delivered. */
export function mailsDelivered(o: OrderPublic): boolean {
  const mails = o.emails.filter((e) => e.kind === 'order_confirmation');
  return (
    mails.some((e) => e.recipient === 'seller' && e.state === 'sent') &&
    mails.some((e) => e.recipient === 'buyer' && e.state === 'sent')
  );
}

/** A delivery attempt failed (the outbox retries it; the page reports it). */
export function mailsFailing(o: OrderPublic): boolean {
  return o.emails.some(
    (e) =>
      e.kind === 'order_confirmation' &&
      (e.state === 'retrying' || e.state === 'failed' || e.state === 'withheld'),
  );
}

export type ConfirmationOutcome =
  { delivered: true; order: OrderPublic } | { delivered: false; order: OrderPublic | null };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Polls GET /api/orders/:id until the server has verified the payment and delivered both e-mails (delivered),
 * or a delivery attempt failed, or `timeoutMs` passed (not delivered).
 */
export async function waitForConfirmation(
  orderId: string,
  timeoutMs = 30_000,
  everyMs = 500,
): Promise<ConfirmationOutcome> {
  const deadline = Date.now() + timeoutMs;
  let last: OrderPublic | null = null;
  while (Date.now() < deadline) {
    try {
      last = await getOrder(orderId);
      if (PAID.has(last.status) && mailsDelivered(last)) return { delivered: true, order: last };
      if (mailsFailing(last)) return { delivered: false, order: last };
      // The server judged the payment short or too late: no confirmation pair is coming for it.
      if (last.status === 'underpaid' || last.status === 'expired') return { delivered: false, order: last };
    } catch {
      // A failed poll is retried until the deadline.
    }
    await sleep(everyMs);
  }
  return { delivered: false, order: last };
}
