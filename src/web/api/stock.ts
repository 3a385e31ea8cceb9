import { useCallback, useEffect, useMemo, useState } from 'react';
import type { StockResponse } from '../../core/api';
import { stockKey, type StockKey } from '../../core/stock';
import { bootBlock, bootYoung } from './boot-block';

/**
 * GET /api/stock: units available now. Read after hydration on every page that shows stock (never baked into
 * the prerendered HTML: the first read is the one the server sent with the page, see firstRead), and again when
 * the tab comes back into view.
 * Until it answers, pages render as the prerendered HTML did; the server refuses what it cannot sell.
 */
export interface StockLine {
  available: number;
  /** Units held by unpaid orders, and when the first comes back if unpaid (ISO). */
  held?: number;
  heldUntil?: string;
}

export type StockState = (
  | { status: 'loading' }
  | {
      status: 'known';
      available: (k: StockKey) => number | undefined;
      line: (k: StockKey) => StockLine | undefined;
    }
  | { status: 'failed' }
) & {
  /** Reads the stock again now (after a refusal or a purchase: the page is always current). */
  refresh: () => void;
};

/** GET /api/stock's lines (or the boot data's, the same shape) by line; lines of another shape are left out. */
function stockMap(lines: readonly Partial<StockResponse['lines'][number]>[]): Map<string, StockLine> {
  const map = new Map<string, StockLine>();
  for (const l of lines) {
    if (typeof l.productId === 'string' && typeof l.available === 'number')
      map.set(stockKey({ productId: l.productId, ...(l.variantId ? { variantId: l.variantId } : {}) }), {
        available: l.available,
        ...(typeof l.held === 'number' ? { held: l.held } : {}),
        ...(typeof l.heldUntil === 'string' ? { heldUntil: l.heldUntil } : {}),
      });
  }
  return map;
}

async function fetchStock(signal: AbortSignal): Promise<Map<string, StockLine>> {
  const res = await fetch('/api/stock', {
    headers: { accept: 'application/json' },
    cache: 'no-store',
    signal,
  });
  if (!res.ok) throw new Error(String(res.status));
  const body = (await res.json()) as Partial<StockResponse>;
  if (!Array.isArray(body.lines)) throw new Error('bad stock');
  return stockMap(body.lines);
}

/**
 * The first read: the stock of the page's products the server sent with the page (src/server/http/boot-page.ts),
 * while the page is young; else GET /api/stock, started when the page's code loads (before hydration), so it is
 * under way early. It serves the first page only; later mounts and refreshes read again.
 */
const bootLines = bootBlock().stock;
let early: Promise<Map<string, StockLine>> | undefined = Array.isArray(bootLines)
  ? undefined
  : typeof window !== 'undefined' && typeof fetch === 'function'
    ? fetchStock(new AbortController().signal).catch(() => new Map<string, StockLine>())
    : undefined;
let bootTaken = false;

function firstRead(): Promise<Map<string, StockLine>> | undefined {
  const pending = early;
  early = undefined;
  if (pending || bootTaken) return pending;
  bootTaken = true;
  return Array.isArray(bootLines) && bootYoung()
    ? Promise.resolve(stockMap(bootLines as Partial<StockResponse['lines'][number]>[]))
    : undefined;
}

type Known =
  { status: 'loading' } | Omit<Extract<StockState, { status: 'known' }>, 'refresh'> | { status: 'failed' };

export function useStock(): StockState {
  const [state, setState] = useState<Known>({ status: 'loading' });
  const [nudge, setNudge] = useState(0);
  const refresh = useCallback(() => setNudge((n) => n + 1), []);
  useEffect(() => {
    let controller = new AbortController();
    const load = () => {
      controller.abort();
      controller = new AbortController();
      const { signal } = controller;
      (firstRead() ?? fetchStock(signal))
        .then((map) => {
          if (!signal.aborted)
            setState({
              status: 'known',
              available: (k) => map.get(stockKey(k))?.available,
              line: (k) => map.get(stockKey(k)),
            });
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
  }, [nudge]);
  return useMemo(() => ({ ...state, refresh }), [state, refresh]);
}
