/**
 * Wallet-checkout calls not in src/web/api/orders.ts: POST /api/orders/:id/payment (the signature as a hint;
 * the server re-reads the chain) and the wait for the confirmation e-mails. Status comes from the server only.
 */
import type { OrderPublic } from '../../../core/api';
import { ApiRequestError, getOrder } from '../../api/orders';

export async function sendPaymentHint(orderId: string, signature: string): Promise<void> {
  let res: Response;
  try {
    res = await fetch(`/api/orders/${encodeURIComponent(orderId)}/payment`, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body: JSON.stringify({ signature }),
      cache: 'no-store',
    });
  } catch {
    throw new ApiRequestError(0, 'network', 'The store could not be reached.');
  }
  if (!res.ok) throw new ApiRequestError(res.status, 'http_error', `HTTP ${res.status}`);
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
    (e) => e.kind === 'order_confirmation' && (e.state === 'retrying' || e.state === 'failed'),
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
