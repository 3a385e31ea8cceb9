/**
 * The wallet checkout's order attempt, a plain state machine (no React, no wallet): Buy Now asks it for the
 * order to pay, and it decides whether that is the order already made for the same inputs, a replay of the same
 * request (same Idempotency-Key and quote), or a fresh attempt.
 *
 *   none ──ensure(inputs)──▶ quoting ──quote──▶ checking (the wallet against the quote) ──▶ ordering ──▶ made
 *   made ──ensure(same inputs), > 60 s left and the server says awaiting_payment──▶ made (same order, re-checked)
 *   made ──ensure(same inputs), otherwise──▶ fresh attempt (new key, new quote)
 *   any ──ensure(other inputs) or the kept quote has < 30 s left──▶ fresh attempt
 *   a refusal by the store (HTTP answer) ──▶ none (a replay would be refused again)
 *   a network failure ──▶ kept (the retry replays with the same key: never a second order)
 *   a wallet stop (shortfall, spec alert) ──▶ kept without its quote (re-quoted next time)
 *   paid() / reset() ──▶ none (a paid order is never paid again from this page)
 */
import type {
  OrderCreated,
  OrderPublic,
  OrderRequest,
  QuoteRequest,
  QuoteResponse,
  Shipping,
} from '../../../core/api';
import type { PayerProof } from '../../../core/hold-proof';
import { ApiRequestError } from '../../lib/call';
import { inputHash } from './open-order';
import { CheckoutStop, ShortfallStop } from './stops';

/** One order attempt: the same inputs reuse the key and quote (a retry replays) and, once made, the order. */
export interface Attempt {
  fingerprint: string;
  key: string;
  quote?: QuoteResponse;
  /** The wallet's signed proof for this quote (kept, so a retry replays the same request without asking again). */
  payer?: PayerProof;
  order?: OrderCreated;
}

/** What a quote or an order asks to be paid (both carry these). */
export type Payable = Pick<QuoteResponse, 'mint' | 'recipient' | 'amountBaseUnits'>;

export interface AttemptDeps {
  requestQuote: (req: QuoteRequest) => Promise<QuoteResponse>;
  createOrder: (req: OrderRequest, idempotencyKey: string) => Promise<OrderCreated>;
  getOrder: (orderId: string) => Promise<OrderPublic>;
  newKey: () => string;
  now: () => number;
}

export interface AttemptInputs {
  productId: string;
  variantId: string | undefined;
  quantity: number;
  shipping: Shipping;
  referrer?: string | undefined;
  /** The store's mint: an order naming another one is refused. */
  mint: string;
  /** The wallet's checks against what is to be paid; throws to stop (before the order exists, for a quote). */
  check: (what: Payable) => Promise<void>;
  /**
   * The paying wallet's proof of the money for the quote's reference (it signs src/core/hold-proof.ts's message):
   * without it the order is made but holds nothing (docs/decisions/holds.md). Absent: no wallet to sign (a link).
   */
  prove?: (reference: string) => Promise<PayerProof | undefined>;
  /** The connected wallet's address, sent with the quote (a drop reads its balance while the wallet signs). */
  wallet?: string;
}

/** An order kept for the same inputs is paid again only with more than this left before it expires. */
export const REUSE_ORDER_MIN_LEFT_MS = 60_000;
/** A kept quote is used only with more than this left. */
export const REUSE_QUOTE_MIN_LEFT_MS = 30_000;

export function fingerprintOf(
  i: Pick<AttemptInputs, 'productId' | 'variantId' | 'quantity' | 'shipping'>,
): string {
  return inputHash(JSON.stringify({ p: i.productId, v: i.variantId ?? null, q: i.quantity, s: i.shipping }));
}

export class OrderAttempt {
  #current: Attempt | null;

  constructor(
    private readonly deps: AttemptDeps,
    initial: Attempt | null = null,
  ) {
    this.#current = initial;
  }

  /** The attempt under way (what a reload needs to pay the same order), or null. */
  get current(): Attempt | null {
    return this.#current;
  }

  /** The order to pay for these inputs: the server records it before any money moves. */
  async ensure(i: AttemptInputs): Promise<OrderCreated> {
    const { deps } = this;
    const fingerprint = fingerprintOf(i);
    let a = this.#current;
    if (a?.order && a.fingerprint === fingerprint) {
      // Paying the same order again after a decline or a failure: only while it still awaits payment.
      if (Date.parse(a.order.expiresAt) - deps.now() > REUSE_ORDER_MIN_LEFT_MS) {
        const now = await deps.getOrder(a.order.orderId).catch(() => null);
        if (now?.status === 'awaiting_payment') {
          await i.check(a.order);
          return a.order;
        }
      }
      a = null;
    }
    if (
      !a ||
      a.fingerprint !== fingerprint ||
      (a.quote && Date.parse(a.quote.expiresAt) - deps.now() < REUSE_QUOTE_MIN_LEFT_MS)
    ) {
      a = { fingerprint, key: deps.newKey() };
    }
    this.#current = a;
    try {
      a.quote ??= await deps.requestQuote({
        items: [
          {
            productId: i.productId,
            ...(i.variantId ? { variantId: i.variantId } : {}),
            quantity: i.quantity,
          },
        ],
        ...(i.wallet ? { wallet: i.wallet } : {}),
      });
      // The wallet's balances against the quote's exact amount, before the order exists.
      await i.check(a.quote);
      // Then the wallet signs that the money is its own (the order holds only with it), once per quote.
      a.payer ??= await i.prove?.(a.quote.reference);
      a.order = await deps.createOrder(
        {
          quote: a.quote.quote,
          shipping: i.shipping,
          paymentMethod: 'wallet',
          ...(i.referrer ? { referrer: i.referrer } : {}),
          ...(a.payer ? { payer: a.payer } : {}),
        },
        a.key,
      );
    } catch (err) {
      // A refusal will not change on a replay: start the next attempt afresh. A network failure keeps the key.
      if (err instanceof ApiRequestError && err.status !== 0) this.#current = null;
      if (err instanceof ShortfallStop || err instanceof CheckoutStop) {
        a.quote = undefined; // re-quote next time
        a.payer = undefined;
      }
      throw err;
    }
    if (a.order.mint !== i.mint) throw new Error('the order names a different token mint than this store');
    return a.order;
  }

  /** The order is paid for (a transfer was sent): never send for it again. */
  paid(): void {
    this.#current = null;
  }

  /** A new purchase ("Buy another"). */
  reset(): void {
    this.#current = null;
  }
}
