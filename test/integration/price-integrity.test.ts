/**
 * Price integrity: fake DexScreener and GeckoTerminal feeds on 127.0.0.1 in their real response shapes, the price
 * service on a fake clock (one refresh per 10 s, driven by the test), and real quotes from the catalogue: a 3×
 * spike for 25 s and for 2 minutes moves the quoted amount by less than 10 %; a halving is honoured within one
 * refresh; liquidity below the floor and sources 15 % apart refuse quotes (5 % apart do not); the seller is
 * alerted once per disagreement episode; bad fields from either source are refused without a crash; a restart
 * keeps the window (SQLite, and PostgreSQL with TEST_DATABASE_URL).
 */
import type { AddressInfo } from 'node:net';
import { Keypair } from '@solana/web3.js';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { catalog } from '../../catalog';
import type { PriceOk, PriceUntrusted } from '../../src/core/api';
import { DomainError } from '../../src/core/errors';
import { createQuote, type QuoteDeps } from '../../src/server/orders/quotes';
import {
  createPriceService,
  LOW_LIQUIDITY_MESSAGE,
  SOURCES_DISAGREE_MESSAGE,
  type DisagreementEvent,
  type PriceService,
} from '../../src/server/price';
import { pricePlugin } from '../../src/server/http/price-routes';
import { createKyselyPriceHistoryStore } from '../../src/server/price/kysely-history';
import { PRICE_GUARD_DEFAULTS, type Settings } from '../../src/server/settings';
import { openStore } from '../../src/server/store/store';
import { postgresBackend, sqliteBackend, type Backend } from './orders-support';
import { Feeds, MINT, PAIR } from './price-feeds';

const PIECE = 'sonic-crushed-opal-spillproof'; // $325

let feeds: Feeds;
let clock: number;
const now = () => clock;

const settings = (over: Partial<Settings['price']> = {}): Settings['price'] => ({
  apiUrl: `${feeds.base}/dex`,
  pairAddress: PAIR,
  refreshMs: 10_000,
  maxAgeMs: 60_000,
  timeoutMs: 2_000,
  ...PRICE_GUARD_DEFAULTS,
  secondSourceUrl: `${feeds.base}/gecko`,
  ...over,
});

const quoteDeps = (service: PriceService): QuoteDeps => ({
  catalog,
  settings: {
    recipients: {
      coopersglass: Keypair.generate().publicKey.toBase58(),
      gorilla: Keypair.generate().publicKey.toBase58(),
    },
    claimMint: MINT,
    quote: { secret: 's'.repeat(32), ttlMs: 15 * 60_000 },
    price: settings(),
  },
  priceSource: service,
  now: () => new Date(clock),
});

/** The quoted $CLAIM base units for the $325 piece now. */
const quoted = (service: PriceService): bigint =>
  BigInt(
    createQuote(quoteDeps(service), { items: [{ productId: PIECE, quantity: 1 }] }).response.amountBaseUnits,
  );

const refusal = (service: PriceService): DomainError => {
  try {
    quoted(service);
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error('the quote was not refused');
};

/** `n` refreshes, one per 10 s of the fake clock, with the market as set. */
async function run(service: PriceService, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    clock += 10_000;
    await service.refresh();
  }
}

const change = (a: bigint, b: bigint) => Number(((a > b ? a - b : b - a) * 10_000n) / b) / 100; // percent

beforeEach(async () => {
  clock = Date.parse('2030-03-01T12:00:00Z');
  feeds = new Feeds();
  await feeds.listen();
});
afterEach(async () => {
  await feeds.close();
});

describe('the reference price against a pump', () => {
  let service: PriceService;
  afterEach(async () => service?.stop());

  it('a 3× spike for 25 s and for 2 minutes moves the quoted amount by less than 10 %', async () => {
    service = createPriceService(settings(), { now, claimMint: MINT });
    await run(service, 60); // ten quiet minutes
    const before = quoted(service);
    expect(before).toBe(81_250_000_000n); // $325 / $0.004

    for (const seconds of [25, 120]) {
      feeds.market = { ...feeds.market, dexPrice: '0.012', geckoPrice: '0.01201' };
      let worst = before;
      for (let t = 0; t < seconds; t += 10) {
        await run(service, 1);
        const q = quoted(service);
        if (q < worst) worst = q;
        expect(service.current()?.spotUsd).toBe('0.012');
      }
      expect(change(worst, before)).toBeLessThan(10);
      feeds.market = { ...feeds.market, dexPrice: '0.004', geckoPrice: '0.00401' };
      await run(service, 60);
      expect(quoted(service)).toBe(before);
    }
  });

  it('a halving is honoured within one refresh', async () => {
    service = createPriceService(settings(), { now, claimMint: MINT });
    await run(service, 60);
    const before = quoted(service);
    feeds.market = { ...feeds.market, dexPrice: '0.002', geckoPrice: '0.002' };
    await run(service, 1);
    expect(quoted(service)).toBe(before * 2n);
  });
});

describe('liquidity and agreement', () => {
  let service: PriceService;
  let app: FastifyInstance;
  let base: string;
  let events: DisagreementEvent[];
  beforeEach(async () => {
    events = [];
    service = createPriceService(settings(), {
      now,
      claimMint: MINT,
      onDisagreement: (e) => void events.push(e),
    });
    app = Fastify();
    await app.register(pricePlugin, { service });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    await run(service, 6);
  });
  afterEach(async () => {
    await service.stop();
    await app.close();
  });
  const price = async () => {
    const res = await fetch(`${base}/api/price`);
    return { status: res.status, body: (await res.json()) as PriceOk & PriceUntrusted };
  };

  it('liquidity below the floor refuses quotes with the message, and /api/price says so', async () => {
    expect((await price()).status).toBe(200);
    feeds.market = { ...feeds.market, dexLiquidity: 4_999.99 };
    await run(service, 1);
    const err = refusal(service);
    expect([err.kind, err.code, err.message]).toEqual([
      'unavailable',
      'price_untrusted',
      LOW_LIQUIDITY_MESSAGE,
    ]);
    expect(err.message).toBe(
      'The $CLAIM price cannot be trusted right now (too little liquidity). Please try again later.',
    );
    expect(await price()).toMatchObject({
      status: 503,
      body: { error: 'price_untrusted', reason: 'low_liquidity', message: LOW_LIQUIDITY_MESSAGE },
    });
    // The second source's reserve counts too: the lower reading decides.
    feeds.market = { ...feeds.market, dexLiquidity: 48210.55, geckoReserve: '3100.00' };
    await run(service, 1);
    expect(refusal(service).code).toBe('price_untrusted');
    feeds.market = { ...feeds.market, geckoReserve: '48150.10' };
    await run(service, 1);
    expect(quoted(service)).toBe(81_250_000_000n);
    expect(await price()).toMatchObject({
      status: 200,
      body: { priceUsd: '0.004', liquidityUsd: '48150.10' },
    });
  });

  it('sources 15 % apart refuse (the seller is alerted once per episode), 5 % apart do not', async () => {
    feeds.market = { ...feeds.market, geckoPrice: '0.0042' }; // 5 %
    await run(service, 3);
    expect(quoted(service)).toBe(81_250_000_000n);
    expect(service.current()?.spreadBps).toBe(500);
    expect(events).toEqual([]);

    feeds.market = { ...feeds.market, geckoPrice: '0.0046' }; // 15 %
    await run(service, 5);
    const err = refusal(service);
    expect([err.code, err.message]).toEqual(['price_untrusted', SOURCES_DISAGREE_MESSAGE]);
    expect(await price()).toMatchObject({
      status: 503,
      body: { error: 'price_untrusted', reason: 'sources_disagree', message: SOURCES_DISAGREE_MESSAGE },
    });
    expect(events).toEqual([
      {
        state: 'started',
        at: expect.any(Date) as Date,
        spotUsd: '0.004',
        secondUsd: '0.0046',
        spreadBps: 1500,
        maxSpreadBps: 1000,
      },
    ]);

    feeds.market = { ...feeds.market, geckoPrice: '0.00401' };
    await run(service, 2);
    expect(quoted(service)).toBe(81_250_000_000n);
    expect(events.map((e) => e.state)).toEqual(['started', 'ended']);
    feeds.market = { ...feeds.market, geckoPrice: '0.0046' };
    await run(service, 2);
    expect(events.map((e) => e.state)).toEqual(['started', 'ended', 'started']); // a new episode
  });

  it('with one source configured the agreement check is off', async () => {
    const { secondSourceUrl: _unused, ...oneSource } = settings();
    const one = createPriceService(oneSource, { now });
    feeds.market = { ...feeds.market, geckoPrice: '0.04' };
    const geckoCalls = () => feeds.requests.filter((u) => u.startsWith('/gecko')).length;
    const before = geckoCalls();
    await run(one, 3);
    expect(quoted(one)).toBe(81_250_000_000n);
    expect(one.current()?.spreadBps).toBeUndefined();
    expect(geckoCalls()).toBe(before); // never asked
    await one.stop();
  });

  it('NaN, zero, negative, e-notation and missing fields from either source: refused, no crash', async () => {
    const good = feeds.market;
    // DexScreener's price: no sample, the last good one stands (and ages out of quotes after 60 s).
    for (const dexPrice of ['NaN', '0', '-0.004', 0.004, undefined, 'Infinity', '']) {
      feeds.market = { ...good, dexPrice };
      expect(await service.refresh()).toMatchObject({ ok: false, kind: 'bad_price' });
    }
    // DexScreener's liquidity: the price stands, quotes are refused (its reading is required; the second
    // source's reserve can only lower it).
    for (const dexLiquidity of ['NaN', 0, -48210.55, 'lots', undefined, null]) {
      feeds.market = { ...good, dexLiquidity };
      await run(service, 1);
      expect(refusal(service).message).toBe(LOW_LIQUIDITY_MESSAGE);
    }
    // GeckoTerminal's price: that source is skipped (no agreement check), quotes go on from DexScreener.
    for (const geckoPrice of ['NaN', '0', '-0.004', 0.004, undefined, 'x']) {
      feeds.market = { ...good, geckoPrice, geckoReserve: '48150.10' };
      clock += 61_000; // the last good GeckoTerminal price is stale by now
      await service.refresh();
      expect(service.current()?.secondUsd).toBeUndefined();
      expect(quoted(service)).toBe(81_250_000_000n);
    }
    // GeckoTerminal's reserve: that reading is left out; DexScreener's counts.
    feeds.market = { ...good, geckoReserve: 'NaN' };
    await run(service, 1);
    expect(quoted(service)).toBe(81_250_000_000n);
    // E-notation is a number like any other, read exactly.
    // (JSON writes 4.821055e21 as 4.821055e+21.)
    feeds.market = {
      dexPrice: '4e-3',
      dexLiquidity: 4.821055e21,
      geckoPrice: '4.01E-3',
      geckoReserve: '5.2e22',
    };
    await run(service, 1);
    expect(service.current()).toMatchObject({
      spotUsd: '0.004',
      liquidityUsd: '4821055000000000000000',
      secondUsd: '0.00401',
    });
    expect(quoted(service)).toBe(81_250_000_000n);
    expect(events).toEqual([]);
  });
});

const backends: Backend[] = [sqliteBackend(), postgresBackend()];
afterAll(async () => {
  for (const b of backends) await b.cleanup();
});

describe.each(backends)('a restart keeps the window ($name)', (backend) => {
  it.runIf(backend.enabled)('a spike right after a restart does not move the quote', async () => {
    const config = await backend.fresh();
    let store = await openStore(config);
    const first = createPriceService(settings(), {
      now,
      claimMint: MINT,
      store: createKyselyPriceHistoryStore(store.db, { now }),
    });
    await first.start();
    await run(first, 60);
    const before = quoted(first);
    await first.stop();
    await new Promise((r) => setTimeout(r, 50)); // the last appends settle
    await store.close();

    clock += 30_000; // a quick restart
    store = await openStore(config);
    feeds.market = { ...feeds.market, dexPrice: '0.012', geckoPrice: '0.01201' };
    const second = createPriceService(settings(), {
      now,
      claimMint: MINT,
      store: createKyselyPriceHistoryStore(store.db, { now }),
    });
    await second.start(); // loads the window, then refreshes: the first sample is the spike
    expect(second.current()).toMatchObject({ spotUsd: '0.012', priceUsd: '0.004' });
    await run(second, 5);
    expect(change(quoted(second), before)).toBeLessThan(10);
    await second.stop();
    await store.close();
  });
});
