/**
 * Operations against the real server (startServer: SQLite file or PostgreSQL, the localnet as the RPC, the price
 * service on the demo feed): health (live; ready = the database, started and not draining, 200 while the RPC is stopped
 * and buyers still quote and order; the dependency report saying the RPC and the watcher are failing),
 * Prometheus metrics (text format, token outside demo mode), /_prerender/* answering 404, the QR route's byte
 * check and rate limit, rate limits on writing routes with 429 + Retry-After (shared by two instances on
 * PostgreSQL; client IP behind a proxy with TRUST_PROXY), the slow-body timeout, and no key in /api/config.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { startLocalnet, type Localnet } from '../support/localnet';
import { paymentsService } from '../../src/server/payments/index';
import { startServer, type RunningServer } from '../../src/server/server';
import { loadSettings, type Settings } from '../../src/server/settings';
import type { StoreConfig } from '../../src/server/store/store';
import parsePrometheusTextFormat, { type PromFamily } from 'parse-prometheus-text-format';
import { INTERNATIONAL_SHIPPING, TEST_DATA_KEYS } from '../support/fixtures';
import { fakeSignature, postgresBackend, sqliteBackend } from './orders-support';

const sqlite = sqliteBackend();
const postgres = postgresBackend();
const running: { close(): Promise<void> }[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const r of running.splice(0).reverse()) await r.close().catch(() => undefined);
});
afterAll(async () => {
  await sqlite.cleanup();
  await postgres.cleanup();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function localnet(port = 0): Promise<Localnet> {
  const l = await startLocalnet({ port, slotMs: 200 });
  running.push(l);
  return l;
}

function demoSettings(net: Localnet, env: Record<string, string> = {}): Settings {
  const k = net.keys;
  if (!k) throw new Error('localnet without keys');
  const dir = mkdtempSync(join(tmpdir(), 'claim-ops-'));
  dirs.push(dir);
  return loadSettings(
    { PORT: '0', LOCALNET_PORT: String(net.port), MAIL_DIR: join(dir, 'mail'), ...env },
    {
      claimMint: k.mint.toBase58(),
      recipients: {
        coopersglass: k.recipients.coopersglass.toBase58(),
        gorilla: k.recipients.gorilla.toBase58(),
      },
    },
  );
}

async function server(
  settings: Settings,
  store?: StoreConfig,
  extra: Parameters<typeof startServer>[1] = {},
): Promise<RunningServer> {
  const s = await startServer(settings, {
    store: store ?? (await sqlite.fresh()),
    expireEveryMs: 0,
    ...extra,
  });
  running.push(s);
  return s;
}

/** Polls `fn` until it returns a value or the deadline passes (no fixed sleeps). */
async function until<T>(fn: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('condition not met before the deadline');
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface DepsBody {
  status: 'ok' | 'degraded' | 'failing';
  parts: Record<
    'rpc' | 'watcher' | 'price' | 'mail' | 'webhooks',
    { status: string; detail: string } & Record<string, unknown>
  >;
}
async function depsBody(url: string): Promise<DepsBody> {
  const r = await fetch(`${url}/api/health/deps`);
  expect(r.status).toBe(200);
  return (await r.json()) as DepsBody;
}

describe('health', () => {
  it('ready is the database and draining only: the RPC stopped keeps it 200 while deps says rpc failing, and buyers still quote and order', async () => {
    const net = await localnet();
    const port = net.port;
    const s = await server(demoSettings(net));
    const ready = () => fetch(`${s.url}/api/health/ready`);

    const first = await ready();
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({
      ok: true,
      parts: { database: { ok: true }, started: { ok: true }, draining: { ok: true } },
    });
    // Every outside service, part by part, with a status and a plain detail.
    const up = await until(async () => {
      const d = await depsBody(s.url);
      return d.parts.price.status === 'ok' ? d : undefined; // the first price refresh may still be in flight
    });
    expect(Object.keys(up.parts).sort()).toEqual(['mail', 'price', 'rpc', 'watcher', 'webhooks']);
    expect(up.status).toBe('ok');
    expect(up.parts.rpc).toEqual({ status: 'ok', detail: 'The Solana RPC answers.' });
    expect(up.parts.mail).toMatchObject({ status: 'ok', backlog: 0, detail: 'No e-mail waiting.' });
    expect(up.parts.watcher).toMatchObject({ status: 'ok', lagSeconds: null, unreadable: { count: 0 } });
    expect(up.parts.webhooks).toMatchObject({ status: 'ok', detail: 'No webhook endpoints.', waiting: 0 });

    await net.close();
    const down = await until(async () => {
      const d = await depsBody(s.url);
      return d.parts.rpc.status === 'failing' ? d : undefined;
    });
    expect(down.status).toBe('failing');
    expect(down.parts.rpc.detail).toMatch(/does not answer.*Buyers can still browse and order/);
    // Readiness and liveness do not depend on the RPC: the instance stays in rotation.
    for (let i = 0; i < 5; i++) {
      expect((await ready()).status).toBe(200);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect((await fetch(`${s.url}/api/health/live`)).status).toBe(200);
    // Buyers keep browsing and ordering: the catalogue, a quote at the stored price, an order.
    expect((await fetch(`${s.url}/api/catalog`)).status).toBe(200);
    const q = await fetch(`${s.url}/api/quotes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ items: [{ productId: 'lilac-tiptop', quantity: 1 }] }),
    });
    expect(q.status).toBe(200);
    const { quote } = (await q.json()) as { quote: string };
    const o = await fetch(`${s.url}/api/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'rpc-down-1' },
      body: JSON.stringify({ quote, shipping: INTERNATIONAL_SHIPPING, paymentMethod: 'wallet' }),
    });
    expect(o.status, await o.clone().text()).toBe(201);
    const { orderId } = (await o.json()) as { orderId: string };
    // The order's status says in plain words that payments cannot be seen right now.
    const status = await until(async () => {
      const r = (await (await fetch(`${s.url}/api/orders/${orderId}`)).json()) as Record<string, unknown>;
      return r.paymentCheck === 'delayed' ? r : undefined;
    });
    expect(status.status).toBe('awaiting_payment');

    await localnet(port);
    await until(async () => ((await depsBody(s.url)).parts.rpc.status === 'ok' ? true : undefined));
    const after = await until(async () => {
      const r = (await (await fetch(`${s.url}/api/orders/${orderId}`)).json()) as Record<string, unknown>;
      return r.paymentCheck === undefined ? r : undefined;
    });
    expect(after.status).toBe('awaiting_payment');
  }, 60_000);

  it('readiness waits for the end of the start: 503 "still starting" while it starts (the price loaded first), 200 after', async () => {
    const net = await localnet();
    let during: { status: number; body: unknown; price: number } | undefined;
    const s = await server(demoSettings(net), undefined, {
      // A service starts last: the socket listens, the price has started, the start is not over yet.
      services: [
        async ({ url }) => {
          const r = await fetch(`${url}/api/health/ready`);
          during = {
            status: r.status,
            body: await r.json(),
            price: (await fetch(`${url}/api/price`)).status,
          };
        },
      ],
    });
    expect(during).toEqual({
      status: 503,
      body: {
        ok: false,
        error: 'not_ready',
        message: 'Not ready: this instance is still starting.',
        failing: ['started'],
        parts: { database: { ok: true }, started: { ok: false }, draining: { ok: true } },
      },
      price: 200,
    });
    expect((await fetch(`${s.url}/api/health/ready`)).status).toBe(200);
  });

  it('draining turns ready 503 at once, naming it, while every other route still answers', async () => {
    const net = await localnet();
    const s = await server(demoSettings(net));
    expect((await fetch(`${s.url}/api/health/ready`)).status).toBe(200);
    s.drain();
    const r = await fetch(`${s.url}/api/health/ready`);
    expect(r.status).toBe(503);
    expect(await r.json()).toEqual({
      ok: false,
      error: 'not_ready',
      message: 'Not ready: this instance is shutting down.',
      failing: ['draining'],
      parts: { database: { ok: true }, started: { ok: true }, draining: { ok: false } },
    });
    expect((await fetch(`${s.url}/api/health/live`)).status).toBe(200);
    expect((await fetch(`${s.url}/api/catalog`)).status).toBe(200);
  });
});

/** The payment watcher as main.ts starts it, sweeping every 300 ms (so a 2 s lag threshold means a real stall). */
const watching: NonNullable<Parameters<typeof startServer>[1]>['services'] = [
  paymentsService({
    leaseMs: 1_500,
    rpcTimeoutMs: 1_000, // a pass against a stopped RPC fails within about a second
    watcher: { sweepIntervalMs: 300, pollIntervalMs: 300 },
  }),
];

interface WatcherPart {
  status: 'ok' | 'degraded' | 'failing';
  detail: string;
  lagSeconds: number | null;
  maxLagSeconds: number;
  watching: boolean | null;
  caughtUpAt: string | null;
}

async function watcherPart(url: string): Promise<WatcherPart> {
  return (await depsBody(url)).parts.watcher as unknown as WatcherPart;
}
const readyStatus = async (url: string) => (await fetch(`${url}/api/health/ready`)).status;

/** /metrics read by an independent Prometheus text-format parser. */
async function scrape(url: string): Promise<Map<string, PromFamily>> {
  const r = await fetch(`${url}/metrics`);
  expect(r.status).toBe(200);
  return new Map(parsePrometheusTextFormat(await r.text()).map((f) => [f.name, f]));
}

/** The value of an unlabelled gauge or counter; undefined when the family has no sample (absent). */
async function sample(url: string, name: string): Promise<number | undefined> {
  const family = (await scrape(url)).get(name);
  if (!family) throw new Error(`${name} missing from /metrics`);
  const value = family.metrics[0]?.value;
  return value === undefined ? undefined : Number(value);
}
const metric = async (url: string, name: string): Promise<number> => {
  const value = await sample(url, name);
  if (value === undefined) throw new Error(`${name} has no sample`);
  return value;
};

describe('watcher lag', () => {
  it('deps says the watcher is failing when it stops catching up (RPC stopped) while ready stays 200, ok when it catches up again; the lag is a metric', async () => {
    const net = await localnet();
    const port = net.port;
    const s = await server(demoSettings(net, { WATCHER_MAX_LAG_S: '2' }), undefined, { services: watching });

    const up = await until(async () => {
      const w = await watcherPart(s.url);
      return w.status === 'ok' && w.caughtUpAt ? w : undefined;
    });
    expect(up).toMatchObject({ watching: true, maxLagSeconds: 2 });
    expect(up.detail).toMatch(/^Caught up \d+ s ago\.$/);
    expect(up.lagSeconds).toBeLessThanOrEqual(2);
    expect(await metric(s.url, 'claim_watcher_watching')).toBe(1);
    const lagUp = await metric(s.url, 'claim_watcher_lag_seconds');
    expect(lagUp).toBeGreaterThanOrEqual(0);
    expect(lagUp).toBeLessThanOrEqual(2);

    await net.close();
    const down = await until(async () => {
      const w = await watcherPart(s.url);
      return w.status === 'failing' ? w : undefined;
    });
    expect(down.lagSeconds).toBeGreaterThan(2);
    expect(down.detail).toMatch(
      /^Last caught up \d+ s ago \(the limit is 2 s\): payments are not being seen/,
    );
    expect(await readyStatus(s.url)).toBe(200);
    // The last catch-up stays where it was: nothing new was judged while the RPC was away.
    expect(down.caughtUpAt).not.toBeNull();
    expect(Date.parse(down.caughtUpAt ?? '')).toBeLessThan(Date.now() - 2_000);
    expect(await metric(s.url, 'claim_watcher_lag_seconds')).toBeGreaterThan(2);
    // Passes keep failing (each within about a second): the lag keeps growing from the same last catch-up.
    const later = await until(async () => {
      const w = await watcherPart(s.url);
      return w.lagSeconds !== null && w.lagSeconds >= (down.lagSeconds ?? 0) + 4 ? w : undefined;
    });
    expect(later.status).toBe('failing');
    expect(later.caughtUpAt).toBe(down.caughtUpAt);
    expect(await readyStatus(s.url)).toBe(200);

    await localnet(port);
    const back = await until(async () => {
      const w = await watcherPart(s.url);
      return w.status === 'ok' ? w : undefined;
    });
    expect(back.lagSeconds).toBeLessThanOrEqual(2);
    expect(Date.parse(back.caughtUpAt ?? '')).toBeGreaterThan(Date.parse(down.caughtUpAt ?? ''));
    expect(await metric(s.url, 'claim_watcher_lag_seconds')).toBeLessThanOrEqual(2);
  }, 90_000);

  it('without a payment watcher in the process the part is ok with no lag, and the lag gauge has no sample', async () => {
    const net = await localnet();
    const s = await server(demoSettings(net));
    expect(await watcherPart(s.url)).toEqual({
      status: 'ok',
      detail: 'No payment watcher runs in this process.',
      lagSeconds: null,
      maxLagSeconds: 60,
      watching: null,
      caughtUpAt: null,
      behindTransfers: null,
      catchingUp: null,
      catchUpBehindSeconds: null,
      unreadable: { count: 0, lastAt: null },
    });
    // No watcher progress to report: the series is there without a sample (no -1 sentinel).
    expect(await sample(s.url, 'claim_watcher_lag_seconds')).toBeUndefined();
  });
});

describe('metrics', () => {
  it('serves the Prometheus text format in demo mode: latency, orders, outbox, price age, RPC', async () => {
    const net = await localnet();
    const s = await server(demoSettings(net));
    await fetch(`${s.url}/api/health/live`);
    const r = await fetch(`${s.url}/metrics`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await r.text();
    // Read by an independent parser (parse-prometheus-text-format, prom2json's output shape): it throws on a
    // malformed line; every family is typed, and every name and value is a valid one.
    const families = parsePrometheusTextFormat(text);
    const byName = new Map(families.map((f) => [f.name, f]));
    expect(byName.size).toBe(families.length);
    for (const f of families) {
      expect(f.name).toMatch(/^[a-zA-Z_:][a-zA-Z0-9_:]*$/);
      expect(f.type, f.name).not.toBe('UNTYPED');
      expect(f.help, f.name).not.toBe('');
      // Only counters end in _total, and every counter does.
      expect(f.name.endsWith('_total'), `${f.name} is a ${f.type}`).toBe(f.type === 'COUNTER');
      for (const m of f.metrics) {
        const values = [m.value, m.count, m.sum, ...Object.values(m.buckets ?? {})].filter(
          (v) => v !== undefined,
        );
        for (const v of values) {
          // A Go float (NaN: prom-client's event-loop lag mean before its first sample); never a -1 sentinel.
          expect(v, f.name).toMatch(/^(-?[0-9.]+(e[+-]?[0-9]+)?|nan|[+-]inf)$/i);
          if (!f.name.startsWith('nodejs_') && !f.name.startsWith('process_'))
            expect(Number(v), `${f.name} ${v}`).toBeGreaterThanOrEqual(0);
        }
      }
    }
    // The client library's default series under their standard names, so stock dashboards find them.
    const type = (name: string) => byName.get(name)?.type;
    expect({
      process_cpu_seconds_total: type('process_cpu_seconds_total'),
      process_resident_memory_bytes: type('process_resident_memory_bytes'),
      process_start_time_seconds: type('process_start_time_seconds'),
      process_open_fds: type('process_open_fds'),
      nodejs_heap_size_used_bytes: type('nodejs_heap_size_used_bytes'),
      nodejs_eventloop_lag_seconds: type('nodejs_eventloop_lag_seconds'),
      nodejs_active_handles: type('nodejs_active_handles'),
      nodejs_gc_duration_seconds: type('nodejs_gc_duration_seconds'),
      nodejs_version_info: type('nodejs_version_info'),
    }).toEqual({
      process_cpu_seconds_total: 'COUNTER',
      process_resident_memory_bytes: 'GAUGE',
      process_start_time_seconds: 'GAUGE',
      process_open_fds: 'GAUGE',
      nodejs_heap_size_used_bytes: 'GAUGE',
      nodejs_eventloop_lag_seconds: 'GAUGE',
      nodejs_active_handles: 'GAUGE',
      nodejs_gc_duration_seconds: 'HISTOGRAM',
      nodejs_version_info: 'GAUGE',
    });
    expect(families.filter((f) => !/^(process|nodejs|claim)_/.test(f.name)).map((f) => f.name)).toEqual([]);
    expect(families.filter((f) => f.name.startsWith('claim_process')).map((f) => f.name)).toEqual([]);
    // The store's own series, with their types.
    expect(
      Object.fromEntries(families.filter((f) => f.name.startsWith('claim_')).map((f) => [f.name, f.type])),
    ).toEqual({
      claim_http_request_duration_seconds: 'HISTOGRAM',
      claim_orders: 'GAUGE',
      claim_payments_recorded: 'GAUGE',
      claim_payments_unreadable: 'GAUGE',
      claim_outbox_backlog: 'GAUGE',
      claim_outbox_oldest_age_seconds: 'GAUGE',
      claim_price_age_seconds: 'GAUGE',
      claim_rpc_requests_total: 'COUNTER',
      claim_rpc_rate_limited_total: 'COUNTER',
      claim_watcher_lag_seconds: 'GAUGE',
      claim_watcher_catching_up: 'GAUGE',
      claim_watcher_catch_up_behind_seconds: 'GAUGE',
      claim_watcher_watching: 'GAUGE',
      claim_rpc_up: 'GAUGE',
    });
    const one = (name: string) => byName.get(name)!.metrics.map((m) => m.value);
    expect(one('claim_outbox_backlog')).toEqual(['0']);
    expect(one('claim_payments_recorded')).toEqual(['0']);
    expect(one('claim_payments_unreadable')).toEqual(['0']);
    expect(one('claim_rpc_up')).toEqual(['1']);
    // No payment watcher in this process: the lag is absent (not -1).
    expect(one('claim_watcher_lag_seconds')).toEqual([]);
    expect(one('claim_watcher_catching_up')).toEqual(['0']);
    expect(one('claim_watcher_catch_up_behind_seconds')).toEqual([]);
    // The parser folds a labelled histogram's series into one (a limit of prom2json's shape): the request's own
    // series is read from the text, whose every line the parser has accepted above.
    expect(text).toMatch(
      /^claim_http_request_duration_seconds_count\{method="GET",route="\/api\/health\/live",status_code="200"\} 1$/m,
    );
  });

  it('has no price age before the first price (absent, not -1), then the age', async () => {
    const net = await localnet();
    const feed: { price?: { priceUsd: string; fetchedAt: Date } } = {};
    const s = await server(demoSettings(net), undefined, { priceSource: { current: () => feed.price } });
    expect(await sample(s.url, 'claim_price_age_seconds')).toBeUndefined();
    feed.price = { priceUsd: '0.5', fetchedAt: new Date(Date.now() - 3000) };
    const age = await metric(s.url, 'claim_price_age_seconds');
    expect(age).toBeGreaterThanOrEqual(3);
    expect(age).toBeLessThan(60);
  });

  it('outside demo mode /metrics needs the METRICS_TOKEN bearer token', async () => {
    const net = await localnet();
    const k = net.keys!;
    const settings = loadSettings({
      PORT: '0',
      DATA_KEYS: TEST_DATA_KEYS,
      SOLANA_RPC_URL: net.rpcUrl,
      MIGRATE_ON_START: '1', // a fresh store per test: migrated at start (the release step: migrate.test.ts)
      SOLANA_CLUSTER: 'localnet',
      PRICE_API_URL: 'http://127.0.0.1:9',
      QUOTE_SECRET: 'q'.repeat(40),
      SELLER_EMAIL: 'seller@shop.test',
      CLAIM_MINT: k.mint.toBase58(),
      RECIPIENT_COOPERSGLASS: k.recipients.coopersglass.toBase58(),
      RECIPIENT_GORILLA: k.recipients.gorilla.toBase58(),
      METRICS_TOKEN: 'metrics-token-0123456789',
      MAIL_TRANSPORT: 'file',
      MAIL_DIR: join(mkdtempSync(join(tmpdir(), 'claim-ops-')), 'mail'),
    });
    const s = await server(settings, undefined, {
      priceSource: { current: () => ({ priceUsd: '0.5', fetchedAt: new Date() }) },
    });
    expect((await fetch(`${s.url}/metrics`)).status).toBe(401);
    expect(
      (await fetch(`${s.url}/metrics`, { headers: { authorization: 'Bearer wrong-token-0123456789' } }))
        .status,
    ).toBe(401);
    const ok = await fetch(`${s.url}/metrics`, {
      headers: { authorization: 'Bearer metrics-token-0123456789' },
    });
    expect(ok.status).toBe(200);
    expect(parsePrometheusTextFormat(await ok.text()).find((f) => f.name === 'claim_orders')?.type).toBe(
      'GAUGE',
    );
  });
});

describe('the HTTP edge', () => {
  it('/_prerender/* answers 404 however it is spelled; pages still come from it', async () => {
    const net = await localnet();
    const web = mkdtempSync(join(tmpdir(), 'claim-web-'));
    dirs.push(web);
    mkdirSync(join(web, '_prerender'));
    writeFileSync(join(web, 'index.html'), '<!doctype html><title>shell</title>');
    writeFileSync(join(web, '_prerender', 'home.html'), '<!doctype html><title>home page</title>');
    writeFileSync(join(web, '_prerender', '404.html'), '<!doctype html><title>not found page</title>');
    writeFileSync(
      join(web, '_prerender', 'manifest.json'),
      JSON.stringify({ pages: { '/': 'home.html' }, notFound: '404.html' }),
    );
    const s = await server(demoSettings(net), undefined, { webDir: web });
    for (const path of [
      '/_prerender/manifest.json',
      '/_prerender/home.html',
      '/_PRERENDER/home.html',
      '/%5Fprerender/home.html',
      '/x/../_prerender/404.html',
    ]) {
      const r = await fetch(`${s.url}${path}`);
      expect(r.status, path).toBe(404);
      expect(await r.text(), path).not.toContain('"pages"');
    }
    const home = await fetch(`${s.url}/`);
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('home page');
  });

  it('qr.svg: 400 when the link cannot fit in a QR code; rate limited with 429 and Retry-After', async () => {
    const net = await localnet();
    const s = await server(demoSettings(net, { RATE_LIMIT_QR_PER_MINUTE: '3' }));
    const tooBig = `solana:${'€'.repeat(1017)}`;
    const r = await fetch(`${s.url}/api/qr.svg?data=${encodeURIComponent(tooBig)}`);
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({ error: 'bad_request', field: 'data' });
    // Not the shop's own link: refused in words (qr-route.test.ts draws the shop's).
    const ok = await fetch(`${s.url}/api/qr.svg?data=${encodeURIComponent('solana:abc')}`);
    expect(ok.status).toBe(400);
    expect(await ok.json()).toMatchObject({ error: 'not_a_shop_payment_link' });
    await fetch(`${s.url}/api/qr.svg?data=${encodeURIComponent('solana:abd')}`);
    const limited = await fetch(`${s.url}/api/qr.svg?data=${encodeURIComponent('solana:abe')}`);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await limited.json()).toMatchObject({ error: 'rate_limited' });
  });

  it('every writing route is rate limited (429, Retry-After); reads are not', async () => {
    const net = await localnet();
    const s = await server(demoSettings(net, { RATE_LIMIT_ORDERS_PER_MINUTE: '2' }));
    const post = (path: string) =>
      fetch(`${s.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
    for (const path of [
      '/api/quotes',
      '/api/orders',
      '/api/orders/00000000-0000-4000-8000-000000000000/payment',
      '/api/orders/00000000-0000-4000-8000-000000000000/confirmation',
    ]) {
      const statuses = [(await post(path)).status, (await post(path)).status];
      expect(statuses, path).not.toContain(429);
      const third = await post(path);
      expect(third.status, path).toBe(429);
      expect(Number(third.headers.get('retry-after')), path).toBeGreaterThan(0);
    }
    for (let i = 0; i < 5; i++) expect((await fetch(`${s.url}/api/catalog`)).status).toBe(200);
  });

  it('the seller sign-in routes have their own limit (429, Retry-After), tighter than the general one', async () => {
    const net = await localnet();
    // The general limit stays at its default (120/min): only the sign-in limit can refuse here.
    const s = await server(demoSettings(net, { RATE_LIMIT_SELLER_AUTH_PER_MINUTE: '2' }));
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${s.url}${path}`, {
        method,
        ...(body === undefined
          ? {}
          : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      });
    const routes: [string, string, unknown?][] = [
      ['GET', '/api/seller/nonce'],
      ['POST', '/api/seller/session', { message: 'x', signature: 'eA==' }],
      ['POST', '/api/seller/demo-session', { vendorId: 'coopersglass' }],
    ];
    for (const [method, path, body] of routes) {
      const first = [(await call(method, path, body)).status, (await call(method, path, body)).status];
      expect(first, path).not.toContain(429);
      const third = await call(method, path, body);
      expect(third.status, path).toBe(429);
      expect(Number(third.headers.get('retry-after')), path).toBeGreaterThan(0);
      expect(await third.json(), path).toMatchObject({ error: 'rate_limited' });
    }
    // Each route has its own window, and the rest of the API is untouched by them.
    expect((await call('POST', '/api/quotes', {})).status).not.toBe(429);
  });

  it('TRUST_PROXY: behind a proxy each forwarded client has its own limit; without it the header is ignored', async () => {
    const net = await localnet();
    const quote = (url: string, ip: string) =>
      fetch(`${url}/api/quotes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
        body: '{}',
      });
    const direct = await server(demoSettings(net, { RATE_LIMIT_ORDERS_PER_MINUTE: '1' }));
    expect((await quote(direct.url, '203.0.113.1')).status).not.toBe(429);
    expect((await quote(direct.url, '203.0.113.2')).status).toBe(429); // same socket address

    const proxied = await server(
      demoSettings(net, { RATE_LIMIT_ORDERS_PER_MINUTE: '1', TRUST_PROXY: 'true' }),
    );
    expect((await quote(proxied.url, '203.0.113.1')).status).not.toBe(429);
    expect((await quote(proxied.url, '203.0.113.2')).status).not.toBe(429);
    expect((await quote(proxied.url, '203.0.113.1')).status).toBe(429);
  });

  it('TRUST_PROXY hop count: the client is the address the proxy saw (earlier hops are the client’s own words); IPv6 counts by /64', async () => {
    const net = await localnet();
    const quote = (url: string, forwarded: string) =>
      fetch(`${url}/api/quotes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': forwarded },
        body: '{}',
      });
    const s = await server(demoSettings(net, { RATE_LIMIT_ORDERS_PER_MINUTE: '1', TRUST_PROXY: '1' }));
    // What a client writes before the proxy's own entry changes nothing.
    expect((await quote(s.url, '198.51.100.7, 203.0.113.1')).status).not.toBe(429);
    expect((await quote(s.url, '198.51.100.8, 203.0.113.1')).status).toBe(429);
    // One IPv6 /64 is one client, whatever its low 64 bits; the next /64 is another.
    expect((await quote(s.url, '2001:db8:1:2::1')).status).not.toBe(429);
    expect((await quote(s.url, '2001:db8:1:2:ffff:3:2:1')).status).toBe(429);
    expect((await quote(s.url, '2001:db8:1:3::1')).status).not.toBe(429);
  });

  it('cuts a request whose body arrives too slowly (408) and never runs the route', async () => {
    const net = await localnet();
    const s = await server(demoSettings(net, { REQUEST_TIMEOUT_MS: '2000' }));
    const { hostname, port } = new URL(s.url);
    const started = Date.now();
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => {
        socket.write(
          'POST /api/quotes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
        );
        const drip = setInterval(() => socket.write(' '), 200);
        let got = '';
        socket.on('data', (d) => (got += d.toString()));
        socket.on('close', () => {
          clearInterval(drip);
          resolve(got);
        });
        socket.on('error', (e) => {
          clearInterval(drip);
          reject(e);
        });
      });
    });
    const elapsed = Date.now() - started;
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(elapsed).toBeLessThan(15_000); // 2 s timeout, checked every second: well inside this bound
  }, 30_000);

  it('the default request timeout is 30 s', async () => {
    const net = await localnet();
    expect(demoSettings(net).requestTimeoutMs).toBe(30_000);
  });

  it("/api/config gives the browser its own RPC URL, never the server's key", async () => {
    const net = await localnet();
    const k = net.keys!;
    const settings = loadSettings({
      PORT: '0',
      DATA_KEYS: TEST_DATA_KEYS,
      SOLANA_RPC_URL: `${net.rpcUrl}/?api-key=SERVER-KEY-5f2b9c`,
      MIGRATE_ON_START: '1', // a fresh store per test: migrated at start (the release step: migrate.test.ts)
      SOLANA_BROWSER_RPC_URL: net.rpcUrl,
      SOLANA_CLUSTER: 'localnet',
      PRICE_API_URL: 'http://127.0.0.1:9',
      QUOTE_SECRET: 'q'.repeat(40),
      SELLER_EMAIL: 'seller@shop.test',
      CLAIM_MINT: k.mint.toBase58(),
      RECIPIENT_COOPERSGLASS: k.recipients.coopersglass.toBase58(),
      RECIPIENT_GORILLA: k.recipients.gorilla.toBase58(),
      MAIL_TRANSPORT: 'file',
      MAIL_DIR: join(mkdtempSync(join(tmpdir(), 'claim-ops-')), 'mail'),
    });
    const s = await server(settings, undefined, {
      priceSource: { current: () => ({ priceUsd: '0.5', fetchedAt: new Date() }) },
    });
    const r = await fetch(`${s.url}/api/config`);
    const text = await r.text();
    expect(text).not.toContain('SERVER-KEY-5f2b9c');
    expect(JSON.parse(text)).toMatchObject({ rpcUrl: net.rpcUrl.replace(/\/+$/, '') });
    expect(r.headers.get('content-security-policy') ?? '').not.toContain('SERVER-KEY');
  });
});

describe.skipIf(!postgres.enabled)('two instances on PostgreSQL', () => {
  it("watcher lag: the instance that does not watch reports the holder's stored progress; both report it failing when it stalls, and both stay ready", async () => {
    const net = await localnet();
    const port = net.port;
    const store = await postgres.fresh();
    const settings = demoSettings(net, { WATCHER_MAX_LAG_S: '2' });
    const a = await server(settings, store, { services: watching });
    const b = await server(settings, store, { services: watching });

    const both = await until(async () => {
      const [wa, wb] = [await watcherPart(a.url), await watcherPart(b.url)];
      return wa.status === 'ok' && wb.status === 'ok' && wa.caughtUpAt && wb.caughtUpAt
        ? [wa, wb]
        : undefined;
    });
    // Exactly one watches; the other's figures come from the database.
    expect(both.map((w) => w.watching).sort()).toEqual([false, true]);
    const [holder, other] = both[0]?.watching ? [a, b] : [b, a];
    expect(await metric(holder.url, 'claim_watcher_watching')).toBe(1);
    expect(await metric(other.url, 'claim_watcher_watching')).toBe(0);
    const otherLag = await watcherPart(other.url);
    expect(otherLag).toMatchObject({ status: 'ok', watching: false });
    expect(otherLag.detail).toContain('(another instance holds the watch)');
    expect(otherLag.lagSeconds).toBeLessThanOrEqual(2);

    // The RPC stops: the holder cannot catch up, and the other instance sees the stored progress go stale.
    await net.close();
    for (const s of [other, holder]) {
      const down = await until(async () => {
        const d = await depsBody(s.url);
        return d.parts.watcher.status === 'failing' && d.parts.rpc.status === 'failing' ? d : undefined;
      });
      expect(down.parts.watcher.lagSeconds).toBeGreaterThan(2);
    }
    expect((await watcherPart(other.url)).watching).toBe(false);
    // Neither instance leaves the rotation: the RPC is the same for both.
    for (const s of [other, holder]) expect(await readyStatus(s.url)).toBe(200);

    await localnet(port);
    for (const s of [other, holder])
      await until(async () => ((await watcherPart(s.url)).status === 'ok' ? true : undefined));
  }, 90_000);

  it('share one rate limit: the 5th request of a 4/min limit is refused whichever instance gets it', async () => {
    const net = await localnet();
    const store = await postgres.fresh();
    const settings = demoSettings(net, { RATE_LIMIT_ORDERS_PER_MINUTE: '4' });
    const a = await server(settings, store);
    const b = await server(settings, store);
    const quote = (url: string) =>
      fetch(`${url}/api/quotes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
    const statuses = [];
    for (const url of [a.url, b.url, a.url, b.url]) statuses.push((await quote(url)).status);
    expect(statuses).not.toContain(429);
    const fifthA = await quote(a.url);
    const fifthB = await quote(b.url);
    expect([fifthA.status, fifthB.status]).toEqual([429, 429]);
    expect(Number(fifthB.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(fifthB.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    // A restart keeps the count (the counters live in the database).
    await b.close();
    const b2 = await server(settings, store);
    expect((await quote(b2.url)).status).toBe(429);

    // The seller sign-in limit goes through the same shared store: the nonces of both instances count together.
    const nonce = (url: string) => fetch(`${url}/api/seller/nonce`);
    const sellerLimited = demoSettings(net, { RATE_LIMIT_SELLER_AUTH_PER_MINUTE: '2' });
    const c = await server(sellerLimited, store);
    const d = await server(sellerLimited, store);
    expect([(await nonce(c.url)).status, (await nonce(d.url)).status]).toEqual([200, 200]);
    const third = await nonce(c.url);
    expect(third.status).toBe(429);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await nonce(d.url)).status).toBe(429);
  }, 60_000);
});

describe('input and logs', () => {
  it('refuses buyer@localhost and Unicode format characters with the order (400, nothing recorded)', async () => {
    const net = await localnet();
    const s = await server(demoSettings(net), undefined, {
      priceSource: { current: () => ({ priceUsd: '0.5', fetchedAt: new Date() }) },
    });
    const quote = async () =>
      (
        (await (
          await fetch(`${s.url}/api/quotes`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ items: [{ productId: 'lilac-tiptop', quantity: 1 }] }),
          })
        ).json()) as { quote: string }
      ).quote;
    const cases: [Record<string, string>, string][] = [
      [{ email: 'buyer@localhost' }, 'email'],
      [{ fullName: 'Ada \u202eecalevoL' }, 'fullName'],
      [{ address1: '12 St James\u200b Square' }, 'address1'],
      [{ city: 'Lon\ufeffdon' }, 'city'],
      [{ country: 'United \u2066Kingdom\u2069' }, 'country'],
    ];
    let n = 0;
    for (const [patch, field] of cases) {
      const r = await fetch(`${s.url}/api/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': `bad-${++n}` },
        body: JSON.stringify({
          quote: await quote(),
          shipping: { ...INTERNATIONAL_SHIPPING, ...patch },
          paymentMethod: 'wallet',
        }),
      });
      expect(r.status, field).toBe(400);
      expect(((await r.json()) as { field?: string }).field, field).toContain(field);
    }
    const count = await s.store.db
      .selectFrom('orders')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirst();
    expect(Number(count?.n)).toBe(0);
  });

  it('logs no credential, e-mail address or street address (requests, errors, failed e-mails)', async () => {
    const net = await localnet();
    const lines: string[] = [];
    const logStream = new Writable({
      write(chunk: Buffer, _enc, cb) {
        lines.push(chunk.toString());
        cb();
      },
    });
    const consoleLines: string[] = [];
    const capture = (...args: unknown[]) => consoleLines.push(args.map(String).join(' '));
    const spies = [
      vi.spyOn(console, 'warn').mockImplementation(capture),
      vi.spyOn(console, 'error').mockImplementation(capture),
    ];
    try {
      const s = await server(
        demoSettings(net, {
          MAIL_TRANSPORT: 'smtp',
          // Nothing listens on port 9: every delivery fails, and the failure is logged.
          SMTP_URL: 'smtp://orders:Sm7p-Passw0rd-xyz@127.0.0.1:9',
        }),
        undefined,
        {
          logger: true,
          logStream,
          priceSource: { current: () => ({ priceUsd: '0.5', fetchedAt: new Date() }) },
          outbox: { pollMs: 100, baseDelayMs: 100, maxDelayMs: 200 },
        },
      );
      const q = (await (
        await fetch(`${s.url}/api/quotes`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ items: [{ productId: 'lilac-tiptop', quantity: 1 }] }),
        })
      ).json()) as { quote: string; amountBaseUnits: string };
      const o = await fetch(`${s.url}/api/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'log-1' },
        body: JSON.stringify({ quote: q.quote, shipping: INTERNATIONAL_SHIPPING, paymentMethod: 'wallet' }),
      });
      expect(o.status).toBe(201);
      const { orderId } = (await o.json()) as { orderId: string };
      await s.orders.recordPayment(
        { orderId },
        {
          signature: fakeSignature(),
          receivedBaseUnits: BigInt(q.amountBaseUnits),
          finalized: false,
          blockTime: null,
        },
      );
      // A URL carrying an address and a key is logged redacted.
      await fetch(`${s.url}/api/nothing?email=${encodeURIComponent('ada@example.com')}&api-key=QUERYKEY77`);
      // Wait until a delivery has failed (and been logged).
      await until(async () => {
        const row = await s.store.db
          .selectFrom('outbox')
          .select('attempts')
          .where('attempts', '>', 0)
          .executeTakeFirst();
        return row ? true : undefined;
      });
      await s.close();
      const all = [...lines, ...consoleLines].join('\n');
      expect(lines.length).toBeGreaterThan(0);
      expect(consoleLines.some((l) => l.startsWith('outbox:'))).toBe(true);
      for (const secret of [
        'Sm7p-Passw0rd-xyz',
        'QUERYKEY77',
        INTERNATIONAL_SHIPPING.email,
        INTERNATIONAL_SHIPPING.address1,
        INTERNATIONAL_SHIPPING.postalCode,
        'seller@example.test',
      ])
        expect(all, secret).not.toContain(secret);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  }, 60_000);
});
