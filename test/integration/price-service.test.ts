import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PriceHistory, PriceOk, PriceUnavailable } from '../../src/core/api';
import {
  createMemoryPriceHistoryStore,
  createPriceService,
  fetchDexScreenerPrice,
  type PriceService,
} from '../../src/server/price';
import type { PriceShare, PriceSnapshot } from '../../src/server/price/service';
import { pricePlugin } from '../../src/server/http/price-routes';
import { demoPriceFeedPlugin } from '../../src/server/http/demo-price-routes';
import { PRICE_GUARD_DEFAULTS, type Settings } from '../../src/server/settings';

const PAIR = 'DemoPair111111111111111111111111111111111111';

/** A fake DexScreener on loopback: counts requests; `handler` decides each answer. */
class FakeDex {
  server: Server;
  requests: string[] = [];
  handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) =>
    this.json(res, 200, okBody('0.0001234'));
  url = '';
  constructor() {
    this.server = createServer((req, res) => {
      this.requests.push(req.url ?? '');
      this.handler(req, res);
    });
  }
  async listen(): Promise<void> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  json(res: ServerResponse, status: number, body: string): void {
    res.writeHead(status, { 'content-type': 'application/json' }).end(body);
  }
  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

const okBody = (
  priceUsd: unknown,
  pairAddress = PAIR,
  liquidity: unknown = { usd: 48210.55, base: 5739350, quote: 171.3 },
) =>
  JSON.stringify({
    schemaVersion: '1.0.0',
    pairs: [
      {
        chainId: 'solana',
        dexId: 'raydium',
        url: `https://dexscreener.com/solana/${pairAddress}`,
        pairAddress,
        baseToken: { address: 'Mint', name: 'Reclaim', symbol: 'CLAIM' },
        quoteToken: {
          address: 'So11111111111111111111111111111111111111112',
          name: 'Wrapped SOL',
          symbol: 'SOL',
        },
        priceNative: '0.0000009',
        priceUsd,
        liquidity,
      },
    ],
    pair: null,
  });

let fake: FakeDex;
let clock: number;
const now = () => clock;
const priceSettings = (over: Partial<Settings['price']> = {}): Settings['price'] => ({
  apiUrl: fake.url,
  pairAddress: PAIR,
  refreshMs: 10_000,
  maxAgeMs: 60_000,
  timeoutMs: 1_000,
  ...PRICE_GUARD_DEFAULTS,
  minLiquidityUsd: 0, // these bodies carry no liquidity: the floor has its own tests
  ...over,
});

beforeEach(async () => {
  clock = Date.parse('2025-01-01T00:00:00Z');
  fake = new FakeDex();
  await fake.listen();
});
afterEach(async () => {
  await fake.close();
});

describe('DexScreener adapter against a fake on loopback', () => {
  const call = (over: Partial<Settings['price']> = {}) => {
    const s = priceSettings(over);
    return fetchDexScreenerPrice({ apiUrl: s.apiUrl, pairAddress: s.pairAddress, timeoutMs: s.timeoutMs });
  };

  it('fetches the pairs endpoint for solana and the pair, and reads priceUsd exactly', async () => {
    expect(await call()).toEqual({ ok: true, priceUsd: '0.0001234', liquidityUsd: '48210.55' });
    expect(fake.requests).toEqual([`/latest/dex/pairs/solana/${PAIR}`]);
  });
  it('no matching pair', async () => {
    fake.handler = (_q, r) =>
      fake.json(r, 200, okBody('1.0', 'Other111111111111111111111111111111111111111'));
    expect(await call()).toMatchObject({ ok: false, kind: 'no_matching_pair' });
  });
  it('pairs null', async () => {
    fake.handler = (_q, r) => fake.json(r, 200, '{"schemaVersion":"1.0.0","pairs":null}');
    expect(await call()).toMatchObject({ ok: false, kind: 'no_matching_pair' });
  });
  it('malformed JSON', async () => {
    fake.handler = (_q, r) => fake.json(r, 200, '{"schemaVersion":"1.0.0","pairs":[{');
    expect(await call()).toMatchObject({ ok: false, kind: 'malformed_json' });
  });
  it('429 with Retry-After', async () => {
    fake.handler = (_q, r) => r.writeHead(429, { 'retry-after': '30' }).end('Too Many Requests');
    expect(await call()).toMatchObject({ ok: false, kind: 'http', status: 429, retryAfterMs: 30_000 });
  });
  it('500', async () => {
    fake.handler = (_q, r) => r.writeHead(500).end('oops');
    expect(await call()).toMatchObject({ ok: false, kind: 'http', status: 500 });
  });
  it('timeout (headers never come)', async () => {
    fake.handler = () => undefined;
    const t0 = Date.now();
    expect(await call({ timeoutMs: 200 })).toMatchObject({ ok: false, kind: 'timeout' });
    expect(Date.now() - t0).toBeLessThan(2_000);
  });
  it('timeout (body stalls after headers)', async () => {
    fake.handler = (_q, r) => {
      r.writeHead(200, { 'content-type': 'application/json' });
      r.write('{"schemaVersion":');
    };
    expect(await call({ timeoutMs: 200 })).toMatchObject({ ok: false, kind: 'timeout' });
  });
  it('network error', async () => {
    expect(await call({ apiUrl: 'http://127.0.0.1:1' })).toMatchObject({ ok: false, kind: 'network' });
  });
  it.each([['0'], ['0.0'], ['-0.5'], ['abc'], [''], [null], [0.0001]])('bad price %j', async (p) => {
    fake.handler = (_q, r) => fake.json(r, 200, okBody(p));
    expect(await call()).toMatchObject({ ok: false, kind: 'bad_price' });
  });
});

describe('price service and GET /api/price', () => {
  let app: FastifyInstance;
  let service: PriceService;

  const build = async (
    over: Partial<Settings['price']> = {},
    deps: Parameters<typeof createPriceService>[1] = {},
  ) => {
    service = createPriceService(priceSettings(over), { now, ...deps });
    app = Fastify();
    await app.register(pricePlugin, { service });
    await app.listen({ port: 0, host: '127.0.0.1' });
    return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  };
  afterEach(async () => {
    await service?.stop();
    await app?.close();
  });

  it('answers 503 price_unavailable before any good price', async () => {
    const base = await build();
    const res = await fetch(`${base}/api/price`);
    expect(res.status).toBe(503);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect((await res.json()) as PriceUnavailable).toEqual({
      error: 'price_unavailable',
      message: 'Failed to load $CLAIM price. Try again later.',
    });
    expect(fake.requests).toHaveLength(0); // requests never call upstream
  });

  it('makes at most ONE upstream call under 200 concurrent requests and refreshes', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    fake.handler = (_q, r) => void gate.then(() => fake.json(r, 200, okBody('0.0001234')));
    const base = await build({ timeoutMs: 5_000 });
    const started = service.start();
    const joined = Array.from({ length: 50 }, () => service.refresh());
    const during = await Promise.all(
      Array.from({ length: 200 }, () => fetch(`${base}/api/price`).then((r) => r.status)),
    );
    expect(during.every((s) => s === 503)).toBe(true); // requests did not wait on upstream
    release();
    await started;
    expect((await Promise.all(joined)).every((r) => r.ok)).toBe(true);
    const after = await Promise.all(
      Array.from({ length: 200 }, () =>
        fetch(`${base}/api/price`).then(async (r) => ({
          status: r.status,
          body: (await r.json()) as PriceOk,
        })),
      ),
    );
    expect(service.lastFailure()).toBeUndefined();
    expect(after.every((a) => a.status === 200 && a.body.priceUsd === '0.0001234')).toBe(true);
    expect(fake.requests).toHaveLength(1);
    expect(service.upstreamCalls).toBe(1);
  });

  it('serves the last good price with a growing age, and keeps it after an upstream failure', async () => {
    const base = await build();
    await service.start();
    const fetchedAt = new Date(clock).toISOString();
    const res = await fetch(`${base}/api/price`);
    expect(res.status).toBe(200);
    expect(Number(/max-age=(\d+)/.exec(res.headers.get('cache-control') ?? '')?.[1])).toBeLessThanOrEqual(5);
    expect((await res.json()) as PriceOk).toEqual({
      priceUsd: '0.0001234',
      spotUsd: '0.0001234',
      liquidityUsd: '48210.55',
      fetchedAt,
      ageSeconds: 0,
      source: 'dexscreener',
    });

    clock += 12_500;
    expect(((await (await fetch(`${base}/api/price`)).json()) as PriceOk).ageSeconds).toBe(12);

    for (const fail of [
      (r: ServerResponse) => r.writeHead(429).end(),
      (r: ServerResponse) => fake.json(r, 200, 'not json'),
      (r: ServerResponse) => fake.json(r, 200, okBody('0')),
      (r: ServerResponse) => fake.json(r, 200, '{"pairs":null}'),
    ]) {
      fake.handler = (_q, r) => fail(r);
      expect((await service.refresh()).ok).toBe(false);
    }
    clock += 50_000;
    const stale = (await (await fetch(`${base}/api/price`)).json()) as PriceOk;
    expect(stale).toEqual({
      priceUsd: '0.0001234',
      spotUsd: '0.0001234',
      liquidityUsd: '48210.55',
      fetchedAt,
      ageSeconds: 62,
      source: 'dexscreener',
    });
    expect(service.current()?.priceUsd).toBe('0.0001234');
    expect(service.currentFresh()).toBeUndefined(); // quotes refuse > 60 s
    expect(service.currentFresh(120_000)?.priceUsd).toBe('0.0001234');
    expect(service.lastFailure()?.kind).toBe('no_matching_pair');

    clock += 15 * 60_000;
    expect((await fetch(`${base}/api/price`)).status).toBe(503); // beyond the serve limit

    fake.handler = (_q, r) => fake.json(r, 200, okBody('0.0002'));
    expect(await service.refresh()).toMatchObject({ ok: true, priceUsd: '0.0002' });
    // After 15 minutes without a sample the window holds only this one: the reference is the spot.
    const risen = (await (await fetch(`${base}/api/price`)).json()) as PriceOk;
    expect([risen.spotUsd, risen.priceUsd]).toEqual(['0.0002', '0.0002']);
  });

  it('history: one point per good refresh, persisted to the injected store and reloaded', async () => {
    const store = createMemoryPriceHistoryStore();
    const base = await build({}, { store });
    await service.start();
    for (const p of ['0.0002', '0.0003']) {
      clock += 10_000;
      fake.handler = (_q, r) => fake.json(r, 200, okBody(p));
      await service.refresh();
    }
    fake.handler = (_q, r) => r.writeHead(500).end();
    await service.refresh();
    const h = (await (await fetch(`${base}/api/price/history`)).json()) as PriceHistory;
    expect(h.points.map((p) => p.priceUsd)).toEqual(['0.0001234', '0.0002', '0.0003']);
    expect(h.points[2]?.t).toBe(new Date(clock).toISOString());
    await new Promise((r) => setTimeout(r, 10));
    expect((await store.since(new Date(0))).map((p) => p.priceUsd)).toEqual([
      '0.0001234',
      '0.0002',
      '0.0003',
    ]);

    // a new service (restart) loads the last 24 h from the store; points older than 24 h are dropped
    await service.stop();
    clock += 24 * 60 * 60_000 - 15_000;
    const again = createPriceService(priceSettings(), { now, store });
    fake.handler = (_q, r) => r.writeHead(500).end();
    await again.start();
    expect(again.history().points.map((p) => p.priceUsd)).toEqual(['0.0002', '0.0003']);
    await again.stop();
  });

  it('the background timer never refreshes faster than every 10 s, and stop() ends it', async () => {
    app = Fastify();
    // The service's timers on a fake clock (setTimeout only: the HTTP fake and fetch keep real I/O), so the floor
    // is checked at its exact edge instead of by watching a few hundred real milliseconds pass. Every upstream
    // call goes through this counting fetch; `last` is the call in flight, awaited for its real round trip.
    let calls = 0;
    let last: Promise<Response> | undefined;
    const counting = ((input: string | URL | Request, init?: RequestInit) => {
      calls++;
      last = fetch(input, init);
      return last;
    }) as typeof fetch;
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      service = createPriceService(priceSettings({ refreshMs: 1 }), { fetch: counting }); // clamped to 10 s
      await service.start();
      expect([calls, fake.requests.length]).toEqual([1, 1]);
      await vi.advanceTimersByTimeAsync(9_999); // a literal 10 s floor, not the module's constant
      expect(calls).toBe(1); // not one refresh before 10 s
      await vi.advanceTimersByTimeAsync(1);
      expect(calls).toBe(2); // the timer refreshes at 10 s
      await last;
      expect(fake.requests).toHaveLength(2);
      await service.stop();
      await vi.advanceTimersByTimeAsync(100_000);
      expect(calls).toBe(2); // stopped: no more
    } finally {
      vi.useRealTimers();
    }
  });

  it('a fleet starting together: an instance that does not poll ends its start once the poller has stored its first price', async () => {
    const snapshot: PriceSnapshot = {
      current: {
        priceUsd: '0.0004',
        spotUsd: '0.0004',
        fetchedAt: new Date().toISOString(),
        source: 'dexscreener',
      },
      disagreeing: false,
    };
    let reads = 0;
    // The poller stores its first result after the follower's third read.
    const share: PriceShare = {
      leading: () => false,
      publish: async () => undefined,
      latest: async () => (++reads > 3 ? snapshot : undefined),
    };
    const follower = createPriceService(priceSettings(), { share });
    try {
      await follower.start();
      expect(reads).toBe(4);
      expect(follower.current()?.priceUsd).toBe('0.0004');
      expect(fake.requests).toHaveLength(0); // it never polled the source itself
    } finally {
      await follower.stop();
    }
    // No poller at all: the start ends after the bound, without a price (readiness then says started; quotes say why).
    const alone = createPriceService(priceSettings(), {
      share: { leading: () => false, publish: async () => undefined, latest: async () => undefined },
      firstSnapshotWaitMs: 500,
    });
    try {
      const t = Date.now();
      await alone.start();
      expect(Date.now() - t).toBeGreaterThanOrEqual(450);
      expect(alone.current()).toBeUndefined();
    } finally {
      await alone.stop();
    }
  });
});

describe('demo feed', () => {
  it('serves a DexScreener-shaped response the adapter and service accept, source demo', async () => {
    const app = Fastify();
    await app.register(demoPriceFeedPlugin, { now: () => Date.parse('2025-01-01T00:00:00Z') });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const apiUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/demo/dexscreener`;
    const service = createPriceService(
      {
        apiUrl,
        pairAddress: PAIR,
        refreshMs: 10_000,
        maxAgeMs: 60_000,
        timeoutMs: 1_000,
        ...PRICE_GUARD_DEFAULTS,
      },
      { source: 'demo' },
    );
    await service.start();
    const cur = service.current();
    expect(cur?.source).toBe('demo');
    expect(cur?.priceUsd).toMatch(/^0\.00[34]\d+$/);
    const raw = (await (await fetch(`${apiUrl}/latest/dex/pairs/solana/${PAIR}`)).json()) as {
      schemaVersion: string;
      pairs: { pairAddress: string; priceUsd: string }[];
    };
    expect(raw.schemaVersion).toBe('1.0.0');
    expect(raw.pairs[0]?.pairAddress).toBe(PAIR);
    await service.stop();
    await app.close();
  });
});
