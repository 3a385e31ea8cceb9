/**
 * startServer: the whole API in one call, for main.ts and for other engineers' end-to-end tests. Composition
 * only: it opens the store (migrations), makes the services (stock, chain reads, mail and webhook senders
 * (./server-senders.ts), orders, price), builds the app with every route module (./server-routes.ts), starts
 * listening (PORT=0 gives a free port; `url` reports the real one), then starts the background work
 * (./server-background.ts: the price service, the outbox, the webhook sender, the payment watcher, the retention
 * job, the housekeeping timer). `close()` stops everything in reverse order. Its types are in ./server-types.ts.
 */
import { catalog as defaultCatalog } from '../../catalog';
import { buildApp, listenAt } from './app';
import { createMailTransport } from './mail/index';
import { createOrderService } from './orders/service';
import type { PriceSource } from './orders/quotes';
import { createDemoMarket, type PriceService } from './price/index';
import { createShopPrice } from './price/shop-price';
import { holdLease, leaseHolderId } from './ops/lease';
import { createPriceShare } from './price/shared';
import { publicConfig, type Settings } from './settings';
import { openStore } from './store/store';
import { databaseRateLimitStore } from './ops/rate-limit-store';
import { mergeProbes, type OpsProbes } from './ops/probes';
import { createRpcProbe } from './ops/rpc-probe';
import { redactError } from './redact';
import { createSealer } from './privacy/seal';
import { budgetedFetch } from './payments/budget';
import { createChainReads } from './payments/chain-reads';
import { createStockRepository } from './stock/repository';
import { leaseError, startBackground, type Cleanups } from './server-background';
import { serverRoutes } from './server-routes';
import { pageBootData } from './http/boot-page';
import { offersTransactionRequests } from './orders/pay-requests';
import { createSenders } from './server-senders';
import type { RunningServer, ServerOverrides } from './server-types';

export type { RunningServer, RunningService, ServerOverrides } from './server-types';

export async function startServer(
  settings: Settings,
  overrides: ServerOverrides = {},
): Promise<RunningServer> {
  const catalog = overrides.catalog ?? defaultCatalog;
  const now = overrides.now ?? (() => new Date());
  // MIGRATE_ON_START: migrate here, or refuse a database behind this release (the release step migrates it).
  const store = await openStore(overrides.store ?? settings.database, {
    migrate: settings.migrateOnStart,
    warmPool: settings.databasePoolWarm,
    namedStatements: settings.databaseNamedStatements,
  });
  const cleanups: Cleanups = [() => store.close()];
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
    const chain = createChainReads(settings, {
      store,
      ...(overrides.payoutAccounts ? { payoutAccounts: overrides.payoutAccounts } : {}),
      ...(overrides.walletBalances ? { walletBalances: overrides.walletBalances } : {}),
    });
    const { budget, payoutAccounts, balances, lanes } = chain;

    const transport = overrides.transport ?? createMailTransport(settings.mail);
    if (!overrides.transport && transport.close) cleanups.push(() => transport.close?.());

    // Personal data is sealed with DATA_KEYS (demo mode: a derived demo key). Rows written before sealing existed
    // are sealed now, before anything is served (idempotent: plain values only; docs/decisions/privacy.md).
    const sealer = createSealer(settings.privacy.dataKeys);

    const { outbox, webhooks, resolve } = createSenders({
      settings,
      overrides,
      store,
      transport,
      sealer,
      catalog,
      now,
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
      // Each page carries the public config and the current price inline (http/boot-data.ts)…
      boot: {
        config: () => publicConfig(settings),
        ...(price ? { price: () => price.priceResponse() } : {}),
        // …and its own part: the stock of the products it shows, a QR page's first quote (http/boot-page.ts).
        page: pageBootData({
          stock,
          quotes: { catalog, settings, priceSource, now },
          payoutAccounts,
          transactionRequests: offersTransactionRequests(settings.publicUrl),
        }),
      },
      logger: overrides.logger ?? false,
      ...(overrides.logStream ? { logStream: overrides.logStream } : {}),
      health: async () => store.ready() && (await store.ping()),
      plugins: serverRoutes({
        settings,
        overrides,
        catalog,
        now,
        store,
        orders,
        stock,
        chain,
        priceSource,
        price,
        demoMarket,
        probes,
        sealer,
        resolve,
        webhooks,
        publicOrigin,
      }),
    });
    cleanups.push(() => app.close());

    let url = '';
    if (overrides.listen === false) await app.ready();
    else url = await listenAt(app, settings);
    boundUrl = url;

    const { retention, housekeepingLease, expireEvery } = await startBackground(
      {
        settings,
        overrides,
        store,
        orders,
        now,
        url,
        budget,
        lanes,
        probes,
        price,
        outbox,
        webhooks,
        leaseHolder,
      },
      cleanups,
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
      chain: chain.chain,
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
