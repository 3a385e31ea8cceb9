/**
 * The drop's correctness (issue 32, docs/decisions/drops.md), app.inject against a real store (a SQLite file, and
 * PostgreSQL when TEST_DATABASE_URL is set), two server instances on one store where it matters. No timing is
 * asserted: the figures are `npm run bench:drop`'s.
 *
 * - Sold out costs nothing: once nothing is free, quotes and orders on either instance are refused in words
 *   ("Reserved: may come back in N minutes" while a hold is open, "Sold out" after) without a write transaction.
 * - Drops as data: a catalogue product with a drop is refused before its start (to the second, the server's clock),
 *   its quote lasts its hold, one buyer (client or wallet) has at most `perBuyer`.
 * - Fair when busy: those in line before the start are let through in a random order, later ones after them by
 *   arrival, as pieces are free; the others are refused with their place; a lapsed hold lets the next one through.
 * - No oversell: a crowd ordering at once on two instances holds exactly the drop's pieces.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { QuoteResponse } from '../../src/core/api';
import { startServer, type RunningServer } from '../../src/server/server';
import {
  Clock,
  intlShipping,
  postgresBackend,
  RecordingTransport,
  sqliteBackend,
  testSettings,
  type Backend,
  withGlassPieces,
} from './orders-support';
import { payoutAccountsAssumedToExist } from '../support/payout-accounts';
import { balancesAssumed, proofOf, TEST_PAYER } from '../support/hold-proof';
import type { StoreConfig } from '../../src/server/store/store';
import { Keypair } from '@solana/web3.js';
import type { Catalog } from '../../src/core/catalog';
import type { DropLineResponse } from '../../src/core/api';
import { sellerStock } from '../../src/server/seller/stock';

const backends = [sqliteBackend(), postgresBackend()];
const LILAC = 'lilac-tiptop'; // wallet, glass: one of a kind
const DROP = 'opal-drop';
const START = Date.parse('2030-01-01T12:10:00.000Z'); // the Clock starts at 12:00:00

/** The shop's catalogue with one drop: a wallet glass product of `units` pieces on sale from START. */
const dropCatalog = (units: number, drop: { holdMinutes?: number; perBuyer?: number } = {}): Catalog =>
  withGlassPieces([
    { id: DROP, name: 'Opal Drop', units, drop: { startsAt: new Date(START).toISOString(), ...drop } },
  ]);

describe.each(backends)('drops on $name', (backend: Backend) => {
  describe.runIf(backend.enabled)(`${backend.name} store`, () => {
    let clock: Clock;
    let config: StoreConfig;
    const servers: RunningServer[] = [];
    let keyN = 0;

    /** The wallets whose balance a quote began to read (a drop's buyer let through, ahead of their order). */
    const prefetched: string[] = [];

    /** One instance on the shared store; `transactions()` counts the write transactions it has begun. */
    async function instance(cat?: Catalog) {
      const server = await startServer(testSettings({ HOLD_LIMIT_PER_CLIENT: '0' }), {
        ...(cat ? { catalog: cat } : {}),
        payoutAccounts: payoutAccountsAssumedToExist,
        walletBalances: { ...balancesAssumed(), prefetch: (w) => void prefetched.push(w) },
        store: config,
        // Always fresh at the shop's clock (the clock moves here).
        priceSource: { current: () => ({ priceUsd: '0.5', fetchedAt: clock.now() }) },
        transport: new RecordingTransport(),
        now: clock.now,
        listen: false,
        startOutbox: false,
        expireEveryMs: 0,
      });
      servers.push(server);
      let begun = 0;
      const db = server.store.db;
      const transaction = db.transaction.bind(db);
      db.transaction = () => {
        begun++;
        return transaction();
      };
      const inject = (
        method: 'GET' | 'POST',
        url: string,
        payload?: object,
        headers = {},
        ip = '203.0.113.7',
      ) => server.app.inject({ method, url, remoteAddress: ip, headers, ...(payload ? { payload } : {}) });
      const quote = (productId: string, ip?: string, wallet?: Keypair) =>
        inject(
          'POST',
          '/api/quotes',
          {
            items: [{ productId, quantity: 1 }],
            ...(wallet ? { wallet: wallet.publicKey.toBase58() } : {}),
          },
          {},
          ip,
        );
      const order = (q: QuoteResponse, ip?: string, wallet = TEST_PAYER) =>
        inject(
          'POST',
          '/api/orders',
          {
            quote: q.quote,
            shipping: intlShipping,
            paymentMethod: 'wallet',
            payer: proofOf(wallet, q.reference),
          },
          { 'idempotency-key': `d-${++keyN}` },
          ip,
        );
      const line = async (productId: string, ip: string) => {
        const r = await inject('POST', `/api/drops/${productId}/line`, undefined, {}, ip);
        expect(r.statusCode, r.body).toBe(200);
        return r.json<DropLineResponse>();
      };
      /** Quote (naming the connected wallet) then order, as Buy Now does, from its own client and wallet. */
      const buy = async (ip: string, wallet = Keypair.generate()) => {
        const q = await quote(DROP, ip, wallet);
        if (q.statusCode !== 200) return q;
        return order(q.json<QuoteResponse>(), ip, wallet);
      };
      const held = async () =>
        server.store.db
          .selectFrom('reservations')
          .select(['order_id', 'state', 'holder'])
          .where('product_id', '=', DROP)
          .execute();
      return { server, inject, quote, order, line, buy, held, transactions: () => begun };
    }

    beforeEach(async () => {
      prefetched.length = 0;
      clock = new Clock();
      config = await backend.fresh();
    });
    afterEach(async () => {
      for (const s of servers.splice(0)) await s.close();
    });
    afterAll(async () => {
      await backend.cleanup();
    });

    it('sold out costs nothing: once nothing is free, both instances refuse quotes and orders in words without a write transaction', async () => {
      const a = await instance();
      const b = await instance();
      // Ten buyers have a quote while the piece is free; the first one's Buy Now holds it (on A).
      const quotes: QuoteResponse[] = [];
      for (let i = 0; i < 10; i++) {
        const q = await (i % 2 ? b : a).quote(LILAC, `198.51.100.${i}`);
        expect(q.statusCode, q.body).toBe(200);
        quotes.push(q.json<QuoteResponse>());
      }
      const held = await a.order(quotes[0]!, '198.51.100.0');
      expect(held.statusCode, held.body).toBe(201);
      expect(held.json<{ held: boolean }>().held).toBe(true);

      const before = { a: a.transactions(), b: b.transactions() };
      // The other nine order on both instances, and new buyers ask for quotes: refused in words, nothing written.
      for (let i = 1; i < 10; i++) {
        const r = await (i % 2 ? b : a).order(quotes[i]!, `198.51.100.${i}`);
        expect(r.statusCode, r.body).toBe(409);
        expect(r.json()).toMatchObject({
          error: 'reserved',
          message: expect.stringMatching(/^Reserved: may come back in 5 minutes\. /),
        });
      }
      for (const inst of [a, b]) {
        const r = await inst.quote(LILAC, '192.0.2.44');
        expect(r.statusCode, r.body).toBe(409);
        expect(r.json<{ message: string }>().message).toMatch(/^Reserved: may come back in 5 minutes\. /);
      }
      expect({ a: a.transactions(), b: b.transactions() }).toEqual(before);
      const orders = await a.server.store.db
        .selectFrom('orders')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(orders.n)).toBe(1);

      // Two minutes later the words count down; the hold lapses (5 min) and the piece is free again on both
      // instances (A released it and forgot at once; B's memory of the sold-out line lapses within a second).
      clock.advance(2 * 60_000);
      expect((await b.quote(LILAC)).json<{ message: string }>().message).toMatch(/in 3 minutes\. /);
      clock.advance(3 * 60_000);
      expect(await a.server.stock.releaseLapsed(clock.now().toISOString())).toBe(1);
      expect((await a.quote(LILAC)).statusCode).toBe(200);
      await new Promise((r) => setTimeout(r, 600)); // B's memory of the sold-out line is half a second
      expect((await b.quote(LILAC)).statusCode).toBe(200);

      // Sold (the seller counts it gone): "Sold out", still without a write transaction.
      await a.server.stock.set({ productId: LILAC }, 0, 'test', clock.now().toISOString());
      const after = { a: a.transactions(), b: b.transactions() };
      await new Promise((r) => setTimeout(r, 600));
      for (const inst of [a, b]) {
        const q = await inst.quote(LILAC);
        expect(q.statusCode, q.body).toBe(409);
        expect(q.json()).toMatchObject({
          error: 'sold_out',
          message: 'Sold out: Lilac TipTop is no longer available.',
        });
        const o = await inst.order(quotes[5]!);
        expect(o.statusCode, o.body).toBe(409);
        expect(o.json<{ error: string }>().error).toBe('sold_out');
      }
      expect({ a: a.transactions(), b: b.transactions() }).toEqual(after);
    });

    it('a drop is data: refused before its start to the second, its quote lasts its hold, one piece per buyer', async () => {
      const a = await instance(dropCatalog(3, { holdMinutes: 2 }));
      clock.advance(START - clock.ms - 1_000); // one second before the start
      const early = await a.quote(DROP, '198.51.100.1');
      expect(early.statusCode, early.body).toBe(409);
      expect(early.json()).toMatchObject({
        error: 'drop_not_open',
        message: 'Not on sale yet: Opal Drop goes on sale at 12:10 UTC on 1 Jan 2030.',
      });
      expect((await a.line(DROP, '198.51.100.1')).place).toEqual({ state: 'before_start', inLine: 1 });
      clock.advance(1_000); // the start
      const q = await a.quote(DROP, '198.51.100.1');
      expect(q.statusCode, q.body).toBe(200);
      expect(Date.parse(q.json<QuoteResponse>().expiresAt) - clock.ms).toBe(2 * 60_000);
      const wallet = Keypair.generate();
      const first = await a.order(q.json<QuoteResponse>(), '198.51.100.1', wallet);
      expect(first.statusCode, first.body).toBe(201);
      expect(first.json<{ held: boolean }>().held).toBe(true);
      // A retry of that order (the same key and body): its stored answer, though the buyer's turn has passed since.
      const retry = await a.inject(
        'POST',
        '/api/orders',
        {
          quote: q.json<QuoteResponse>().quote,
          shipping: intlShipping,
          paymentMethod: 'wallet',
          payer: proofOf(wallet, q.json<QuoteResponse>().reference),
        },
        { 'idempotency-key': `d-${keyN}` },
        '198.51.100.1',
      );
      expect(retry.statusCode, retry.body).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.json()).toEqual(first.json());
      // The same client again: had their turn. The same wallet from another client: the per-buyer limit.
      const again = await a.buy('198.51.100.1', wallet);
      expect(again.json<{ error: string }>().error).toBe('drop_turn_passed');
      const otherClient = await a.buy('198.51.100.2', wallet);
      expect(otherClient.statusCode, otherClient.body).toBe(409);
      expect(otherClient.json()).toMatchObject({
        error: 'drop_limit',
        message:
          'One buyer can have at most 1 piece of Opal Drop, and you already have it reserved or bought.',
      });
      // Without the wallet's proof a drop piece is not sold (it could not be held).
      const q2 = (await a.quote(DROP, '198.51.100.3')).json<QuoteResponse>();
      const noProof = await a.inject(
        'POST',
        '/api/orders',
        { quote: q2.quote, shipping: intlShipping, paymentMethod: 'wallet' },
        { 'idempotency-key': 'no-proof' },
        '198.51.100.3',
      );
      expect(noProof.statusCode, noProof.body).toBe(409);
      expect(noProof.json<{ error: string }>().error).toBe('drop_needs_hold');
      expect((await a.held()).map((r) => r.state)).toEqual(['held']);
      // The hold lasts the drop's 2 minutes: then the piece is free again.
      clock.advance(2 * 60_000);
      expect(await a.server.stock.releaseLapsed(clock.now().toISOString())).toBe(1);
    });

    it("a buyer let through by their quote orders without the line read again; the quote's turn is its own client's, in its window", async () => {
      const a = await instance(dropCatalog(3));
      clock.advance(START - clock.ms);
      // The line's reads (counted from before each order).
      let looks = 0;
      const dropLine = a.server.stock.dropLine;
      const standing = dropLine.standing.bind(dropLine);
      dropLine.standing = (...args) => {
        looks++;
        return standing(...args);
      };
      const turnOf = (q: QuoteResponse) =>
        (JSON.parse(Buffer.from(q.quote.split('.')[0]!, 'base64url').toString('utf8')) as { turn?: object })
          .turn;

      // Let through by the quote: the quote carries the turn, and the order holds without asking the line.
      const first = Keypair.generate();
      const q1 = await a.quote(DROP, '198.51.100.1', first);
      expect(q1.statusCode, q1.body).toBe(200);
      expect(turnOf(q1.json<QuoteResponse>())).toEqual({
        holder: expect.any(String),
        until: new Date(clock.ms + 2 * 60_000).toISOString(),
      });
      looks = 0;
      const o1 = await a.order(q1.json<QuoteResponse>(), '198.51.100.1', first);
      expect(o1.statusCode, o1.body).toBe(201);
      expect(o1.json()).toMatchObject({ held: true });
      expect(looks).toBe(0);

      // The same quote's order from another client is looked up in the line as before: it joins it, and is let
      // through only as a newcomer would be (one piece of three is held, one let through: one is free).
      const second = Keypair.generate();
      const q2 = (await a.quote(DROP, '198.51.100.2', second)).json<QuoteResponse>();
      expect(turnOf(q2)).toBeDefined();
      const third = Keypair.generate();
      const q3 = (await a.quote(DROP, '198.51.100.3', third)).json<QuoteResponse>();
      looks = 0;
      const elsewhere = await a.order(q3, '198.51.100.4', third);
      expect(looks).toBe(1);
      expect(elsewhere.statusCode, elsewhere.body).toBe(409);
      expect(elsewhere.json()).toMatchObject({ error: 'drop_in_line' });

      // Past the turn's window (its quote still valid): the order asks the line, which says the turn has passed.
      clock.advance(2 * 60_000 + 1_000);
      looks = 0;
      const late = await a.order(q2, '198.51.100.2', second);
      expect(looks).toBe(1);
      expect(late.statusCode, late.body).toBe(409);
      expect(late.json()).toMatchObject({ error: 'drop_turn_passed' });
      expect((await a.held()).filter((r) => r.state === 'held')).toHaveLength(1);
    });

    it('fair when busy: early arrivals are let through in a random order, later ones after them, as pieces are free', async () => {
      const a = await instance(dropCatalog(3));
      const b = await instance(dropCatalog(3));
      const ipOf = (i: number) => `10.0.${Math.floor(i / 200)}.${i % 200}`;
      clock.advance(START - clock.ms - 60_000);
      // 30 buyers join before the start (on either instance), one of them asking 20 times.
      for (let i = 0; i < 30; i++)
        expect((await (i % 2 ? b : a).line(DROP, ipOf(i))).place.state).toBe('before_start');
      for (let k = 0; k < 20; k++) await a.line(DROP, ipOf(29));
      expect((await a.line(DROP, ipOf(0))).place).toEqual({ state: 'before_start', inLine: 30 });
      clock.advance(60_000);
      // Two come after the start.
      const late = [ipOf(100), ipOf(101)];
      for (const ip of late) {
        await b.line(DROP, ip);
        clock.advance(1); // by arrival, to the millisecond
      }
      const places = new Map<string, DropLineResponse['place']>();
      for (let i = 0; i < 30; i++) places.set(ipOf(i), (await (i % 2 ? a : b).line(DROP, ipOf(i))).place);
      for (const ip of late) places.set(ip, (await a.line(DROP, ip)).place);
      const through = [...places].filter(([, p]) => p.state === 'through').map(([ip]) => ip);
      expect(through).toHaveLength(3);
      const waiting = [...places]
        .filter(([, p]) => p.state === 'waiting')
        .sort(([, x], [, y]) => (x as { ahead: number }).ahead - (y as { ahead: number }).ahead);
      // Everyone waiting has their own place: 0 … 28 ahead, the late ones last in order of arrival.
      expect(waiting.map(([, p]) => (p as { ahead: number }).ahead)).toEqual([...Array(29).keys()]);
      expect(waiting.slice(-2).map(([ip]) => ip)).toEqual(late);
      // The early ones are not in the order they came (a random draw: 27! orders, this one has chance 1/27!).
      const earlyOrder = waiting
        .slice(0, -2)
        .map(([ip]) => Number(ip.split('.')[3]) + 200 * Number(ip.split('.')[2]));
      expect(earlyOrder).not.toEqual([...earlyOrder].sort((x, y) => x - y));

      // Those waiting are refused in words with their place, on either instance, and hold nothing.
      const next = waiting[0]![0];
      const refused = await b.buy(next);
      expect(refused.statusCode, refused.body).toBe(409);
      expect(refused.json()).toMatchObject({
        error: 'drop_in_line',
        message: expect.stringMatching(/^You are in line: 0 buyers are ahead of you\./),
      });
      // The three let through buy; one of them will not pay.
      for (const [i, ip] of through.entries()) {
        const r = await (i % 2 ? a : b).buy(ip);
        expect(r.statusCode, r.body).toBe(201);
      }
      expect((await a.held()).filter((r) => r.state === 'held')).toHaveLength(3);
      expect((await a.buy(next)).json<{ error: string }>().error).toBe('reserved');
      // The holds lapse unpaid (5 minutes); the next in line is let through, and only they.
      clock.advance(5 * 60_000);
      expect(await a.server.stock.releaseLapsed(clock.now().toISOString())).toBe(3);
      await new Promise((r) => setTimeout(r, 600)); // B's memory of the sold-out line lapses
      const secondWave = waiting.slice(0, 3).map(([ip]) => ip);
      const hammer = await b.buy(waiting[5]![0]);
      expect(hammer.json<{ error: string }>().error).toBe('drop_in_line');
      for (const ip of secondWave) expect((await b.line(DROP, ip)).place.state).toBe('through');
      for (const ip of secondWave) expect((await a.buy(ip)).statusCode).toBe(201);
      const rows = await a.held();
      expect(rows.filter((r) => r.state === 'held')).toHaveLength(3);
      expect(rows.filter((r) => r.state === 'released')).toHaveLength(3);
      const line = await a.server.stock.dropLine.stats(DROP, clock.now());
      expect(line).toMatchObject({ joined: 32, held: 6, waiting: 26 });
      // The vendor's console shows the drop live: pieces held, released, sold, and the line.
      const { drops } = await sellerStock(
        { stock: b.server.stock, catalog: dropCatalog(3), now: clock.now },
        ['coopersglass'],
      );
      expect(drops).toEqual([
        expect.objectContaining({
          productId: DROP,
          onHand: 3,
          available: 0,
          held: 3,
          released: 3,
          sold: 0,
          line: expect.objectContaining({ joined: 32, held: 6, waiting: 26 }),
        }),
      ]);
    });

    it('no oversell: 40 buyers ordering at once on two instances hold exactly the 5 pieces, and the counts agree', async () => {
      const cat = dropCatalog(5);
      const a = await instance(cat);
      const b = await instance(cat);
      clock.advance(START - clock.ms);
      const wallets = Array.from({ length: 40 }, () => Keypair.generate());
      const results = await Promise.all(wallets.map((w, i) => (i % 2 ? a : b).buy(`10.1.0.${i + 1}`, w)));
      const statuses = results.map((r) => r.statusCode);
      expect(statuses.filter((s) => s === 201)).toHaveLength(5);
      expect(statuses.filter((s) => s === 409)).toHaveLength(35);
      for (const r of results.filter((x) => x.statusCode === 409))
        expect(['drop_in_line', 'reserved', 'sold_out']).toContain(r.json<{ error: string }>().error);
      const [stock] = await a.server.stock.levels().then((l) => l.filter((x) => x.productId === DROP));
      expect(stock).toMatchObject({ onHand: 5, reserved: 5 });
      expect((await a.held()).filter((r) => r.state === 'held')).toHaveLength(5);
      const log = await a.server.stock.changes({ productId: DROP });
      expect(log.filter((c) => c.kind === 'reserve')).toHaveLength(5);
      expect(log.at(-1)).toMatchObject({ onHandAfter: 5, reservedAfter: 5 });
      // The quotes of the buyers let through began reading their wallets' balances (for their orders); the 35
      // refused in line read none.
      const holders = wallets
        .filter((_, i) => results[i]!.statusCode === 201)
        .map((w) => w.publicKey.toBase58());
      expect([...prefetched].sort()).toEqual(holders.sort());
    });
  });
});
