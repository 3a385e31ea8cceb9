/**
 * Prometheus metrics (prom-client) for GET /metrics, one registry per app (tests run several servers in one
 * process). Request latency is observed on every response; the rest is read at scrape time from the store and
 * the probes, so the figures are the same on every instance sharing a database (orders, payments, outbox) or are
 * this process's own (RPC counters, watcher lag, price age, process metrics).
 *
 * Names follow Prometheus's conventions, so stock dashboards and alerts work: the client library's default
 * process and Node.js series under their standard names (`process_*`, `nodejs_*`, no prefix), only counters end
 * in `_total` (the library's three `nodejs_active_*_total` gauges are dropped: each is the sum of the labelled
 * `nodejs_active_*` gauge beside it), and a value that does not exist yet is absent rather than a sentinel (no
 * price yet, no watcher: the series has no sample).
 */
import { sql } from 'kysely';
import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry,
  type MetricObjectWithValues,
  type MetricValue,
} from 'prom-client';
import type { PriceSource } from '../orders/quotes';
import type { Store } from '../store/store';
import { unreadableSummaryOf } from '../payments/scan-store';
import { outboxBacklog, priceAgeSeconds } from './health';
import type { OpsProbes } from './probes';

export interface MetricsDeps {
  store: Store;
  probes: OpsProbes;
  priceSource?: PriceSource;
  now: () => Date;
}

export interface Metrics {
  registry: Registry;
  observeRequest(method: string, route: string, status: number, seconds: number): void;
}

/** Gauges of the default metrics whose names end in `_total` (Prometheus keeps that suffix for counters). */
const DROPPED_DEFAULTS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/** An unlabelled gauge with no sample while its value does not exist (instead of a sentinel such as -1). */
class OptionalGauge extends Gauge {
  constructor(
    config: { name: string; help: string; registers: Registry[] },
    private readonly read: () => number | null | undefined | Promise<number | null | undefined>,
  ) {
    super(config);
  }

  override async get(): Promise<MetricObjectWithValues<MetricValue<string>>> {
    const value = await this.read();
    const metric = await super.get();
    return { ...metric, values: value === undefined || value === null ? [] : [{ value, labels: {} }] };
  }
}

export function createMetrics(deps: MetricsDeps): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const name of DROPPED_DEFAULTS) registry.removeSingleMetric(name);

  const http = new Histogram({
    name: 'claim_http_request_duration_seconds',
    help: 'HTTP request latency by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });

  new Gauge({
    name: 'claim_orders',
    help: 'Orders in the store by status.',
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const rows = await deps.store.db
        .selectFrom('orders')
        .select(['status', sql<number | string>`count(*)`.as('n')])
        .groupBy('status')
        .execute();
      for (const r of rows) this.set({ status: r.status }, Number(r.n));
    },
  });

  new Gauge({
    name: 'claim_payments_recorded',
    help: 'Verified transfers recorded in the payment ledger.',
    registers: [registry],
    async collect() {
      const row = await deps.store.db
        .selectFrom('payments')
        .select(sql<number | string>`count(*)`.as('n'))
        .executeTakeFirst();
      this.set(Number(row?.n ?? 0));
    },
  });

  new Gauge({
    name: 'claim_payments_unreadable',
    help: 'Transactions the payment watcher set aside because it could not read them (docs/decisions/transaction-versions.md).',
    registers: [registry],
    async collect() {
      this.set((await unreadableSummaryOf(deps.store.db)).count);
    },
  });

  const outboxGauge = new Gauge({
    name: 'claim_outbox_backlog',
    help: 'E-mails waiting in the outbox (pending or retrying).',
    registers: [registry],
  });
  new Gauge({
    name: 'claim_outbox_oldest_age_seconds',
    help: 'Age of the oldest e-mail waiting in the outbox (0 when none waits).',
    registers: [registry],
    async collect() {
      const b = await outboxBacklog(deps.store, deps.now());
      outboxGauge.set(b.backlog);
      this.set(b.oldestAgeSeconds ?? 0);
    },
  });

  new OptionalGauge(
    {
      name: 'claim_price_age_seconds',
      help: 'Age of the last good $CLAIM price (no sample before the first).',
      registers: [registry],
    },
    () => priceAgeSeconds(deps.priceSource, deps.now()),
  );

  new Counter({
    name: 'claim_rpc_requests_total',
    help: 'Solana JSON-RPC requests sent by this process.',
    registers: [registry],
    collect() {
      const stats = deps.probes.rpcStats?.();
      this.reset();
      if (stats) this.inc(stats.requests);
    },
  });
  new Counter({
    name: 'claim_rpc_rate_limited_total',
    help: 'Solana JSON-RPC requests answered with HTTP 429.',
    registers: [registry],
    collect() {
      const stats = deps.probes.rpcStats?.();
      this.reset();
      if (stats) this.inc(stats.rateLimited);
    },
  });
  new OptionalGauge(
    {
      name: 'claim_watcher_lag_seconds',
      help: 'Seconds since the payment watcher last caught up with the vendor token accounts (the holder of the watch; no sample without a watcher).',
      registers: [registry],
    },
    async () => (await deps.probes.watcherLag?.().catch(() => undefined))?.lagSeconds,
  );
  new Gauge({
    name: 'claim_watcher_catching_up',
    help: '1 while this instance holds the payment watch and has not caught up once since it took it (a fresh instance catching up).',
    registers: [registry],
    async collect() {
      const lag = await deps.probes.watcherLag?.().catch(() => undefined);
      this.set(lag?.catchUp?.catchingUp ? 1 : 0);
    },
  });
  new OptionalGauge(
    {
      name: 'claim_watcher_catch_up_behind_seconds',
      help: 'While the payment watcher catches up: how far behind the chain it is, in seconds (no sample otherwise).',
      registers: [registry],
    },
    async () => {
      const c = (await deps.probes.watcherLag?.().catch(() => undefined))?.catchUp;
      return c?.catchingUp ? c.behindSeconds : undefined;
    },
  );
  new Gauge({
    name: 'claim_watcher_watching',
    help: '1 when this instance holds the payment watch (one instance does on a shared PostgreSQL database).',
    registers: [registry],
    async collect() {
      const lag = await deps.probes.watcherLag?.().catch(() => undefined);
      this.set(lag?.watching ? 1 : 0);
    },
  });
  new Gauge({
    name: 'claim_rpc_up',
    help: '1 when the Solana RPC answered the last check (getSlot, cached a few seconds).',
    registers: [registry],
    async collect() {
      this.set(deps.probes.rpcReachable ? ((await deps.probes.rpcReachable()) ? 1 : 0) : 1);
    },
  });

  return {
    registry,
    observeRequest(method, route, status, seconds) {
      http.observe({ method, route, status_code: String(status) }, seconds);
    },
  };
}
