import type { PriceHistory } from '../../core/api';
import type { Settings } from '../settings';
import { fetchDexScreenerPrice, type PriceFetchErrorKind, type PriceFetchResult } from './dexscreener';
import { fetchGeckoTerminalPrice } from './geckoterminal';
import { judgePrice, type PriceRefusal } from './guards';
import { downsample, HISTORY_CAPACITY, RingBuffer, type PriceHistoryStore, type PricePoint } from './history';
import { referencePrice } from './reference';

/**
 * The server's $CLAIM/USD price: a background timer refreshes it from DexScreener (and, when configured, the
 * second source, GeckoTerminal) (single-flight, at most once per `refreshMs`, never faster than every 10 s);
 * requests only read the last precomputed value, never call upstream. Each refresh keeps the spot sample (in
 * memory and in the store) and computes the reference price quotes use (reference.ts) and the guards' verdict
 * (guards.ts: liquidity floor, agreement of the sources).
 *
 * In a fleet (`deps.share`, several instances on one PostgreSQL store) one instance polls the sources at a time
 * (it holds the 'price' lease) and stores what it has after each refresh; the others read that every few seconds
 * and serve it as their own (same price, same age, same refusal), with the history points it appended.
 */

export type PriceSource = 'dexscreener' | 'demo';

export interface CurrentPrice {
  /** The reference price: what quotes use (min of spot and the window's average). */
  priceUsd: string;
  /** DexScreener's spot price of this refresh. */
  spotUsd: string;
  fetchedAt: Date;
  source: PriceSource;
  /** The lowest valid liquidity reading of this refresh (USD). */
  liquidityUsd?: string;
  /** The second source's fresh price, when configured and answering. */
  secondUsd?: string;
  spreadBps?: number;
  /** Set while quotes must be refused (too little liquidity, sources disagree). */
  refusal?: PriceRefusal;
}

export interface PriceFailure {
  kind: PriceFetchErrorKind;
  message: string;
  status?: number;
  at: Date;
}

/** A disagreement episode of the two sources starts or ends (the seller is alerted once per episode). */
export type DisagreementEvent =
  | {
      state: 'started';
      at: Date;
      spotUsd: string;
      secondUsd: string;
      spreadBps: number;
      maxSpreadBps: number;
    }
  | { state: 'ended'; at: Date };

export interface PriceService {
  /** Last good price, whatever its age (undefined before the first success). */
  current(): CurrentPrice | undefined;
  /** Last good price if it is at most `maxAgeMs` old (default settings.price.maxAgeMs, 60 s). */
  currentFresh(maxAgeMs?: number): CurrentPrice | undefined;
  /** Last upstream failure since the last success, for logs/health. */
  lastFailure(): PriceFailure | undefined;
  /** Body of GET /api/price at time `nowMs`: 200 with a precomputed JSON string, or 503. */
  priceResponse(nowMs?: number): { status: 200 | 503; body: string };
  /** Body of GET /api/price/history (precomputed per refresh, downsampled). */
  historyResponse(): string;
  history(): PriceHistory;
  /** One upstream refresh; joins the one in flight if there is one. */
  refresh(): Promise<PriceFetchResult>;
  /** Loads persisted history, starts the timer; resolves once the first refresh has settled. */
  start(): Promise<void>;
  /** Stops the timer and aborts a call in flight. */
  stop(): Promise<void>;
  /** Number of upstream calls made to the primary source (diagnostics and tests). */
  readonly upstreamCalls: number;
}

export interface PriceServiceDeps {
  fetch?: typeof fetch;
  now?: () => number;
  store?: PriceHistoryStore;
  /** 'demo' in demo mode (settings.demo). Default 'dexscreener'. */
  source?: PriceSource;
  /** The $CLAIM mint: the second source's pool side. Required when settings.secondSourceUrl is set. */
  claimMint?: string;
  /** GET /api/price answers 503 once the last good price is older than this. Default 15 min. */
  serveMaxAgeMs?: number;
  /** Called when the sources start or stop disagreeing (errors are logged, never thrown at the refresh). */
  onDisagreement?: (event: DisagreementEvent) => void | Promise<void>;
  log?: { warn(msg: string): void };
  /** One poller for the fleet (./shared.ts): absent, this instance polls. */
  share?: PriceShare;
  /** A follower's start waits this long at most for the poller's first result (default FIRST_SNAPSHOT_WAIT_MS). */
  firstSnapshotWaitMs?: number;
}

/** What the poller stores after each refresh and the other instances serve. */
export interface PriceSnapshot {
  current?: Omit<CurrentPrice, 'fetchedAt'> & { fetchedAt: string };
  failure?: Omit<PriceFailure, 'at'> & { at: string };
  disagreeing: boolean;
}

/** The fleet's one poller: whether this instance is it, and the store both sides use. */
export interface PriceShare {
  /** True while this instance polls the sources. */
  leading(): boolean;
  publish(snapshot: PriceSnapshot): Promise<void>;
  latest(): Promise<PriceSnapshot | undefined>;
}

/** How often an instance that does not poll reads what the poller stored. */
export const FOLLOW_MS = 2_000;
/**
 * A fleet starting together: an instance that does not poll, starting before the poller has stored its first
 * result, reads again this often, for at most `FIRST_SNAPSHOT_WAIT_MS`, before its start ends (and its readiness
 * says started): else it would be routed quotes it refuses for want of a price until its next read.
 */
const FIRST_SNAPSHOT_POLL_MS = 200;
export const FIRST_SNAPSHOT_WAIT_MS = 10_000;

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
  const second =
    settings.secondSourceUrl !== undefined
      ? { apiUrl: settings.secondSourceUrl, mint: deps.claimMint ?? '' }
      : undefined;
  if (second && !second.mint) throw new Error('price service: a second source needs the $CLAIM mint');

  let cur: CurrentPrice | undefined;
  let bodyPrefix = '';
  let refusedBody = '';
  let historyBody = JSON.stringify({ points: [] } satisfies PriceHistory);
  let failure: PriceFailure | undefined;
  let secondLast: { priceUsd: string; liquidityUsd?: string; at: number } | undefined;
  let disagreeing = false;
  let inFlight: Promise<PriceFetchResult> | undefined;
  let calls = 0;
  let running = false;
  let timer: NodeJS.Timeout | undefined;
  let stopController = new AbortController();
  let started: Promise<void> | undefined;

  const historyPoints = (): PriceHistory => {
    const from = now() - DAY_MS;
    return {
      points: downsample(ring.toArray().filter((p) => p.t.getTime() >= from)).map((p) => ({
        t: p.t.toISOString(),
        priceUsd: p.priceUsd,
      })),
    };
  };

  const notify = (event: DisagreementEvent): void => {
    if (!deps.onDisagreement) return;
    Promise.resolve()
      .then(() => deps.onDisagreement?.(event))
      .catch((err: unknown) => deps.log?.warn(`price alert failed: ${(err as Error).message}`));
  };

  /** The price served from now on (precomputed bodies). */
  const setCurrent = (next: CurrentPrice): void => {
    cur = next;
    const head = JSON.stringify({
      priceUsd: next.priceUsd,
      spotUsd: next.spotUsd,
      fetchedAt: next.fetchedAt.toISOString(),
      source: next.source,
      ...(next.liquidityUsd !== undefined ? { liquidityUsd: next.liquidityUsd } : {}),
    });
    bodyPrefix = `${head.slice(0, -1)},"ageSeconds":`;
    refusedBody = next.refusal
      ? JSON.stringify({
          error: 'price_untrusted',
          reason: next.refusal.reason,
          message: next.refusal.message,
          fetchedAt: next.fetchedAt.toISOString(),
        })
      : '';
  };

  const snapshot = (): PriceSnapshot => ({
    ...(cur ? { current: { ...cur, fetchedAt: cur.fetchedAt.toISOString() } } : {}),
    ...(failure ? { failure: { ...failure, at: failure.at.toISOString() } } : {}),
    disagreeing,
  });

  /**
   * Serves what the fleet's poller stored, and the history points it appended since ours; says whether the poller had
   * stored anything (a price or a failure).
   */
  const follow = async (): Promise<boolean> => {
    const share = deps.share;
    if (!share) return false;
    try {
      const snap = await share.latest();
      if (snap?.current && snap.current.fetchedAt !== cur?.fetchedAt.toISOString())
        setCurrent({ ...snap.current, fetchedAt: new Date(snap.current.fetchedAt) });
      if (snap) {
        failure = snap.failure ? { ...snap.failure, at: new Date(snap.failure.at) } : undefined;
        disagreeing = snap.disagreeing;
      }
      if (deps.store) {
        const last = ring.toArray().at(-1)?.t.getTime() ?? now() - DAY_MS;
        const pts = await deps.store.since(new Date(last + 1));
        for (const p of pts)
          if (p.t.getTime() > last) ring.push({ t: new Date(p.t.getTime()), priceUsd: p.priceUsd });
        if (pts.length > 0) historyBody = JSON.stringify(historyPoints());
      }
      return snap !== undefined;
    } catch (err) {
      deps.log?.warn(`price: could not read the fleet's price: ${(err as Error).message}`);
      return false;
    }
  };

  const accept = (result: Extract<PriceFetchResult, { ok: true }>): void => {
    const fetchedAt = new Date(now());
    const point = { t: fetchedAt, priceUsd: result.priceUsd };
    ring.push(point);
    const ref = referencePrice(ring.toArray(), fetchedAt.getTime(), settings.reference, result.priceUsd);
    const secondFresh =
      secondLast && fetchedAt.getTime() - secondLast.at <= settings.maxAgeMs ? secondLast : undefined;
    // DexScreener's reading is required; the second source's can only lower it.
    const liquidities =
      result.liquidityUsd === undefined
        ? []
        : [result.liquidityUsd, secondFresh?.liquidityUsd].filter((l): l is string => l !== undefined);
    const verdict = judgePrice({
      minLiquidityUsd: settings.minLiquidityUsd,
      maxSpreadBps: settings.maxSpreadBps,
      liquiditiesUsd: liquidities,
      spotUsd: result.priceUsd,
      ...(secondFresh ? { secondUsd: secondFresh.priceUsd } : {}),
    });
    setCurrent({
      priceUsd: ref?.priceUsd ?? result.priceUsd,
      spotUsd: result.priceUsd,
      fetchedAt,
      source,
      ...(verdict.liquidityUsd !== undefined ? { liquidityUsd: verdict.liquidityUsd } : {}),
      ...(secondFresh ? { secondUsd: secondFresh.priceUsd } : {}),
      ...(verdict.spreadBps !== undefined ? { spreadBps: verdict.spreadBps } : {}),
      ...(verdict.refusal ? { refusal: verdict.refusal } : {}),
    });
    failure = undefined;
    if (verdict.refusal && result.liquidityProblem && verdict.refusal.reason === 'low_liquidity')
      deps.log?.warn(`price: no usable liquidity from DexScreener (${result.liquidityProblem})`);
    historyBody = JSON.stringify(historyPoints());
    if (deps.store) {
      Promise.resolve()
        .then(() => deps.store?.append(point))
        .catch((err: unknown) => deps.log?.warn(`price history: append failed: ${(err as Error).message}`));
    }
    // Disagreement episodes: one 'started' when the spread first exceeds the limit, one 'ended' when the two
    // sources agree again (a refresh without a fresh second price neither starts nor ends one).
    if (verdict.spreadBps !== undefined && secondFresh) {
      const over = verdict.spreadBps > settings.maxSpreadBps;
      if (over && !disagreeing) {
        disagreeing = true;
        notify({
          state: 'started',
          at: fetchedAt,
          spotUsd: result.priceUsd,
          secondUsd: secondFresh.priceUsd,
          spreadBps: verdict.spreadBps,
          maxSpreadBps: settings.maxSpreadBps,
        });
      } else if (!over && disagreeing) {
        disagreeing = false;
        notify({ state: 'ended', at: fetchedAt });
      }
    }
  };

  const refreshSecond = async (): Promise<void> => {
    if (!second) return;
    const r = await fetchGeckoTerminalPrice(
      {
        apiUrl: second.apiUrl,
        poolAddress: settings.pairAddress,
        mint: second.mint,
        timeoutMs: settings.timeoutMs,
        signal: stopController.signal,
      },
      fetchImpl,
    );
    if (r.ok)
      secondLast = {
        priceUsd: r.priceUsd,
        ...(r.liquidityUsd !== undefined ? { liquidityUsd: r.liquidityUsd } : {}),
        at: now(),
      };
    else deps.log?.warn(`second price source failed (${r.kind}): ${r.message}`);
  };

  const doRefresh = async (): Promise<PriceFetchResult> => {
    calls++;
    const [result] = await Promise.all([
      fetchDexScreenerPrice(
        {
          apiUrl: settings.apiUrl,
          pairAddress: settings.pairAddress,
          timeoutMs: settings.timeoutMs,
          signal: stopController.signal,
        },
        fetchImpl,
      ),
      refreshSecond(),
    ]);
    if (result.ok) accept(result);
    else {
      failure = {
        kind: result.kind,
        message: result.message,
        ...(result.status ? { status: result.status } : {}),
        at: new Date(now()),
      };
      deps.log?.warn(`price refresh failed (${result.kind}): ${result.message}`);
    }
    if (deps.share)
      await deps.share
        .publish(snapshot())
        .catch((err: unknown) =>
          deps.log?.warn(`price: could not store the price for the fleet: ${(err as Error).message}`),
        );
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
    if (deps.share && !deps.share.leading()) {
      await follow();
      schedule(FOLLOW_MS);
      return;
    }
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
      if (cur.refusal) return { status: 503, body: refusedBody };
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
        if (deps.share && !deps.share.leading()) {
          // The wall clock (not deps.now, which tests may freeze): the wait is real time.
          const until = Date.now() + (deps.firstSnapshotWaitMs ?? FIRST_SNAPSHOT_WAIT_MS);
          while (!(await follow()) && running && Date.now() < until)
            await new Promise((r) => setTimeout(r, FIRST_SNAPSHOT_POLL_MS));
          schedule(FOLLOW_MS);
          return;
        }
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
