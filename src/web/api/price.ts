import { useEffect, useState } from 'react';
import type { PriceHistory, PriceOk, PriceUntrusted } from '../../core/api';
import { takeBootPrice } from './boot';

/**
 * GET /api/price: the $CLAIM USD price. One file: the reply check, the fetcher and the hook.
 * States (spec §4, §8): loading → known | unavailable (no price: non-2xx reply or a bad body) | error (fetch threw).
 */
export type PriceState =
  | { status: 'loading' }
  | {
      status: 'known';
      priceUsd: string;
      fetchedAt: string;
      /** Seconds since the server last got a good price (GET /api/price's ageSeconds); absent: not said. */
      ageSeconds?: number;
    }
  | {
      status: 'unavailable';
      /** The server's reason when it does not trust the price (GET /api/price 503). */ message?: string;
    }
  | { status: 'error' };

const REFRESH_MS = 30_000;
const DECIMAL = /^\d+(?:\.\d+)?$/;

function isPriceOk(body: unknown): body is PriceOk {
  if (typeof body !== 'object' || body === null) return false;
  const b = body as Record<string, unknown>;
  return typeof b.priceUsd === 'string' && DECIMAL.test(b.priceUsd) && /[1-9]/.test(b.priceUsd);
}

export async function fetchPrice(signal?: AbortSignal): Promise<PriceState> {
  let res: Response;
  try {
    res = await fetch('/api/price', { signal, headers: { accept: 'application/json' } });
  } catch {
    return { status: 'error' };
  }
  if (!res.ok) return { status: 'unavailable', ...(await untrustedMessage(res)) };
  try {
    return priceStateOf(await res.json());
  } catch {
    return { status: 'unavailable' };
  }
}

/** A 200 body of GET /api/price (fetched, or sent inline with the page) as the page's price state. */
function priceStateOf(body: unknown): PriceState {
  if (!isPriceOk(body)) return { status: 'unavailable' };
  return {
    status: 'known',
    priceUsd: body.priceUsd,
    fetchedAt: String(body.fetchedAt ?? ''),
    ...(typeof body.ageSeconds === 'number' && Number.isFinite(body.ageSeconds)
      ? { ageSeconds: body.ageSeconds }
      : {}),
  };
}

/** The message of a `price_untrusted` answer (too little liquidity, sources disagree), if that is what it is. */
async function untrustedMessage(res: Response): Promise<{ message?: string }> {
  try {
    const body = (await res.json()) as Partial<PriceUntrusted>;
    return body.error === 'price_untrusted' && typeof body.message === 'string' && body.message.length < 300
      ? { message: body.message }
      : {};
  } catch {
    return {};
  }
}

/** Quotes take a price at most this old (the server's price.maxAgeMs); an older one is shown with a note. */
const FRESH_S = 60;

/**
 * The plain note under a price the server still shows but no longer quotes with (its source stopped answering):
 * null while the price is fresh.
 */
export function stalePriceNote(price: PriceState): string | null {
  if (price.status !== 'known' || price.ageSeconds === undefined || price.ageSeconds <= FRESH_S) return null;
  const minutes = Math.max(1, Math.round(price.ageSeconds / 60));
  return `Last updated ${minutes === 1 ? '1 minute' : `${minutes} minutes`} ago: the price source is not answering right now, so this price is only a guide until it updates.`;
}

let lastKnown: PriceState | undefined;
/** When the price sent with the page was taken (performance.now()), if it was. */
let bootTakenAt: number | undefined;

/**
 * The current price, refreshed every 30 s while mounted. Starts from the last known price of this visit. On the
 * first page of a visit the price the server sent with the HTML (api/boot.ts) stands in for the first request:
 * it is set after hydration (the prerendered page says 'Loading $CLAIM price...', as the first render must), with
 * its age, so the stale-price note applies as to a fetched one; the 30 s refresh runs as before.
 */
export function usePrice(): PriceState {
  const [state, setState] = useState<PriceState>(() => lastKnown ?? { status: 'loading' });
  useEffect(() => {
    const controller = new AbortController();
    const load = async () => {
      const next = await fetchPrice(controller.signal);
      if (controller.signal.aborted) return;
      if (next.status === 'known') lastKnown = next;
      setState(next);
    };
    const boot = takeBootPrice();
    if (boot) {
      const known = priceStateOf(boot);
      if (known.status === 'known') {
        lastKnown = known;
        bootTakenAt = performance.now();
      }
    }
    // Another price on the same first page (the header's card and the product's) uses it too.
    if (lastKnown && bootTakenAt !== undefined && performance.now() - bootTakenAt < 2_000)
      setState(lastKnown);
    else void load();
    const timer = window.setInterval(() => void load(), REFRESH_MS);
    return () => {
      controller.abort();
      window.clearInterval(timer);
    };
  }, []);
  return state;
}

export type HistoryState =
  { status: 'loading' } | { status: 'known'; points: { t: number; price: number }[] } | { status: 'none' };

/** GET /api/price/history for the sparkline (display only, so floats are fine here). */
export function usePriceHistory(): HistoryState {
  const [state, setState] = useState<HistoryState>({ status: 'loading' });
  useEffect(() => {
    const controller = new AbortController();
    const load = async () => {
      try {
        const res = await fetch('/api/price/history', { signal: controller.signal });
        if (!res.ok) throw new Error(String(res.status));
        const body = (await res.json()) as Partial<PriceHistory>;
        const points = (Array.isArray(body.points) ? body.points : [])
          .map((p) => ({ t: Date.parse(p.t), price: Number(p.priceUsd) }))
          .filter((p) => Number.isFinite(p.t) && Number.isFinite(p.price) && p.price > 0);
        if (!controller.signal.aborted)
          setState(points.length >= 2 ? { status: 'known', points } : { status: 'none' });
      } catch {
        if (!controller.signal.aborted) setState({ status: 'none' });
      }
    };
    void load();
    return () => controller.abort();
  }, []);
  return state;
}
