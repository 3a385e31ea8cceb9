import type { PriceHistory } from '../../core/api';
import type { Settings } from '../settings';
import { fetchDexScreenerPrice, type PriceFetchErrorKind, type PriceFetchResult } from './dexscreener';
import { HISTORY_CAPACITY, RingBuffer, type PriceHistoryStore, type PricePoint } from './history';

/**
 * The server's $CLAIM/USD price: a background timer refreshes it from DexScreener (single-flight, at most once
 * per `refreshMs`, never faster than every 10 s); requests only read the last good value, never call upstream.
 */

export type PriceSource = 'dexscreener' | 'demo';

export interface CurrentPrice {
  priceUsd: string;
  fetchedAt: Date;
  source: PriceSource;
}

export interface PriceFailure {
  kind: PriceFetchErrorKind;
  message: string;
  status?: number;
  at: Date;
}

export interface PriceService {
  /** Last good price, whatever its age (undefined before the first success). */
  current(): CurrentPrice | undefined;
  /** Last good price if it is at most `maxAgeMs` old (default settings.price.maxAgeMs, 60 s). */
  currentFresh(maxAgeMs?: number): CurrentPrice | undefined;
  /** Last upstream failure since the last success, for logs/health. */
  lastFailure(): PriceFailure | undefined;
  /** Body of GET /api/price at time `nowMs`: 200 with a precomputed JSON string, or 503. */
  priceResponse(nowMs?: number): { status: 200 | 503; body: string };
  /** Body of GET /api/price/history (precomputed per refresh). */
  historyResponse(): string;
  history(): PriceHistory;
  /** One upstream refresh; joins the one in flight if there is one. */
  refresh(): Promise<PriceFetchResult>;
  /** Loads persisted history, starts the timer; resolves once the first refresh has settled. */
  start(): Promise<void>;
  /** Stops the timer and aborts a call in flight. */
  stop(): Promise<void>;
  /** Number of upstream calls made (diagnostics and tests). */
  readonly upstreamCalls: number;
}

export interface PriceServiceDeps {
  fetch?: typeof fetch;
  now?: () => number;
  store?: PriceHistoryStore;
  /** 'demo' in demo mode (settings.demo). Default 'dexscreener'. */
  source?: PriceSource;
  /** GET /api/price answers 503 once the last good price is older than this. Default 15 min. */
  serveMaxAgeMs?: number;
  log?: { warn(msg: string): void };
}

export const MIN_REFRESH_MS = 10_000;
export const DEFAULT_SERVE_MAX_AGE_MS = 15 * 60_000;
const MAX_BACKOFF_MS = 5 * 60_000;
const DAY_MS = 24 * 60 * 60_000;
export const PRICE_UNAVAILABLE_MESSAGE = 'Failed to load $CLAIM price. Try again later.';
const UNAVAILABLE_BODY = JSON.stringify({ error: 'price_unavailable', message: PRICE_UNAVAILABLE_MESSAGE });

export function createPriceService(settings: Settings['price'], deps: PriceServiceDeps = {}): PriceService {
  const fetchImpl = deps.fetch ?? fetch;
  const now = deps.now ?? Date.now;
  const source: PriceSource = deps.source ?? 'dexscreener';
  const serveMaxAgeMs = deps.serveMaxAgeMs ?? DEFAULT_SERVE_MAX_AGE_MS;
  const refreshMs = Math.max(settings.refreshMs, MIN_REFRESH_MS);
  const ring = new RingBuffer<PricePoint>(HISTORY_CAPACITY);

  let cur: CurrentPrice | undefined;
  let bodyPrefix = '';
  let historyBody = JSON.stringify({ points: [] } satisfies PriceHistory);
  let failure: PriceFailure | undefined;
  let inFlight: Promise<PriceFetchResult> | undefined;
  let calls = 0;
  let running = false;
  let timer: NodeJS.Timeout | undefined;
  let stopController = new AbortController();
  let started: Promise<void> | undefined;

  const historyPoints = (): PriceHistory => {
    const from = now() - DAY_MS;
    return {
      points: ring
        .toArray()
        .filter((p) => p.t.getTime() >= from)
        .map((p) => ({ t: p.t.toISOString(), priceUsd: p.priceUsd })),
    };
  };

  const accept = (priceUsd: string): void => {
    const fetchedAt = new Date(now());
    cur = { priceUsd, fetchedAt, source };
    failure = undefined;
    const head = JSON.stringify({ priceUsd, fetchedAt: fetchedAt.toISOString(), source });
    bodyPrefix = `${head.slice(0, -1)},"ageSeconds":`;
    const point = { t: fetchedAt, priceUsd };
    ring.push(point);
    historyBody = JSON.stringify(historyPoints());
    if (deps.store) {
      Promise.resolve()
        .then(() => deps.store?.append(point))
        .catch((err: unknown) => deps.log?.warn(`price history: append failed: ${(err as Error).message}`));
    }
  };

  const doRefresh = async (): Promise<PriceFetchResult> => {
    calls++;
    const result = await fetchDexScreenerPrice(
      {
        apiUrl: settings.apiUrl,
        pairAddress: settings.pairAddress,
        timeoutMs: settings.timeoutMs,
        signal: stopController.signal,
      },
      fetchImpl,
    );
    if (result.ok) accept(result.priceUsd);
    else {
      failure = {
        kind: result.kind,
        message: result.message,
        ...(result.status ? { status: result.status } : {}),
        at: new Date(now()),
      };
      deps.log?.warn(`price refresh failed (${result.kind}): ${result.message}`);
    }
    return result;
  };

  const refresh = (): Promise<PriceFetchResult> => {
    inFlight ??= doRefresh().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };

  const schedule = (delay: number): void => {
    if (!running) return;
    timer = setTimeout(() => void tick(), delay);
    timer.unref();
  };

  const tick = async (): Promise<void> => {
    const r = await refresh();
    const delay = r.ok ? refreshMs : Math.min(Math.max(refreshMs, r.retryAfterMs ?? 0), MAX_BACKOFF_MS);
    schedule(delay);
  };

  const loadHistory = async (): Promise<void> => {
    if (!deps.store) return;
    try {
      const pts = await deps.store.since(new Date(now() - DAY_MS));
      for (const p of pts) ring.push({ t: new Date(p.t.getTime()), priceUsd: p.priceUsd });
      historyBody = JSON.stringify(historyPoints());
    } catch (err) {
      deps.log?.warn(`price history: load failed: ${(err as Error).message}`);
    }
  };

  return {
    current: () => cur,
    currentFresh(maxAgeMs = settings.maxAgeMs) {
      if (!cur) return undefined;
      return now() - cur.fetchedAt.getTime() <= maxAgeMs ? cur : undefined;
    },
    lastFailure: () => failure,
    priceResponse(nowMs = now()) {
      if (!cur) return { status: 503, body: UNAVAILABLE_BODY };
      const ageMs = Math.max(0, nowMs - cur.fetchedAt.getTime());
      if (ageMs > serveMaxAgeMs) return { status: 503, body: UNAVAILABLE_BODY };
      return { status: 200, body: `${bodyPrefix}${Math.floor(ageMs / 1000)}}` };
    },
    historyResponse: () => historyBody,
    history: historyPoints,
    refresh,
    start() {
      if (started) return started;
      running = true;
      stopController = new AbortController();
      started = (async () => {
        await loadHistory();
        if (!running) return;
        const r = await refresh();
        schedule(r.ok ? refreshMs : Math.min(Math.max(refreshMs, r.retryAfterMs ?? 0), MAX_BACKOFF_MS));
      })();
      return started;
    },
    async stop() {
      running = false;
      started = undefined;
      if (timer) clearTimeout(timer);
      timer = undefined;
      stopController.abort();
      await inFlight?.catch(() => undefined);
    },
    get upstreamCalls() {
      return calls;
    },
  };
}
