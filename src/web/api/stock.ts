import { useEffect, useState } from 'react';
import type { StockResponse } from '../../core/api';
import { stockKey, type StockKey } from '../../core/stock';

/**
 * GET /api/stock: units available now. Read after hydration on every page that shows stock (never baked into
 * the prerendered HTML), and again when the tab comes back into view.
 * Until it answers, pages render as the prerendered HTML did; the server refuses what it cannot sell.
 */
export type StockState =
  | { status: 'loading' }
  | { status: 'known'; available: (k: StockKey) => number | undefined }
  | { status: 'failed' };

async function fetchStock(signal: AbortSignal): Promise<Map<string, number>> {
  const res = await fetch('/api/stock', {
    headers: { accept: 'application/json' },
    cache: 'no-store',
    signal,
  });
  if (!res.ok) throw new Error(String(res.status));
  const body = (await res.json()) as Partial<StockResponse>;
  if (!Array.isArray(body.lines)) throw new Error('bad stock');
  const map = new Map<string, number>();
  for (const l of body.lines) {
    if (typeof l.productId === 'string' && typeof l.available === 'number') map.set(stockKey(l), l.available);
  }
  return map;
}

/** Started when the page's code loads (before hydration), so the first read is under way early. */
let early: Promise<Map<string, number>> | undefined =
  typeof window !== 'undefined' && typeof fetch === 'function'
    ? fetchStock(new AbortController().signal).catch(() => new Map<string, number>())
    : undefined;

export function useStock(): StockState {
  const [state, setState] = useState<StockState>({ status: 'loading' });
  useEffect(() => {
    let controller = new AbortController();
    const load = () => {
      controller.abort();
      controller = new AbortController();
      const { signal } = controller;
      // The early read serves the first page only; later mounts and refreshes read again.
      const pending = early;
      early = undefined;
      (pending ?? fetchStock(signal))
        .then((map) => {
          if (!signal.aborted) setState({ status: 'known', available: (k) => map.get(stockKey(k)) });
        })
        .catch(() => {
          // Keep a known stock on a failed refresh; a first failure leaves the page as prerendered.
          if (!signal.aborted) setState((s) => (s.status === 'known' ? s : { status: 'failed' }));
        });
    };
    const onVisible = () => {
      if (document.visibilityState === 'visible') load();
    };
    load();
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      controller.abort();
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, []);
  return state;
}
