/**
 * The QR checkout's confirmation button, a plain state machine (no React, no storage, no alerts): one press of
 * "Send Order Confirmation" attaches the buyer's details to the record and asks for the confirmations, then
 * waits for their delivery. `QrPay.tsx` turns the outcome into the alert or the focus.
 *
 *   no record, no priced quote … ──▶ not_ready (nothing is sent)
 *   no record, an unpriced quote ──▶ the order is made with the details at once (one Idempotency-Key per
 *     quote and form: a retry after a lost reply replays it, never a second order)
 *   record ──details attached (POST …/confirmation with its page token)──▶
 *     unpaid (awaiting payment or expired, priced) ──▶ pay_next (nothing is e-mailed until the payment lands)
 *     paid ──both e-mails delivered within 30 s──▶ sent (the record is confirmed)
 *     paid ──one failed, or still pending after 30 s──▶ failed (the server keeps retrying)
 *   a refusal by the shop (HTTP 4xx: sold out, details already sent, …) ──▶ refused with its own sentence
 *   anything else (network, 5xx) ──▶ failed
 */
import type { AnyOrderCreated, OrderPublic, OrderRequest, ShippingUS } from '../../../core/api';
import { ApiRequestError } from '../../lib/call';
import { pageTokenOf } from './api';
import { attemptBaseline, confirmationOutcome } from './confirmation';
import type { StoredQrOrder } from './order-store';
import type { QuoteState } from './useQuote';

/** How long one press waits for both e-mails before it reports a failure (the server keeps retrying). */
export const CONFIRM_WAIT_MS = 30_000;
export const CONFIRM_POLL_MS = 1_000;

export interface ConfirmDeps {
  createOrder: (req: OrderRequest, idempotencyKey: string) => Promise<AnyOrderCreated>;
  requestConfirmation: (orderId: string, pageToken: string, shipping: ShippingUS) => Promise<OrderPublic>;
  getOrder: (orderId: string) => Promise<OrderPublic>;
  newKey: () => string;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  /** The record changed (made, details attached, confirmed): keep it and show it. */
  record: (order: StoredQrOrder) => void;
  /** The details reached the server (the order is placed): re-read the status and the stock. */
  detailsAttached: () => void;
}

export interface ConfirmInputs {
  order: StoredQrOrder | null;
  quote: QuoteState;
  quantity: number | null;
  productId: string;
  shipping: ShippingUS;
  referrer: string | undefined;
}

export type ConfirmOutcome =
  | { kind: 'not_ready' }
  | { kind: 'pay_next' }
  | { kind: 'sent' }
  | { kind: 'failed' }
  | { kind: 'refused'; message: string };

export class QrConfirmation {
  /** The last unpriced order attempt: the same body keeps its key (a retry replays the order). */
  #attempt: { body: string; key: string } | null = null;

  constructor(private readonly deps: ConfirmDeps) {}

  /** A new order (the record was forgotten): the next unpriced order is a fresh attempt. */
  forget(): void {
    this.#attempt = null;
  }

  async send(i: ConfirmInputs): Promise<ConfirmOutcome> {
    const { deps } = this;
    try {
      let current = i.order;
      if (!current) {
        // Only an unpriced quote (no price: no QR, nothing to pay) is ordered here, with the details at once.
        if (i.quote.status !== 'ready' || i.quote.quote.amount !== null || i.quantity === null) {
          return { kind: 'not_ready' };
        }
        const req: OrderRequest = {
          quote: i.quote.quote.quote,
          shipping: i.shipping,
          paymentMethod: 'qr',
          ...(i.referrer ? { referrer: i.referrer } : {}),
        };
        const body = JSON.stringify(req);
        if (this.#attempt?.body !== body) this.#attempt = { body, key: deps.newKey() };
        const created = await deps.createOrder(req, this.#attempt.key);
        current = {
          orderId: created.orderId,
          productId: i.productId,
          orderUrl: created.orderUrl,
          solanaPayUrl: created.solanaPayUrl,
          amount: created.amount,
          quantity: i.quantity,
          quote: i.quote.quote.quote,
          expiresAt: created.expiresAt,
          detailsSent: true,
          confirmed: false,
        };
        deps.record(current);
      }
      // The details attach to the record, with its page token (the id alone attaches nothing).
      let snapshot = await deps.requestConfirmation(
        current.orderId,
        pageTokenOf(current.orderUrl),
        i.shipping,
      );
      if (!current.detailsSent) {
        current = { ...current, detailsSent: true };
        deps.record(current);
      }
      deps.detailsAttached();
      if (
        snapshot.amount !== null &&
        (snapshot.status === 'awaiting_payment' || snapshot.status === 'expired')
      ) {
        // Not paid yet: nothing is e-mailed until the payment lands. The next step is the QR.
        return { kind: 'pay_next' };
      }
      const baseline = attemptBaseline(snapshot);
      const deadline = deps.now() + CONFIRM_WAIT_MS;
      let outcome = confirmationOutcome(snapshot, baseline);
      while (outcome === 'pending' && deps.now() < deadline) {
        await deps.sleep(CONFIRM_POLL_MS);
        snapshot = await deps.getOrder(current.orderId);
        outcome = confirmationOutcome(snapshot, baseline);
      }
      if (outcome !== 'sent') return { kind: 'failed' };
      deps.record({ ...current, confirmed: true });
      return { kind: 'sent' };
    } catch (err) {
      // A refusal by the shop (sold out, details already sent, too many pieces held, …) is its own sentence.
      if (err instanceof ApiRequestError && err.status >= 400 && err.status < 500) {
        return { kind: 'refused', message: err.message };
      }
      return { kind: 'failed' };
    }
  }
}
