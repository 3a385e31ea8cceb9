/**
 * What startServer (./server.ts) takes and gives: the overrides tests and main.ts pass, and the running server's
 * handle. Types only; server.ts re-exports them.
 */
import type { ChainRpc } from './payments/connection';
import type { FastifyInstance } from 'fastify';
import type { Catalog } from '../core/catalog';
import type { OutboxWorker, OutboxWorkerOptions } from './mail/outbox';
import type { MailTransport } from './mail/types';
import type { PriceSource } from './orders/quotes';
import type { OrderService } from './orders/service';
import type { OpsProbes } from './ops/probes';
import type { RpcBudget } from './payments/budget';
import type { WatchLanes } from './payments/lanes';
import type { PayoutAccounts } from './payments/payout-accounts';
import type { WalletBalances } from './payments/wallet-balances';
import type { PriceService } from './price/index';
import type { RetentionJob } from './privacy/retention-job';
import type { Settings } from './settings';
import type { StockRepository } from './stock/repository';
import type { Store, StoreConfig } from './store/store';
import type { Resolver } from './webhooks/address';
import type { WebhookWorker, WebhookWorkerOptions } from './webhooks/worker';

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
   * budgeted RPC client with a short cache (payments/payout-accounts.ts). Tests without a chain replace it.
   */
  payoutAccounts?: PayoutAccounts;
  /**
   * Buyers' $CLAIM balances for the hold rule (docs/decisions/holds.md). Default: read through the budgeted
   * RPC client with a 10 s cache (payments/wallet-balances.ts).
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
  /** The process's budgeted Solana RPC client (payments/connection.ts): every server RPC call shares its budget. */
  chain: ChainRpc;
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
