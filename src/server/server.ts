/**
 * startServer: the whole API in one call, for main.ts and for other engineers' end-to-end tests. Composition
 * only: it opens the store (migrations), makes the services (stock, chain reads, mail, orders, price), builds the
 * app with every route module (./http/routes.ts), starts listening (PORT=0 gives a free port; `url` reports the
 * real one), then starts the price service, the outbox worker, the background services (the payment watcher),
 * the retention job and the housekeeping timer (./ops/housekeeping.ts). `close()` stops everything in reverse
 * order.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { catalog as defaultCatalog } from '../../catalog';
import type { Catalog } from '../core/catalog';
import { buildApp, listenAt } from './app';
import { createMailTransport } from './mail/index';
import { createOutboxWorker, type OutboxWorker, type OutboxWorkerOptions } from './mail/outbox';
import type { MailTransport } from './mail/types';
import { createOrderService, type OrderService } from './orders/service';
import type { PriceSource } from './orders/quotes';
import { createDemoMarket, type PriceService } from './price/index';
import { createShopPrice } from './price/shop-price';
import { apiRoutes } from './http/routes';
import { startHousekeeping } from './ops/housekeeping';
import { holdLease, leaseHolderId } from './ops/lease';
import { createPriceShare } from './price/shared';
import type { Settings } from './settings';
import { openStore, type Store, type StoreConfig } from './store/store';
import { databaseRateLimitStore } from './ops/rate-limit-store';
import { mergeProbes, type OpsProbes } from './ops/probes';
import { createRpcProbe } from './ops/rpc-probe';
import { createPaymentCheck } from './ops/dependencies';
import { redactError } from './redact';
import { createSealer } from './privacy/seal';
import { startRetentionJob, type RetentionJob } from './privacy/retention-job';
import { shopPaymentLinks } from './orders/shop-links';
import { createPayRequests, offersTransactionRequests } from './orders/pay-requests';
import type { Connection } from '@solana/web3.js';
import { budgetedFetch, RpcBudget } from './payments/budget';
import type { WalletBalances } from './payments/wallet-balances';
import { createChainReads } from './payments/chain-reads';
import { createStockRepository, type StockRepository } from './stock/repository';
import type { PayoutAccounts } from './payments/payout-accounts';
import type { WatchLanes } from './payments/lanes';
import { systemResolver, type Resolver } from './webhooks/address';
import { createWebhookWorker, type WebhookWorker, type WebhookWorkerOptions } from './webhooks/worker';

export interface ServerOverrides {
  catalog?: Catalog;
  /** Replaces the price service (tests). Without it, (b)'s createPriceService runs and /api/price is served. */
  priceSource?: PriceSource;
  /** Replaces the transport named by settings.mail. */
  transport?: MailTransport;
  now?: () => Date;
  /** Store config instead of settings.database (e.g. a PostgreSQL schema per test run). */
  store?: StoreConfig;
  webDir?: string;
  logger?: boolean;
  /** Where the request logger writes (default stdout). */
  logStream?: NodeJS.WritableStream;
  /** Outbox worker tuning (timers, lease, poll). */
  outbox?: Partial<Omit<OutboxWorkerOptions, 'store' | 'transport'>>;
  /** Don't start the worker (tests drive it with runOnce). */
  startOutbox?: boolean;
  /**
   * The webhook sender (src/server/webhooks): `resolve` replaces the DNS lookup of endpoint hosts (tests: an
   * answer that changes), `extraCa` trusts a test receiver's CA besides the system's roots (tests only: there is
   * no setting for it), the rest tunes the worker; `start: false` leaves it to the test (runOnce).
   */
  webhooks?: Partial<Omit<WebhookWorkerOptions, 'store' | 'sealer' | 'settings' | 'catalog'>> & {
    resolve?: Resolver;
    start?: boolean;
  };
  /**
   * The personal-data retention job (src/server/privacy/retention-job.ts): daily, first run a minute after start.
   * `false` does not start it (tests drive `orders.runRetention`).
   */
  retention?: { everyMs?: number; firstAfterMs?: number } | false;
  /** Interval of the housekeeping (expire orders, missing details, QR records, expired seller sessions and
   * nonces), ms. Default 30 s; 0 disables. */
  expireEveryMs?: number;
  /** More route plugins (payments, …). They get the order service. */
  plugins?: ((
    app: FastifyInstance,
    ctx: { orders: OrderService; store: Store; stock: StockRepository },
  ) => Promise<void> | void)[];
  /** Listen (default true). With false, use app.inject. */
  listen?: boolean;
  /**
   * Background services started after the server listens and stopped first on close, e.g. the payment watcher:
   * `services: [paymentsService()]` (src/server/payments/index.ts), as main.ts runs it.
   */
  services?: ((ctx: {
    settings: Settings;
    orders: OrderService;
    store: Store;
    now: () => Date;
    url: string;
    /** The process's Solana RPC budget: pass it to startPayments so the watcher and the console share it. */
    budget: RpcBudget;
    /** The watcher's lanes the order service and the hint route use: the payment watcher serves them. */
    lanes: WatchLanes;
  }) => Promise<RunningService | void>)[];
  /** Health and metrics providers known up front (tests); services may add theirs (RunningService.probes). */
  probes?: OpsProbes;
  /**
   * Whether each vendor's $CLAIM token account exists (no QR or payment link otherwise). Default: read through the
   * budgeted Connection with a short cache (payments/payout-accounts.ts). Tests without a chain replace it.
   */
  payoutAccounts?: PayoutAccounts;
  /**
   * Buyers' $CLAIM balances for the hold rule (docs/decisions/holds.md). Default: read through the budgeted
   * Connection with a 10 s cache (payments/wallet-balances.ts).
   */
  walletBalances?: WalletBalances;
}

/** A background service; `probes` feed /api/health/ready and /metrics (RPC counters, watcher lag, …). */
export interface RunningService {
  stop(): Promise<void>;
  probes?: OpsProbes;
}

export interface RunningServer {
  app: FastifyInstance;
  /** http://host:port actually bound ('' when not listening). */
  url: string;
  store: Store;
  orders: OrderService;
  /** Stock lines, reservations and the change log (tests restock through it). */
  stock: StockRepository;
  outbox: OutboxWorker;
  /** The webhook sender. */
  webhooks: WebhookWorker;
  /** The retention job, unless overrides.retention is false. */
  retention?: RetentionJob;
  price?: PriceService;
  transport: MailTransport;
  /** The process's budgeted Solana Connection (payments/connection.ts): every server RPC call shares its budget. */
  connection: Connection;
  /** That budget (the fleet's on PostgreSQL: payments/fleet-budget.ts). */
  budget: RpcBudget;
  /** Whether each vendor can receive by QR (its $CLAIM token account exists), cached. */
  payoutAccounts: PayoutAccounts;
  /**
   * The payment watcher's lanes (payments/lanes.ts): the chain clock, the awaited and the hint lane, served by the
   * watcher service; tests serve them themselves.
   */
  lanes: WatchLanes;
  /**
   * Start draining (SIGTERM, main.ts): /api/health/ready answers 503 from now on so the load balancer stops
   * sending traffic, while every request that still comes is served as before. `close()` ends it.
   */
  drain(): void;
  /** True once drain() was called. */
  draining(): boolean;
  /**
   * Hands over the fleet's leases this instance holds (PostgreSQL: the price poller's and the housekeeping's;
   * ops/lease.ts): it stops polling (it serves what the next poller stores) and stops the housekeeping, and another
   * instance takes them at its next try (within 5 s) instead of when they run out. For the drain on SIGTERM;
   * close() does it too. Nothing on SQLite. The payment watcher's lease goes with the watcher's stop.
   */
  releaseLeases(): Promise<void>;
  /** Whether this instance runs the price poller and the housekeeping now (always, on SQLite). */
  leading(): { price: boolean; housekeeping: boolean };
  close(): Promise<void>;
}

export async function startServer(
  settings: Settings,
  overrides: ServerOverrides = {},
): Promise<RunningServer> {
  const catalog = overrides.catalog ?? defaultCatalog;
  const now = overrides.now ?? (() => new Date());
  // MIGRATE_ON_START: migrate here, or refuse a database behind this release (the release step migrates it).
  const store = await openStore(overrides.store ?? settings.database, { migrate: settings.migrateOnStart });
  const cleanups: (() => Promise<void> | void)[] = [() => store.close()];
  const closeAll = async () => {
    for (const fn of cleanups.reverse()) {
      try {
        await fn();
      } catch {
        // keep closing the rest
      }
    }
    cleanups.length = 0;
  };

  try {
    // Stock lines for catalogue products the store does not have yet (existing lines are never overwritten).
    const stock = createStockRepository(store, catalog);
    await stock.seed(catalog, now().toISOString());

    // The chain reads outside the watcher, on one RPC budget for the process (the fleet's on PostgreSQL:
    // payments/chain-reads.ts).
    const { budget, connection, rpc, payoutAccounts, balances, lanes, recentChain } = createChainReads(
      settings,
      {
        store,
        ...(overrides.payoutAccounts ? { payoutAccounts: overrides.payoutAccounts } : {}),
        ...(overrides.walletBalances ? { walletBalances: overrides.walletBalances } : {}),
      },
    );

    const transport = overrides.transport ?? createMailTransport(settings.mail);
    if (!overrides.transport && transport.close) cleanups.push(() => transport.close?.());

    // Personal data is sealed with DATA_KEYS (demo mode: a derived demo key). Rows written before sealing existed
    // are sealed now, before anything is served (idempotent: plain values only; docs/decisions/privacy.md).
    const sealer = createSealer(settings.privacy.dataKeys);

    const outbox: OutboxWorker = createOutboxWorker({
      store,
      transport,
      now,
      sealer,
      // The same on every restart of this instance (host and fixed port), so a restart releases its old leases;
      // with PORT=0 (tests) every life is its own instance.
      instanceId:
        settings.port > 0 ? `${hostname()}:${settings.port}` : `${hostname()}:${process.pid}:${randomUUID()}`,
      onError: (err) => {
        // Redacted: a transport error may quote the recipient's address or the SMTP URL.
        if (overrides.logger) console.warn('outbox:', redactError(err));
      },
      ...overrides.outbox,
    });
    const resolve = overrides.webhooks?.resolve ?? systemResolver;
    const webhooks = createWebhookWorker({
      store,
      sealer,
      settings,
      catalog,
      resolve,
      now,
      instanceId:
        settings.port > 0 ? `${hostname()}:${settings.port}` : `${hostname()}:${process.pid}:${randomUUID()}`,
      onMailQueued: () => outbox.nudge(),
      onError: (err) => {
        if (overrides.logger) console.warn('webhooks:', redactError(err));
      },
      ...overrides.webhooks,
    });
    const orders = createOrderService({
      store,
      catalog,
      stock,
      balances,
      settings,
      now,
      sealer,
      onOutboxChange: () => outbox.nudge(),
      onWebhookQueued: () => webhooks.nudge(),
      // PUBLIC_URL on port 0 (tests) names no real address: the order page links then use the bound URL.
      publicUrl: () => (boundUrl && /:0$/.test(settings.publicUrl) ? boundUrl : settings.publicUrl),
      lanes,
      onError: (err) => console.error('order service:', redactError(err)),
    });
    const sealedAtStart = await orders.sealStoredData({ onlyPlain: true });
    if (sealedAtStart.resealed > 0 || sealedAtStart.unreadable > 0)
      console.log(
        `personal data: sealed ${sealedAtStart.resealed} stored values written before sealing` +
          (sealedAtStart.unreadable ? `; ${sealedAtStart.unreadable} unreadable` : ''),
      );

    // PUBLIC_URL, or the address bound when PUBLIC_URL says port 0 (tests).
    const publicOrigin = () =>
      boundUrl && new URL(settings.publicUrl).port === '0' ? boundUrl : settings.publicUrl;

    // Price: (b)'s service unless a source is injected (price/shop-price.ts; in demo mode it reads our own demo
    // feeds at the address actually bound).
    let boundUrl = '';
    const demoMarket = createDemoMarket();
    // A fleet (PostgreSQL) polls the price and runs the housekeeping on one instance at a time: each is a lease
    // (ops/lease.ts) this instance keeps trying to take; the price's followers serve what the poller stored.
    const fleet = store.dialect === 'postgres';
    const leaseHolder = leaseHolderId();
    const leaseError = (what: string) => (err: unknown) => console.warn(`${what} lease: ${redactError(err)}`);
    const priceLease =
      fleet && !overrides.priceSource
        ? await holdLease({ db: store.db, name: 'price', holder: leaseHolder, onError: leaseError('price') })
        : undefined;
    if (priceLease) cleanups.push(() => priceLease.release());
    const price: PriceService | undefined = overrides.priceSource
      ? undefined
      : createShopPrice({
          db: store.db,
          settings,
          boundUrl: () => boundUrl,
          sealer,
          onAlertQueued: () => outbox.nudge(),
          ...(overrides.logger ? { log: console } : {}),
          ...(priceLease ? { share: createPriceShare(store.db, priceLease) } : {}),
        });
    const priceSource: PriceSource = overrides.priceSource ?? { current: () => price?.current() };

    // Health and metrics: the RPC is checked with one cached getSlot unless a service supplies a better probe.
    const probes: OpsProbes = {
      rpcReachable: createRpcProbe(settings.solana.rpcUrl, {
        fetch: budgetedFetch(budget, { attempts: 1, deadlineMs: 2_000 }),
      }),
    };
    mergeProbes(probes, overrides.probes);
    let draining = false;
    // Readiness waits for the whole start below (the price first of all), not only for the listening socket.
    let started = false;
    const app = await buildApp({
      settings,
      ops: {
        store,
        probes,
        priceSource,
        priceMaxAgeMs: settings.price.maxAgeMs,
        watcherMaxLagSeconds: settings.watcherMaxLagS,
        now,
        draining: () => draining,
        started: () => started,
      },
      // Several instances share one PostgreSQL database: their rate-limit counters live there too.
      ...(store.dialect === 'postgres' ? { rateLimitStore: databaseRateLimitStore(store.db) } : {}),
      catalog,
      ...(overrides.webDir ? { webDir: overrides.webDir } : {}),
      logger: overrides.logger ?? false,
      ...(overrides.logStream ? { logStream: overrides.logStream } : {}),
      health: async () => store.ready() && (await store.ping()),
      plugins: [
        ...apiRoutes({
          settings,
          orders: {
            orders,
            stock,
            payoutAccounts,
            lanes,
            quotes: { catalog, settings, priceSource, now },
            // Reads `probes` at each check: the watcher's probes join them once it starts.
            paymentCheck: createPaymentCheck(probes, { watcherMaxLagSeconds: settings.watcherMaxLagS }),
            transactionRequests: offersTransactionRequests(settings.publicUrl),
          },
          seller: {
            store,
            orders,
            catalog,
            settings,
            now,
            // Its origin is PUBLIC_URL, or the address bound when PUBLIC_URL says port 0.
            origin: () => publicOrigin(),
            stock,
            rpc,
            sealer,
            webhooks: {
              db: store.db,
              sealer,
              policy: { allowPrivate: settings.webhooks.allowPrivate, resolve },
              now,
              onQueued: () => webhooks.nudge(),
            },
          },
          shopLinks: shopPaymentLinks({ db: store.db, settings, catalog, publicUrl: () => publicOrigin() }),
          pay: {
            requests: createPayRequests({ db: store.db, settings, catalog, now }),
            chain: recentChain,
            payoutAccounts,
            origin: () => publicOrigin(),
          },
          ...(price ? { price } : {}),
          demoMarket,
          ...(settings.mail.transport === 'file' && !overrides.transport
            ? { devMailDir: settings.mail.dir }
            : {}),
        }),
        ...(overrides.plugins ?? []).map((p) => async (a: FastifyInstance) => p(a, { orders, store, stock })),
      ],
    });
    cleanups.push(() => app.close());

    let url = '';
    if (overrides.listen === false) await app.ready();
    else url = await listenAt(app, settings);
    boundUrl = url;

    if (price) {
      const p = price;
      await p.start();
      cleanups.push(() => p.stop());
    }
    if (overrides.startOutbox !== false) {
      // Rows this instance claimed before it was killed go out now, not when their lease runs out.
      await outbox.releaseOwnLeases();
      outbox.start();
      const w = outbox;
      cleanups.push(() => w.stop());
    }
    if (overrides.webhooks?.start !== false) {
      // Deliveries this instance held when it was killed go out now, with the same webhook-id.
      await webhooks.releaseOwnLeases();
      webhooks.start();
      const w = webhooks;
      cleanups.push(() => w.stop());
    }
    for (const startService of overrides.services ?? []) {
      const running = await startService({ settings, orders, store, now, url, budget, lanes });
      if (running) {
        cleanups.push(() => running.stop());
        mergeProbes(probes, running.probes);
      }
    }
    let retention: RetentionJob | undefined;
    if (overrides.retention !== false) {
      // Daily, logged (privacy/retention-job.ts); one instance at a time through its lease.
      const job = startRetentionJob({
        store,
        orders,
        now,
        ...(overrides.retention?.everyMs !== undefined ? { everyMs: overrides.retention.everyMs } : {}),
        ...(overrides.retention?.firstAfterMs !== undefined
          ? { firstAfterMs: overrides.retention.firstAfterMs }
          : {}),
      });
      retention = job;
      cleanups.push(() => job.stop());
    }
    const expireEvery = overrides.expireEveryMs ?? 30_000;
    const housekeepingLease =
      fleet && expireEvery > 0
        ? await holdLease({
            db: store.db,
            name: 'housekeeping',
            holder: leaseHolder,
            onError: leaseError('housekeeping'),
          })
        : undefined;
    if (housekeepingLease) cleanups.push(() => housekeepingLease.release());
    if (expireEvery > 0)
      cleanups.push(
        startHousekeeping({
          orders,
          store,
          now,
          everyMs: expireEvery,
          ...(housekeepingLease ? { leading: () => housekeepingLease.held() } : {}),
        }),
      );

    started = true;
    return {
      app,
      url,
      store,
      orders,
      stock,
      outbox,
      webhooks,
      ...(retention ? { retention } : {}),
      ...(price ? { price } : {}),
      transport,
      connection,
      budget,
      payoutAccounts,
      lanes,
      releaseLeases: async () => {
        await Promise.all([priceLease?.release(), housekeepingLease?.release()]);
      },
      leading: () => ({
        price: price !== undefined && (priceLease?.held() ?? true),
        housekeeping: expireEvery > 0 && (housekeepingLease?.held() ?? true),
      }),
      drain: () => {
        draining = true;
      },
      draining: () => draining,
      close: closeAll,
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}
