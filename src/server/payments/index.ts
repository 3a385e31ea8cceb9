/**
 * Payments: verification (verify.ts), the RPC port (rpc.ts), budgeted RPC clients (connection.ts, budget.ts),
 * the WebSocket feed (feed.ts) and the watcher (watcher.ts and its parts in watch/). `startPayments` is the
 * composition the server uses: its own budgeted RPC client, one feed, one watcher serving the server's lanes
 * (./lanes.ts: the chain clock, the awaited and the hint lane).
 * The process has two budgeted RPC clients (this one, and startServer's for the refund check, the readiness probe
 * and the payout-account reads), both drawing on the one RPC budget the server hands in (`budget`).
 */
import type { OpsProbes, WatcherLag } from '../ops/probes';
import { createRpcProbe } from '../ops/rpc-probe';
import { randomUUID } from 'node:crypto';
import type { OrderService } from '../orders/service';
import type { Settings } from '../settings';
import type { Store } from '../store/store';
import { budgetedFetch, RpcBudget, RpcBudgetExhaustedError, rpcPriority, type RpcStats } from './budget';
import { budgetedRpc } from './connection';
import { WsLogsFeed } from './feed';
import { chainPaymentRpc } from './rpc-adapter';
import type { WatchLanes } from './lanes';
import { kyselyScanStore, type ScanStore } from './scan-store';
import { PaymentWatcher, type PaymentWatcherOptions, type WatcherEvent } from './watcher';

export * from './budget';
export * from './connection';
export * from './rpc';
export * from './verify';
export * from './signature';
export * from './feed';
export * from './scan-store';
export * from './lanes';
export * from './watcher';

export interface StartPaymentsDeps {
  settings: Pick<Settings, 'solana' | 'claimMint' | 'recipients'> &
    Partial<Pick<Settings, 'rpcBudget' | 'quote' | 'watcherMaxLagS'>>;
  orders: Pick<
    OrderService,
    | 'findOrder'
    | 'ordersByReferences'
    | 'unfinalizedPayments'
    | 'isSignatureUsed'
    | 'recordPayment'
    | 'noteUnreadablePayment'
  >;
  /** The lanes the order service and the hint route were handed (./lanes.ts): the watcher serves them while it runs. */
  lanes: Pick<WatchLanes, 'serve'>;
  /**
   * The store: cursors and judged signatures live there (migration 0005), and on PostgreSQL a lease row makes one
   * instance the watcher. Without it (tests of the bare composition) they live in memory.
   */
  store?: Pick<Store, 'db' | 'dialect'>;
  /** Lease of the watch on PostgreSQL: held this long, renewed every third of it. Default 6000 ms. */
  leaseMs?: number;
  now?: () => Date;
  /** Watcher events (recorded, rejected, partial, final, error). Default: errors to console.warn, rate-limited. */
  onEvent?: (event: WatcherEvent) => void;
  /** Timing and limits (tests, benchmarks). */
  watcher?: Partial<
    Omit<
      PaymentWatcherOptions,
      'rpc' | 'orders' | 'feed' | 'recipients' | 'mint' | 'now' | 'onEvent' | 'scanStore'
    >
  >;
  /** Time limit of each RPC call (ms). Default 5000. */
  rpcTimeoutMs?: number;
  /** Readiness: payments count as seen on time while each awaited order was checked within this. Default 20 s. */
  onTimeWithinMs?: number;
  /**
   * The process's RPC budget, when something else shares it. Default: a new one of `settings.rpcBudget.per10s`
   * requests per 10 s (60 when unset).
   */
  budget?: RpcBudget;
}

export interface RunningPayments {
  watcher: PaymentWatcher;
  feed: WsLogsFeed;
  budget: RpcBudget;
  /** This instance holds the watch (always true on SQLite or without a store). */
  isWatching(): boolean;
  /** RPC counters (requests, 429s, errors, …) for /metrics and readiness. */
  rpcStats(): RpcStats;
  /** What /api/health/ready and /metrics read (startServer merges a service's `probes`). */
  probes: OpsProbes;
  /**
   * Stops watching and serving hints. `releaseLease: false` leaves the lease to expire (what a crashed instance
   * does; tests of the takeover).
   */
  stop(opts?: { releaseLease?: boolean }): Promise<void>;
}

function defaultOnEvent(): (event: WatcherEvent) => void {
  const lastLogged = new Map<string, number>();
  return (event) => {
    if (event.type === 'unreadable') {
      // Rare, and each one matters: always logged (a signature and a reason, no personal data).
      console.warn(
        `payments: set aside unreadable transaction ${event.signature} (${event.reason}: ${event.detail})` +
          (event.orderIds.length ? `; ${event.orderIds.length} order(s) told` : ''),
      );
      return;
    }
    if (event.type !== 'error') return;
    const key = event.where.split(' ')[0] ?? event.where;
    const now = Date.now();
    if ((lastLogged.get(key) ?? 0) > now - 30_000) return;
    lastLogged.set(key, now);
    console.warn(
      `payments: ${event.where}:`,
      event.error instanceof Error ? event.error.message : event.error,
    );
  };
}

/** Starts watching payments for the order service; `stop()` undoes everything. */
export async function startPayments(deps: StartPaymentsDeps): Promise<RunningPayments> {
  const timeoutMs = deps.rpcTimeoutMs ?? 5_000;
  const budget = deps.budget ?? new RpcBudget({ perWindow: deps.settings.rpcBudget?.per10s ?? 60 });
  // Every request of this client takes its slot from the process's budget (connection.ts).
  const rpc = chainPaymentRpc(budgetedRpc(deps.settings.solana, budget, { timeoutMs }), { timeoutMs });
  const onEvent = deps.onEvent ?? defaultOnEvent();
  const feed = new WsLogsFeed(deps.settings.solana.wsUrl, {
    onError: (error) => onEvent({ type: 'error', where: 'websocket', error }),
  });
  const scanStore: ScanStore | undefined = deps.store ? kyselyScanStore(deps.store.db) : undefined;
  const holder = randomUUID();
  // Shares of the process's budget per 10 s: the priority checks of awaited orders 20 %, hints 10 %.
  const perWindow = budget.perWindow * (10_000 / budget.windowMs);
  // Held back for the priority checks, whatever the backlog took: one check (a listing and a transaction) twice
  // over, so a payment of an awaited order is fetched at once, never behind dust waiting for the same method.
  budget.reserveForPriority({ total: 4, perMethod: 2 });
  const watcher = new PaymentWatcher({
    ...(deps.settings.quote ? { quoteTtlMs: deps.settings.quote.ttlMs } : {}),
    priorityPer10s: Math.max(2, Math.floor(perWindow * 0.2)),
    hintsPer10s: Math.max(2, Math.floor(perWindow * 0.1)),
    ...deps.watcher,
    instanceId: holder,
    rpc,
    orders: deps.orders,
    feed,
    ...(scanStore ? { scanStore } : {}),
    recipients: Object.values(deps.settings.recipients),
    mint: deps.settings.claimMint,
    ...(deps.now ? { now: deps.now } : {}),
    onEvent,
  });

  // Several API instances on one PostgreSQL database: one watches (a lease row renewed every third of its
  // lifetime; when the holder dies another takes over once it expires). The others serve requests and hints.
  const leased = scanStore !== undefined && deps.store?.dialect === 'postgres';
  let leaseTimer: NodeJS.Timeout | undefined;
  let stopped = false;
  const leaseMs = deps.leaseMs ?? 6_000;
  const clock = deps.now ?? (() => new Date());
  const startedAt = clock();
  // Payments count as seen on time while every awaited order was checked within this long.
  const onTimeWithinMs = deps.onTimeWithinMs ?? 20_000;
  /**
   * Watcher lag for readiness and /metrics. The instance holding the watch reports its own; another instance
   * reports the holder's progress as stored in the database (payment_watch_progress), so every instance turns
   * not ready when nobody catches up (the holder stalls, or died and nobody has taken over yet).
   */
  // The catch-up counts as moving while it listed or judged something within the readiness lag limit.
  const catchUpOf = () => {
    const c = watcher.catchUp((deps.settings.watcherMaxLagS ?? 60) * 1000);
    return c ? { catchUp: c } : {};
  };
  const watcherLag = async (): Promise<WatcherLag> => {
    const own = watcher.lagSeconds();
    if (own !== undefined)
      return {
        watching: true,
        lagSeconds: own,
        caughtUpAt: watcher.lastCaughtUpAt() ?? null,
        backlog: watcher.backlog(onTimeWithinMs),
        ...catchUpOf(),
      };
    const stored = scanStore ? await scanStore.progress('payments') : undefined;
    const since = stored?.caughtUpAt ?? startedAt;
    return {
      watching: false,
      lagSeconds: Math.max(0, (clock().getTime() - since.getTime()) / 1000),
      caughtUpAt: stored?.caughtUpAt ?? null,
    };
  };
  // Time is the chain's: orders expire only once the watcher (this instance's, or the lease holder's as stored)
  // has judged every vendor transfer up to a time past their expiry.
  const unserve = deps.lanes.serve({
    chainClock: async () => (await watcherLag()).caughtUpAt,
    awaited: watcher.awaitedHandler(),
    hint: watcher.hintHandler(),
  });
  const renew = async (): Promise<void> => {
    if (!scanStore || stopped) return;
    try {
      const now = clock();
      const held = await scanStore.acquireLease('payments', holder, now, new Date(now.getTime() + leaseMs));
      if (held && !watcher.isWatching()) await watcher.startWatching({ background: true });
      else if (!held && watcher.isWatching()) await watcher.stopWatching();
    } catch (error) {
      // The store is unreachable: nobody can renew for us, so stop watching before another instance takes over.
      onEvent({ type: 'error', where: 'lease', error });
      if (watcher.isWatching()) await watcher.stopWatching();
    }
  };
  if (leased) {
    await watcher.start({ watch: false });
    await renew();
    const tick = (): void => {
      leaseTimer = setTimeout(() => void renew().then(() => !stopped && tick()), Math.max(100, leaseMs / 3));
      leaseTimer.unref?.();
    };
    tick();
  } else await watcher.start({ background: true });

  return {
    watcher,
    feed,
    budget,
    isWatching: () => watcher.isWatching(),
    rpcStats: () => budget.stats(),
    probes: {
      // Readiness asks the RPC through the process's budget too (one getSlot per 5 s at most), ahead of the
      // queue (a backlog judging a dust burst must not make the RPC look down); when even so no slot frees in
      // time, the RPC was not asked and its last answer stands.
      rpcReachable: (() => {
        const probe = createRpcProbe(deps.settings.solana.rpcUrl, {
          fetch: budgetedFetch(budget, { attempts: 1, deadlineMs: 2_000 }),
          notAsked: (err) => err instanceof RpcBudgetExhaustedError,
        });
        return () => rpcPriority.run(true, probe);
      })(),
      watcherLag,
      rpcStats: () => {
        const st = budget.stats();
        return { requests: st.requests, rateLimited: st.throttled };
      },
    },
    async stop(opts = {}) {
      stopped = true;
      if (leaseTimer) clearTimeout(leaseTimer);
      unserve();
      await watcher.stop();
      if (leased && opts.releaseLease !== false)
        await scanStore?.releaseLease('payments', holder).catch(() => undefined);
      await feed.close();
    },
  };
}

/** What the server hands each background service (server.ts `services`), as far as the watcher needs it. */
export interface PaymentsServiceContext {
  settings: Settings;
  orders: OrderService;
  store: Store;
  now: () => Date;
  budget: RpcBudget;
  lanes: WatchLanes;
}

/**
 * The payment watcher as a server service, wired as main.ts runs it: the server's settings, order service, store,
 * clock and the process's RPC budget (shared with the seller console). `tuning` overrides timers and options for
 * tests and benches; `onStart` sees the running watcher (its counters).
 */
export function paymentsService(
  tuning: Omit<Partial<StartPaymentsDeps>, 'settings' | 'orders' | 'store' | 'now' | 'budget' | 'lanes'> = {},
  onStart?: (payments: RunningPayments) => void,
): (ctx: PaymentsServiceContext) => Promise<RunningPayments> {
  return async (ctx) => {
    const payments = await startPayments({
      settings: ctx.settings,
      orders: ctx.orders,
      store: ctx.store,
      now: ctx.now,
      budget: ctx.budget,
      lanes: ctx.lanes,
      ...tuning,
    });
    onStart?.(payments);
    return payments;
  };
}
