import { useEffect, useState } from 'react';
import type { QuoteResponse } from '../../../core/api';
import { ApiRequestError, isAbort, requestQuote } from '../../api/orders';

export type QuoteState =
  | { status: 'idle' }
  | { status: 'loading' }
  | { status: 'ready'; quote: QuoteResponse; /** the request it answers */ key: string }
  | { status: 'failed'; code: string };

export const QUOTE_DEBOUNCE_MS = 300;
/** Ask for a fresh quote this long before the current one expires. */
const RENEW_BEFORE_MS = 60_000;

/**
 * The server-issued quote (signed, with a fresh reference and the Solana Pay URL) for the current product,
 * variant, quantity and price. `enabled` false (price unknown, quantity not a number, an order already recorded)
 * drops it. Changes are debounced; each request aborts the previous one and only the latest request's answer is
 * used, so quotes never race. A quote is renewed shortly before it expires.
 */
export function useQuote(args: {
  productId: string;
  variantId: string | undefined;
  quantity: number | null;
  priceUsd: string | undefined;
  enabled: boolean;
}): QuoteState {
  const { productId, variantId, quantity, priceUsd, enabled } = args;
  const key =
    enabled && quantity !== null && priceUsd !== undefined
      ? JSON.stringify([productId, variantId ?? null, quantity, priceUsd])
      : null;
  const [state, setState] = useState<QuoteState>({ status: 'idle' });
  const [renewals, setRenewals] = useState(0);

  useEffect(() => {
    if (key === null || quantity === null) {
      setState({ status: 'idle' });
      return;
    }
    // The QR of the previous request must not stay on screen with the wrong amount.
    setState({ status: 'loading' });
    const controller = new AbortController();
    let renewTimer: number | undefined;
    const timer = window.setTimeout(() => {
      requestQuote(
        { items: [{ productId, ...(variantId !== undefined ? { variantId } : {}), quantity }] },
        controller.signal,
      )
        .then((quote) => {
          if (controller.signal.aborted) return;
          setState({ status: 'ready', quote, key });
          const renewIn = Date.parse(quote.expiresAt) - Date.now() - RENEW_BEFORE_MS;
          if (Number.isFinite(renewIn))
            renewTimer = window.setTimeout(() => setRenewals((n) => n + 1), Math.max(renewIn, 5_000));
        })
        .catch((err: unknown) => {
          if (controller.signal.aborted || isAbort(err)) return;
          setState({ status: 'failed', code: err instanceof ApiRequestError ? err.code : 'unknown' });
        });
    }, QUOTE_DEBOUNCE_MS);
    return () => {
      controller.abort();
      window.clearTimeout(timer);
      if (renewTimer !== undefined) window.clearTimeout(renewTimer);
    };
  }, [key, productId, variantId, quantity, renewals]);

  return state;
}
