import { useEffect, useRef, useState } from 'react';
import type { AnyQuoteResponse, QuoteRequest } from '../../../core/api';
import { ApiRequestError, isAbort } from '../../lib/call';
import { requestQrQuote } from './api';
import { isQuote } from '../shared/order-api';
import { bootBlock, bootYoung } from '../../api/boot-block';

export type QuoteState =
  | { status: 'idle' }
  | { status: 'loading' }
  /** `quote.amount === null`: an unpriced quote (no price known): no QR, but the order can be confirmed ('N/A'). */
  | { status: 'ready'; quote: AnyQuoteResponse; /** the request it answers */ key: string }
  | { status: 'failed'; code: string; /** the shop's own sentence, when it refused */ message?: string };

export const QUOTE_DEBOUNCE_MS = 300;
/** Ask for a fresh quote this long before the current one expires. */
const RENEW_BEFORE_MS = 60_000;
/**
 * Refusals that pass by themselves: the vendor's token account is not set up yet, or could not be checked. The
 * page asks again this often (the server's answer is cached for 15 s), so the QR appears once the account exists.
 */
const RETRY_CODES = new Set(['payout_account_missing', 'payout_account_unknown']);
export const QUOTE_RETRY_MS = 20_000;

let bootQuoteTaken = false;

/**
 * The page's first quote as the server sent it with the page (src/server/http/boot-page.ts), once, while the page
 * is young, when it answers exactly this request (the product, its first variant, one unit, priced, no renewal);
 * else undefined, and the page asks POST /api/quotes.
 */
function takeBootQuote(productId: string, variantId: string | undefined, quantity: number) {
  if (bootQuoteTaken) return undefined;
  bootQuoteTaken = true;
  const q = bootBlock().qrQuote;
  const item = isQuote(q) && q.items.length === 1 ? q.items[0] : undefined;
  return item?.productId === productId &&
    item.variantId === variantId &&
    item.quantity === quantity &&
    bootYoung()
    ? (q as AnyQuoteResponse)
    : undefined;
}

/**
 * The server-issued quote (signed, with a reference and the Solana Pay URL) for the current product, variant,
 * quantity and price. With a known price it is priced; when the page's price failed it is unpriced (the server
 * refuses that while it has a price of its own: then a priced quote is asked for instead). `enabled` false (an
 * order already recorded) drops it. Changes are debounced (the first request goes at once); each request aborts
 * the previous one and only the latest request's answer is used, so quotes never race. A quote is renewed shortly before it expires.
 *
 * Every request after the first passes the last token received (`renew`), so the payment reference stays the
 * same while the QR is rebuilt: a buyer who paid an earlier QR still matches the order. Disabling (an order
 * exists; 'Start a new order' re-enables) forgets the token, so the next order starts with a fresh reference.
 */
export function useQuote(args: {
  productId: string;
  variantId: string | undefined;
  quantity: number | null;
  /** The page's price: a decimal string, 'failed' (unavailable or error), or undefined while loading. */
  priceUsd: string | 'failed' | undefined;
  enabled: boolean;
  /**
   * The record this quote is for (its id), or null before there is one; when it changes, the renew token
   * becomes `renewFrom` (the record's own quote token: the reference stays; null: a fresh reference).
   */
  scope?: string | null;
  renewFrom?: string | null;
}): QuoteState {
  const { productId, variantId, quantity, priceUsd, enabled } = args;
  // The QR shows the server's record, which holds its quote's price for the quote's window: a new page price
  // alone does not rebuild it (the buyer may be scanning); the quantity, a failed/known switch and the renewal
  // before expiry do.
  const priceKey = priceUsd === undefined ? null : priceUsd === 'failed' ? 'failed' : 'known';
  const key =
    enabled && quantity !== null && priceKey !== null
      ? JSON.stringify([productId, variantId ?? null, quantity, priceKey])
      : null;
  const [state, setState] = useState<QuoteState>({ status: 'idle' });
  const [renewals, setRenewals] = useState(0);
  const lastToken = useRef<string | null>(args.renewFrom ?? null);
  /** The page's first request goes at once (nothing to debounce yet: on a slow network every 300 ms shows). */
  const asked = useRef(false);
  const scope = args.scope ?? null;
  const renewFrom = args.renewFrom ?? null;

  useEffect(() => {
    lastToken.current = renewFrom;
    // Only a new record (or none) resets the token; the record's own renewals keep it.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [scope, productId]);

  useEffect(() => {
    if (key === null || quantity === null) {
      setState({ status: 'idle' });
      return;
    }
    // The QR of the previous request must not stay on screen with the wrong amount. A vendor-wide refusal (no
    // token account yet) stays on screen while it is asked again: no flicker, no repeated announcement.
    setState((prev) =>
      prev.status === 'failed' && RETRY_CODES.has(prev.code) ? prev : { status: 'loading' },
    );
    const controller = new AbortController();
    let renewTimer: number | undefined;
    const items: QuoteRequest['items'] = [
      { productId, ...(variantId !== undefined ? { variantId } : {}), quantity },
    ];
    const ask = async (unpriced: boolean): Promise<AnyQuoteResponse> => {
      const renew = lastToken.current;
      const req: QuoteRequest = {
        items,
        ...(unpriced ? { unpriced: true } : {}),
        ...(renew ? { renew } : {}),
      };
      try {
        return await requestQrQuote(req, controller.signal);
      } catch (err) {
        if (!(err instanceof ApiRequestError)) throw err;
        // The server has a price although the page could not load one: its priced quote is the better answer.
        if (unpriced && err.code === 'price_available') return ask(false);
        // A token this server no longer accepts (older than 24 h, or another secret): start a fresh reference.
        if (renew && err.code === 'invalid_renew') {
          lastToken.current = null;
          return ask(unpriced);
        }
        throw err;
      }
    };
    const take = (quote: AnyQuoteResponse) => {
      lastToken.current = quote.quote;
      setState({ status: 'ready', quote, key });
      const renewIn = Date.parse(quote.expiresAt) - Date.now() - RENEW_BEFORE_MS;
      if (Number.isFinite(renewIn))
        renewTimer = window.setTimeout(() => setRenewals((n) => n + 1), Math.max(renewIn, 5_000));
    };
    const first = !asked.current;
    asked.current = true;
    // The page's first request may have its answer in the page already (no request then).
    const inline =
      first && lastToken.current === null && priceUsd !== 'failed'
        ? takeBootQuote(productId, variantId, quantity)
        : undefined;
    if (inline) take(inline);
    const timer = inline
      ? undefined
      : window.setTimeout(
          () => {
            ask(priceUsd === 'failed')
              .then((quote) => {
                if (!controller.signal.aborted) take(quote);
              })
              .catch((err: unknown) => {
                if (controller.signal.aborted || isAbort(err)) return;
                if (err instanceof ApiRequestError) {
                  setState({ status: 'failed', code: err.code, message: err.message });
                  if (RETRY_CODES.has(err.code))
                    renewTimer = window.setTimeout(() => setRenewals((n) => n + 1), QUOTE_RETRY_MS);
                } else setState({ status: 'failed', code: 'unknown' });
              });
          },
          first ? 0 : QUOTE_DEBOUNCE_MS,
        );
    return () => {
      controller.abort();
      window.clearTimeout(timer);
      if (renewTimer !== undefined) window.clearTimeout(renewTimer);
    };
    // priceUsd is part of key.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, productId, variantId, quantity, renewals]);

  return state;
}
