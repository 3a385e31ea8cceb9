/**
 * Holds on intent, never on a view (app.inject against a real store: a SQLite file, and PostgreSQL when
 * TEST_DATABASE_URL is set): QR records made to show a QR hold nothing however many are made; details and Buy Now
 * hold; one client holds at most HOLD_LIMIT_PER_CLIENT units unpaid at once, refused in words with 429; held
 * units show as held (with when they come back) in GET /api/stock. The pure rules: src/core/stock.test.ts.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { OrderCreated, QuoteResponse, StockResponse } from '../../src/core/api';
import { scoped } from '../../src/server/seller/query';
import { startServer, type RunningServer } from '../../src/server/server';
import {
  Clock,
  fakeSignature,
  intlShipping,
  postgresBackend,
  RecordingTransport,
  sqliteBackend,
  testSettings,
  TestPrice,
  usShipping,
  type Backend,
} from './orders-support';
import { payoutAccountsAssumedToExist } from '../support/payout-accounts';
import { balancesAssumed, proofOf, TEST_PAYER } from '../support/hold-proof';
import { catalog } from '../../catalog';

const backends = [sqliteBackend(), postgresBackend()];
const EAGLES = 'eagles-xl-joystick-cropal-stick'; // QR, glass: one of a kind
const HONEY = 'honey-dew-papaya-live-rosin'; // QR, 25 in stock
const LILAC = 'lilac-tiptop'; // wallet, glass: one of a kind
const BATH = { productId: 'bathsalts-flower', variantId: 'zips' }; // wallet

describe.each(backends)('holds on $name', (backend: Backend) => {
  describe.runIf(backend.enabled)(`${backend.name} store`, () => {
    let server: RunningServer;
    let clock: Clock;
    let keyN = 0;
    let price: TestPrice;

    beforeEach(async () => {
      clock = new Clock();
      server = await startServer(testSettings({ HOLD_LIMIT_PER_CLIENT: '3' }), {
        payoutAccounts: payoutAccountsAssumedToExist,
        // Every wallet holds the money here (the hold rule with real balances: wallet-holds.test.ts).
        walletBalances: balancesAssumed(),
        store: await backend.fresh(),
        priceSource: (price = new TestPrice(clock, '0.5')),
        transport: new RecordingTransport(),
        now: clock.now,
        listen: false,
        startOutbox: false,
        expireEveryMs: 0,
      });
      await server.stock.set(BATH, 25, 'test', clock.now().toISOString());
    });
    afterEach(async () => {
      await server.close();
    });
    afterAll(async () => {
      await backend.cleanup();
    });

    const inject = (
      method: 'GET' | 'POST',
      url: string,
      payload?: unknown,
      headers = {},
      ip = '203.0.113.7',
    ) =>
      server.app.inject({
        method,
        url,
        remoteAddress: ip,
        ...(payload !== undefined ? { payload: payload as object } : {}),
        headers,
      });
    async function quote(item: { productId: string; variantId?: string }, quantity = 1, ip?: string) {
      const r = await inject('POST', '/api/quotes', { items: [{ ...item, quantity }] }, {}, ip);
      expect(r.statusCode, r.body).toBe(200);
      return r.json<QuoteResponse>();
    }
    const order = async (body: object, ip?: string) =>
      inject('POST', '/api/orders', body, { 'idempotency-key': `h-${++keyN}` }, ip);
    async function view(productId: string, ip?: string): Promise<OrderCreated> {
      const q = await quote({ productId }, 1, ip);
      const r = await order({ quote: q.quote, paymentMethod: 'qr' }, ip);
      expect(r.statusCode, r.body).toBe(201);
      return r.json<OrderCreated>();
    }
    async function buyNow(item: { productId: string; variantId?: string }, quantity = 1, ip?: string) {
      const q = await quote(item, quantity, ip);
      return order(
        {
          quote: q.quote,
          shipping: intlShipping,
          paymentMethod: 'wallet',
          payer: proofOf(TEST_PAYER, q.reference),
        },
        ip,
      );
    }
    const stock = async () => (await inject('GET', '/api/stock')).json<StockResponse>().lines;
    const line = async (productId: string, variantId?: string) =>
      (await stock()).find((l) => l.productId === productId && l.variantId === variantId);

    it('a script opening every QR page 100 times, and 20 addresses sending details, hold nothing: a buyer who pays gets the piece at once', async () => {
      const before = await stock();
      const qrProducts = catalog.products.filter((p) => p.payment === 'qr' && !p.variants).map((p) => p.id);
      expect(qrProducts).toContain(EAGLES);
      const records: OrderCreated[] = [];
      for (const productId of qrProducts) {
        const inStock = (await line(productId))?.available ?? 0;
        if (inStock === 0) continue; // a sold-out page makes no record
        for (let i = 0; i < 100; i++) {
          const r = await view(productId, `198.51.100.${i % 7}`);
          if (productId === EAGLES) records.push(r);
        }
      }
      expect(records).toHaveLength(100);
      // Every line is as it was: nothing held, nothing sold.
      expect(await stock()).toEqual(before);
      expect(await line(EAGLES)).toEqual({ productId: EAGLES, available: 1 });
      const reservations = await server.store.db.selectFrom('reservations').selectAll().execute();
      expect(reservations).toEqual([]);
      // The vendor's console lists none of them: a view is not an order.
      const listed = async () =>
        (
          await scoped(server.store.db, ['coopersglass'], {}, new Date().toISOString()).select('id').execute()
        ).map((r) => r.id);
      expect(await listed()).toEqual([]);
      // 20 addresses send their details (free to send, no money shown): nothing is held, the piece stays on sale.
      const tokenOf = (o: OrderCreated) => o.orderUrl.slice(o.orderUrl.lastIndexOf('/') + 1);
      for (let i = 0; i < 20; i++) {
        const r = records[i]!;
        const sent = await inject(
          'POST',
          `/api/orders/${r.orderId}/confirmation`,
          { shipping: usShipping, token: tokenOf(r) },
          {},
          `198.51.100.${100 + i}`,
        );
        expect(sent.statusCode, sent.body).toBe(200);
      }
      expect(await line(EAGLES)).toEqual({ productId: EAGLES, available: 1 });
      expect(await server.store.db.selectFrom('reservations').selectAll().execute()).toEqual([]);
      expect(await listed()).toHaveLength(20);
      // A buyer with the money: details, then their payment is seen → the piece is theirs at once.
      const mine = await view(EAGLES, '192.0.2.1');
      const sent = await inject(
        'POST',
        `/api/orders/${mine.orderId}/confirmation`,
        { shipping: usShipping, token: tokenOf(mine) },
        {},
        '192.0.2.1',
      );
      expect(sent.statusCode, sent.body).toBe(200);
      const paid = await server.orders.recordPayment(
        { orderId: mine.orderId },
        {
          signature: fakeSignature(),
          receivedBaseUnits: BigInt(mine.amountBaseUnits),
          finalized: true,
          blockTime: null,
        },
      );
      expect(paid).toMatchObject({ ok: true });
      expect((await inject('GET', `/api/orders/${mine.orderId}`)).json()).toMatchObject({ status: 'final' });
      expect(await line(EAGLES)).toEqual({ productId: EAGLES, available: 0 });
      // Another of the script's records sending details now: sold out, refused in words, nothing kept.
      const late = records[30]!;
      const refused = await inject('POST', `/api/orders/${late.orderId}/confirmation`, {
        shipping: usShipping,
        token: tokenOf(late),
      });
      expect(refused.statusCode).toBe(409);
      expect(refused.json()).toMatchObject({
        error: 'sold_out',
        message: 'Sold out: Eagles XL Joystick Cropal Stick is no longer available.',
      });
      const again = await inject('GET', `/api/orders/${late.orderId}`);
      expect(again.json()).toMatchObject({ shippingDetails: 'awaiting' });
    });

    it('one client holds at most the cap unpaid; a further hold is a plain 429; others are not affected', async () => {
      expect((await buyNow(BATH, 2)).statusCode).toBe(201);
      expect((await buyNow({ productId: LILAC })).statusCode).toBe(201);
      const over = await buyNow(BATH, 1);
      expect(over.statusCode).toBe(429);
      const body = over.json<{ error: string; message: string }>();
      expect(body.error).toBe('hold_limit');
      expect(body.message).toMatch(
        /^You already have 3 pieces reserved and unpaid, and one buyer can reserve at most 3 at once\. Pay for them or wait before reserving more\. The first comes back at \d\d:\d\d UTC if unpaid\.$/,
      );
      // QR details hold nothing, so they are not capped either (the payment takes the piece).
      const rec = await view(HONEY);
      const token = rec.orderUrl.slice(rec.orderUrl.lastIndexOf('/') + 1);
      const details = await inject('POST', `/api/orders/${rec.orderId}/confirmation`, {
        shipping: usShipping,
        token,
      });
      expect(details.statusCode).toBe(200);
      // Another buyer (another address) is not affected.
      expect((await buyNow(BATH, 3, '192.0.2.55')).statusCode).toBe(201);
      // Once the holds lapse, the client may hold again.
      clock.advance(16 * 60_000);
      await server.orders.expireOrders();
      price.set('0.5');
      expect((await buyNow(BATH, 3)).statusCode).toBe(201);
    });

    it('held pieces show as held with when they come back (the hold is short: 5 min, not the quote); then back on sale', async () => {
      const at = clock.now().getTime();
      const r = await buyNow({ productId: LILAC });
      const created = r.json<OrderCreated>();
      expect(Date.parse(created.expiresAt)).toBe(at + 15 * 60_000);
      expect(await line(LILAC)).toEqual({
        productId: LILAC,
        available: 0,
        held: 1,
        heldUntil: new Date(at + 5 * 60_000).toISOString(),
      });
      clock.advance(5 * 60_000);
      await server.orders.expireOrders();
      expect(await line(LILAC)).toEqual({ productId: LILAC, available: 1 });
    });

    it("a hold is released on its own deadline whatever the watcher's lag; a payment after that is judged by the sale rule", async () => {
      // The payment watcher is stalled: it has judged nothing after the start (expiry of orders waits for it).
      const stalledAt = clock.now();
      server.lanes.serve({ chainClock: async () => stalledAt });
      const first = (await buyNow({ productId: LILAC })).json<OrderCreated>();
      expect(await line(LILAC)).toMatchObject({ available: 0, held: 1 });
      clock.advance(5 * 60_000 + 1000);
      price.set('0.5');
      await server.orders.expireOrders();
      // Back on sale although the order is not expired (its 15 min window is open, and the watcher lags).
      expect(await line(LILAC)).toEqual({ productId: LILAC, available: 1 });
      expect((await inject('GET', `/api/orders/${first.orderId}`)).json()).toMatchObject({
        status: 'awaiting_payment',
      });
      const log = await server.stock.recentChanges([LILAC], 5);
      expect(log[0]).toMatchObject({ kind: 'release', actor: 'expiry', orderId: first.orderId });
      // Another buyer takes it; the first buyer's payment then finds it gone: oversold (the seller refunds).
      const second = (await buyNow({ productId: LILAC }, 1, '192.0.2.80')).json<OrderCreated>();
      const paid = await server.orders.recordPayment(
        { orderId: first.orderId },
        {
          signature: fakeSignature(),
          receivedBaseUnits: BigInt(first.amountBaseUnits),
          finalized: true,
          blockTime: null,
        },
      );
      expect(paid).toMatchObject({ ok: true });
      expect((await inject('GET', `/api/orders/${first.orderId}`)).json()).toMatchObject({
        status: 'oversold',
      });
      const paid2 = await server.orders.recordPayment(
        { orderId: second.orderId },
        {
          signature: fakeSignature(),
          receivedBaseUnits: BigInt(second.amountBaseUnits),
          finalized: true,
          blockTime: null,
        },
      );
      expect(paid2).toMatchObject({ ok: true });
      expect((await inject('GET', `/api/orders/${second.orderId}`)).json()).toMatchObject({
        status: 'final',
      });
      expect((await server.stock.levels()).find((l) => l.productId === LILAC)).toMatchObject({
        onHand: 0,
        reserved: 0,
      });
    });

    it('a concurrent burst from one client holds at most its cap (checked inside the reservation)', async () => {
      const quotes = await Promise.all(Array.from({ length: 12 }, () => quote(BATH, 1)));
      const answers = await Promise.all(
        quotes.map((q) =>
          order({
            quote: q.quote,
            shipping: intlShipping,
            paymentMethod: 'wallet',
            payer: proofOf(TEST_PAYER, q.reference),
          }),
        ),
      );
      const codes = answers.map((a) => a.statusCode);
      expect(codes.filter((c) => c === 201)).toHaveLength(3);
      expect(codes.filter((c) => c === 429)).toHaveLength(9);
      expect(await line(BATH.productId, BATH.variantId)).toMatchObject({ available: 22, held: 3 });
      const held = await server.store.db
        .selectFrom('reservations')
        .select((eb) => eb.fn.sum<number>('quantity').as('n'))
        .where('state', '=', 'held')
        .executeTakeFirst();
      expect(Number(held?.n)).toBe(3);
    });

    it('an unpriced QR order (quotes refused) holds nothing and expires a day after its quote', async () => {
      price.set(undefined);
      const before = await line(HONEY);
      const made: string[] = [];
      for (let i = 0; i < 6; i++) {
        const r = await inject('POST', '/api/quotes', {
          items: [{ productId: HONEY, quantity: 3 }],
          unpriced: true,
        });
        expect(r.statusCode, r.body).toBe(200);
        const created = await order({
          quote: r.json<{ quote: string }>().quote,
          shipping: usShipping,
          paymentMethod: 'qr',
        });
        expect(created.statusCode, created.body).toBe(201);
        made.push(created.json<OrderCreated>().orderId);
      }
      // 18 units asked by one client (cap 3): nothing held, nothing refused, the line as it was.
      expect(await line(HONEY)).toEqual(before);
      clock.advance(15 * 60_000 + 23 * 3600_000);
      await server.orders.expireOrders();
      expect((await inject('GET', `/api/orders/${made[0]}`)).json()).toMatchObject({
        status: 'awaiting_payment',
      });
      clock.advance(3600_000);
      await server.orders.expireOrders();
      for (const id of made)
        expect((await inject('GET', `/api/orders/${id}`)).json()).toMatchObject({ status: 'expired' });
      expect(await line(HONEY)).toEqual(before);
    });

    it('the vendor releases what is held on a line; the orders stay open', async () => {
      const o = (await buyNow({ productId: LILAC })).json<OrderCreated>();
      expect(await line(LILAC)).toMatchObject({ available: 0, held: 1 });
      const at = clock.now().toISOString();
      expect(await server.stock.releaseHoldsOf({ productId: LILAC }, 'seller:test', at)).toBe(1);
      expect(await server.stock.releaseHoldsOf({ productId: LILAC }, 'seller:test', at)).toBe(0);
      expect(await line(LILAC)).toEqual({ productId: LILAC, available: 1 });
      expect((await inject('GET', `/api/orders/${o.orderId}`)).json()).toMatchObject({
        status: 'awaiting_payment',
      });
      // Its payment still comes, and the piece is free: sold.
      const paid = await server.orders.recordPayment(
        { orderId: o.orderId },
        {
          signature: fakeSignature(),
          receivedBaseUnits: BigInt(o.amountBaseUnits),
          finalized: true,
          blockTime: null,
        },
      );
      expect(paid).toMatchObject({ ok: true });
      expect((await server.stock.levels()).find((l) => l.productId === LILAC)).toMatchObject({
        onHand: 0,
        reserved: 0,
      });
    });
  });
});
