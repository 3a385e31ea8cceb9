/**
 * The route registration of startServer (./server.ts): every API route module (./http/routes.ts) with the
 * services each one asks for, then the extra plugins a caller passes (payments, tests). Composition only.
 */
import type { FastifyInstance } from 'fastify';
import type { Catalog } from '../core/catalog';
import { apiRoutes, type RoutePlugin } from './http/routes';
import type { OrderService } from './orders/service';
import type { PriceSource } from './orders/quotes';
import { createPayRequests, offersTransactionRequests } from './orders/pay-requests';
import { shopPaymentLinks } from './orders/shop-links';
import { createPaymentCheck } from './ops/dependencies';
import type { OpsProbes } from './ops/probes';
import type { ChainReads } from './payments/chain-reads';
import type { DemoMarket, PriceService } from './price/index';
import type { Sealer } from './privacy/seal';
import type { ServerOverrides } from './server-types';
import type { Settings } from './settings';
import type { StockRepository } from './stock/repository';
import type { Store } from './store/store';
import type { Resolver } from './webhooks/address';
import type { WebhookWorker } from './webhooks/worker';

export interface ServerRouteDeps {
  settings: Settings;
  overrides: ServerOverrides;
  catalog: Catalog;
  now: () => Date;
  store: Store;
  orders: OrderService;
  stock: StockRepository;
  chain: Pick<ChainReads, 'payoutAccounts' | 'lanes' | 'rpc' | 'recentChain' | 'balances'>;
  priceSource: PriceSource;
  price: PriceService | undefined;
  demoMarket: DemoMarket;
  /** Read at each check: the watcher's probes join them once it starts. */
  probes: OpsProbes;
  sealer: Sealer;
  resolve: Resolver;
  webhooks: WebhookWorker;
  /** PUBLIC_URL, or the address bound when PUBLIC_URL says port 0 (tests). */
  publicOrigin: () => string;
}

export function serverRoutes(deps: ServerRouteDeps): RoutePlugin[] {
  const { settings, overrides, catalog, now, store, orders, stock, chain, priceSource, price, sealer } = deps;
  const { payoutAccounts, lanes, rpc, recentChain, balances } = chain;
  const publicOrigin = deps.publicOrigin;
  return [
    ...apiRoutes({
      settings,
      orders: {
        orders,
        stock,
        payoutAccounts,
        lanes,
        balances,
        quotes: { catalog, settings, priceSource, now },
        paymentCheck: createPaymentCheck(deps.probes, { watcherMaxLagSeconds: settings.watcherMaxLagS }),
        transactionRequests: offersTransactionRequests(settings.publicUrl),
      },
      seller: {
        store,
        orders,
        catalog,
        settings,
        now,
        origin: () => publicOrigin(),
        stock,
        rpc,
        sealer,
        webhooks: {
          db: store.db,
          sealer,
          policy: { allowPrivate: settings.webhooks.allowPrivate, resolve: deps.resolve },
          now,
          onQueued: () => deps.webhooks.nudge(),
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
      demoMarket: deps.demoMarket,
      ...(settings.mail.transport === 'file' && !overrides.transport
        ? { devMailDir: settings.mail.dir }
        : {}),
    }),
    ...(overrides.plugins ?? []).map((p) => async (a: FastifyInstance) => p(a, { orders, store, stock })),
  ];
}
