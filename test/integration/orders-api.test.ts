/**
 * The order API in-process (app.inject) against a real store: a SQLite FILE, and PostgreSQL when
 * TEST_DATABASE_URL is set. One suite, both dialects.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseURL } from 'solana-pay-client';
import type {
  AnyOrderCreated,
  OrderCreated,
  OrderPublic,
  QuoteResponse,
  UnpricedQuoteResponse,
} from '../../src/core/api';
import { signQuote, type SignedQuote } from '../../src/server/orders/quotes';
import { renderEmail } from '../../src/server/mail/templates';
import type { OutgoingEmail } from '../../src/server/mail/types';
import { startServer, type RunningServer } from '../../src/server/server';
import { restock } from '../support/stock';
import { shippingOfRow } from '../support/sealed';
import {
  Clock,
  fakeSignature,
  intlShipping,
  keys,
  postgresBackend,
  RecordingTransport,
  SELLER,
  sqliteBackend,
  testSettings,
  TestPrice,
  usShipping,
  type Backend,
} from './orders-support';
import { payoutAccountsAssumedToExist } from '../support/payout-accounts';

const backends = [sqliteBackend(), postgresBackend()];

describe.each(backends)('order API on $name', (backend: Backend) => {
  describe.runIf(backend.enabled)(`${backend.name} store`, () => {
    let server: RunningServer;
    let clock: Clock;
    let price: TestPrice;
    let transport: RecordingTransport;
    let hints: { orderId: string; signature: string }[];
    let keyN = 0;

    beforeEach(async () => {
      clock = new Clock();
      price = new TestPrice(clock, '0.5');
      transport = new RecordingTransport();
      hints = [];
      server = await startServer(testSettings(), {
        payoutAccounts: payoutAccountsAssumedToExist,
        store: await backend.fresh(),
        priceSource: price,
        transport,
        now: clock.now,
        listen: false,
        startOutbox: false,
        expireEveryMs: 0,
      });
      // The hint route hands the wallet's hint to the watcher's hint lane: served here by the test.
      server.lanes.serve({
        hint: (order, signature) => {
          hints.push({ orderId: order.orderId, signature });
        },
      });
      // Several tests place more than one order of this glass piece (one of a kind); stock rules have their own
      // suite (stock.test.ts).
      await restock(server, 'sonic-crushed-opal-spillproof', 10);
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
      headers: Record<string, string> = {},
    ) =>
      server.app.inject({
        method,
        url,
        ...(payload !== undefined ? { payload: payload as object } : {}),
        headers,
      });

    async function quote(items: unknown[]): Promise<QuoteResponse> {
      const r = await inject('POST', '/api/quotes', { items });
      expect(r.statusCode, r.body).toBe(200);
      return r.json<QuoteResponse>();
    }
    const key = () => `key-${++keyN}-${Math.random().toString(36).slice(2)}`;
    async function order(body: Record<string, unknown>, k = key()) {
      return inject('POST', '/api/orders', body, { 'idempotency-key': k });
    }
    async function walletOrder(): Promise<OrderCreated> {
      const q = await quote([{ productId: 'sonic-crushed-opal-spillproof', quantity: 1 }]);
      const r = await order({
        quote: q.quote,
        shipping: intlShipping,
        paymentMethod: 'wallet',
        referrer: 'friend42',
      });
      expect(r.statusCode, r.body).toBe(201);
      return r.json<OrderCreated>();
    }
    async function qrOrder(quantity = 2): Promise<OrderCreated> {
      const q = await quote([{ productId: 'honey-dew-papaya-live-rosin', quantity }]);
      const r = await order({ quote: q.quote, shipping: usShipping, paymentMethod: 'qr' });
      expect(r.statusCode, r.body).toBe(201);
      return r.json<OrderCreated>();
    }
    const getOrder = async (id: string) => (await inject('GET', `/api/orders/${id}`)).json<OrderPublic>();
    /** "Send Order Confirmation" as the order's page sends it: with its page token (the id alone is refused). */
    const confirm = (o: { orderId: string; orderUrl: string }) =>
      inject('POST', `/api/orders/${o.orderId}/confirmation`, {
        token: o.orderUrl.slice(o.orderUrl.lastIndexOf('/') + 1),
      });

    it('answers health once the store is open and migrated', async () => {
      const r = await inject('GET', '/api/health');
      expect(r.statusCode).toBe(200);
      expect(server.store.ready()).toBe(true);
    });

    it('answers health 503 once the store is closed', async () => {
      await server.store.close();
      const r = await inject('GET', '/api/health');
      expect(r.statusCode).toBe(503);
      expect(r.json()).toMatchObject({ ok: false, error: 'not_ready' });
    });

    it('listens on a free port with PORT=0 and reports the real URL', async () => {
      const listening = await startServer(testSettings(), {
        payoutAccounts: payoutAccountsAssumedToExist,
        store: await backend.fresh(),
        priceSource: price,
        transport,
        now: clock.now,
        startOutbox: false,
        expireEveryMs: 0,
      });
      try {
        expect(listening.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        expect(listening.url).not.toMatch(/:0$/);
        const health = await fetch(`${listening.url}/api/health`);
        expect(health.status).toBe(200);
        const q = await fetch(`${listening.url}/api/quotes`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ items: [{ productId: 'lilac-tiptop', quantity: 1 }] }),
        });
        expect(q.status).toBe(200);
        expect(((await q.json()) as QuoteResponse).totalCents).toBe(9500);
      } finally {
        await listening.close();
      }
    });

    describe('quotes', () => {
      it('prices from the catalogue and the current price, with a Solana Pay URL', async () => {
        const q = await quote([{ productId: 'garlic-amaretto-live-resin', quantity: 2 }]);
        expect(q.totalCents).toBe(10_000);
        expect(q.items).toEqual([
          {
            productId: 'garlic-amaretto-live-resin',
            name: 'Garlic Amaretto Live Resin',
            quantity: 2,
            unitCents: 5000,
            lineCents: 10_000,
          },
        ]);
        expect(q.priceUsd).toBe('0.5');
        expect(q.amountBaseUnits).toBe('200000000');
        expect(q.amount).toBe('200.000000');
        expect(q.recipient).toBe(keys.gorilla);
        expect(q.mint).toBe(keys.mint);
        expect(Date.parse(q.expiresAt) - clock.ms).toBe(15 * 60_000);
        const parsed = parseURL(q.solanaPayUrl);
        if (!('recipient' in parsed)) throw new Error('not a transfer request');
        expect(String(parsed.recipient)).toBe(keys.gorilla);
        expect(String(parsed.splToken)).toBe(keys.mint);
        expect(parsed.reference?.map(String)).toEqual([q.reference]);
        expect(parsed.amount?.toString()).toBe('200');
        expect(parsed.label).toBe('Gorilla Pack Genetics');
        expect(parsed.message).toBe('2 × Garlic Amaretto Live Resin');
      });

      it('uses catalogue prices: Eagles XL 85, QR pages 50 × quantity; BathSalts variants; restocked sold-out products sell', async () => {
        price.set('3');
        // BathSalts and Strawberry Fritter start sold out (no stock): the seller restocks them first.
        await restock(server, { productId: 'bathsalts-flower', variantId: 'zips' }, 2);
        await restock(server, 'strawberry-fritter-live-rosin', 1);
        const eagles = await quote([{ productId: 'eagles-xl-joystick-cropal-stick', quantity: 1 }]);
        expect(eagles.totalCents).toBe(8500);
        expect(eagles.amountBaseUnits).toBe('28333333'); // 85 / 3 = 28.3333333… → 28.333333
        expect(eagles.recipient).toBe(keys.coopersglass);
        const honey = await quote([{ productId: 'honey-dew-papaya-live-rosin', quantity: 3 }]);
        expect(honey.totalCents).toBe(15_000);
        expect(honey.amount).toBe('50.000000');
        // Zips $200.
        const zips = await quote([{ productId: 'bathsalts-flower', variantId: 'zips', quantity: 2 }]);
        expect(zips.totalCents).toBe(40_000);
        expect(zips.amount).toBe('133.333333'); // $400 at $3 per $CLAIM
        const fritter = await quote([{ productId: 'strawberry-fritter-live-rosin', quantity: 1 }]);
        expect(fritter.totalCents).toBe(5_000);
      });

      it('gives fresh references each time', async () => {
        const a = await quote([{ productId: 'lilac-tiptop', quantity: 1 }]);
        const b = await quote([{ productId: 'lilac-tiptop', quantity: 1 }]);
        expect(a.reference).not.toBe(b.reference);
      });

      it.each([
        [
          { items: [{ productId: 'no-such-thing', quantity: 1 }] },
          400,
          'unknown_product',
          'items.0.productId',
        ],
        [
          {
            items: [
              { productId: 'lilac-tiptop', quantity: 1 },
              { productId: 'garlic-amaretto-live-resin', quantity: 1 },
            ],
          },
          400,
          'mixed_vendors',
          'items.1.productId',
        ],
        [
          {
            items: [
              { productId: 'garlic-amaretto-live-resin', quantity: 1 },
              { productId: 'honey-dew-papaya-live-rosin', quantity: 1 },
            ],
          },
          400,
          'mixed_payment',
          'items.1.productId',
        ],
        [
          { items: [{ productId: 'lilac-tiptop', variantId: 'zips', quantity: 1 }] },
          400,
          'invalid_variant',
          'items.0.variantId',
        ],
        [
          { items: [{ productId: 'lilac-tiptop', quantity: 2 }] },
          400,
          'invalid_quantity',
          'items.0.quantity',
        ],
        [
          { items: [{ productId: 'garlic-amaretto-live-resin', quantity: 0 }] },
          400,
          'invalid_quote_request',
          'items.0.quantity',
        ],
        [
          { items: [{ productId: 'garlic-amaretto-live-resin', quantity: 100 }] },
          400,
          'invalid_quote_request',
          'items.0.quantity',
        ],
        [
          { items: [{ productId: 'garlic-amaretto-live-resin', quantity: 1.5 }] },
          400,
          'invalid_quote_request',
          'items.0.quantity',
        ],
        [
          { items: [{ productId: 'garlic-amaretto-live-resin', quantity: '2' }] },
          400,
          'invalid_quote_request',
          'items.0.quantity',
        ],
        [
          { items: [{ productId: 'garlic-amaretto-live-resin', quantity: 1, unitCents: 1 }] },
          400,
          'invalid_quote_request',
          'items.0',
        ],
        [{ items: [] }, 400, 'invalid_quote_request', 'items'],
        [
          {
            items: [
              { productId: 'garlic-amaretto-live-resin', quantity: 1 },
              { productId: 'garlic-amaretto-live-resin', quantity: 1 },
            ],
          },
          400,
          'duplicate_item',
          'items.1',
        ],
      ])('refuses %j with %i %s', async (body, status, error, field) => {
        const r = await inject('POST', '/api/quotes', body);
        expect(r.statusCode).toBe(status);
        expect(r.json()).toMatchObject({ error, field });
        expect(r.json().message.length).toBeGreaterThan(5);
      });

      it('refuses malformed JSON with 400', async () => {
        const r = await server.app.inject({
          method: 'POST',
          url: '/api/quotes',
          payload: '{"items":',
          headers: { 'content-type': 'application/json' },
        });
        expect(r.statusCode).toBe(400);
      });

      it('refuses with 503 when the price is unknown, stale (> 60 s) or unusable', async () => {
        price.set(undefined);
        let r = await inject('POST', '/api/quotes', { items: [{ productId: 'lilac-tiptop', quantity: 1 }] });
        expect(r.statusCode).toBe(503);
        expect(r.json()).toMatchObject({ error: 'price_unavailable' });
        price.set('0.5', 60_001);
        r = await inject('POST', '/api/quotes', { items: [{ productId: 'lilac-tiptop', quantity: 1 }] });
        expect(r.statusCode).toBe(503);
        price.set('0.5', 60_000);
        r = await inject('POST', '/api/quotes', { items: [{ productId: 'lilac-tiptop', quantity: 1 }] });
        expect(r.statusCode).toBe(200);
        price.set('-1');
        r = await inject('POST', '/api/quotes', { items: [{ productId: 'lilac-tiptop', quantity: 1 }] });
        expect(r.statusCode).toBe(503);
      });
    });

    describe('orders', () => {
      it('quote → order → status, without shipping details in the public view', async () => {
        const q = await quote([{ productId: 'sonic-crushed-opal-spillproof', quantity: 1 }]);
        const r = await order({
          quote: q.quote,
          shipping: intlShipping,
          paymentMethod: 'wallet',
          referrer: 'friend42',
        });
        expect(r.statusCode).toBe(201);
        const created = r.json<OrderCreated>();
        expect(created).toMatchObject({
          reference: q.reference,
          solanaPayUrl: q.solanaPayUrl,
          amount: '650.000000',
          amountBaseUnits: '650000000',
          recipient: keys.coopersglass,
          mint: keys.mint,
          expiresAt: q.expiresAt,
        });
        const g = await inject('GET', `/api/orders/${created.orderId}`);
        expect(g.statusCode).toBe(200);
        const pub = g.json<OrderPublic>();
        expect(pub).toMatchObject({
          orderId: created.orderId,
          status: 'awaiting_payment',
          paymentMethod: 'wallet',
          totalCents: 32_500,
          emails: [],
        });
        expect(pub.history).toEqual([{ status: 'awaiting_payment', at: clock.now().toISOString() }]);
        expect(g.body).not.toContain('Ada');
        expect(g.body).not.toContain('ada@example.com');
        expect(g.body).not.toContain('London');
        // The order is really stored with its shipping and referrer.
        const row = await server.store.db
          .selectFrom('orders')
          .selectAll()
          .where('id', '=', created.orderId)
          .executeTakeFirstOrThrow();
        expect(row.shipping_json).toMatch(/^sealed:v1:/);
        expect(shippingOfRow(testSettings(), row)).toMatchObject({
          fullName: 'Ada Lovelace',
          kind: 'international',
        });
        expect(row.referrer).toBe('friend42');
        expect(row.payment_method).toBe('wallet');
      });

      it('replays the first response for the same key and body, 409 for a different body', async () => {
        const q = await quote([{ productId: 'lilac-tiptop', quantity: 1 }]);
        const body = { quote: q.quote, shipping: intlShipping, paymentMethod: 'wallet' };
        const first = await order(body, 'same-key');
        expect(first.statusCode).toBe(201);
        // Key order in the JSON does not matter; the replay works after the quote expired too.
        clock.advance(16 * 60_000);
        const again = await order(
          { paymentMethod: 'wallet', shipping: intlShipping, quote: q.quote },
          'same-key',
        );
        expect(again.statusCode).toBe(201);
        expect(again.json()).toEqual(first.json());
        expect(again.headers['idempotent-replayed']).toBe('true');
        const other = await order({ ...body, referrer: 'someone' }, 'same-key');
        expect(other.statusCode).toBe(409);
        expect(other.json()).toMatchObject({ error: 'idempotency_key_reused', field: 'Idempotency-Key' });
        const count = await server.store.db
          .selectFrom('orders')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow();
        expect(Number(count.n)).toBe(1);
      });

      it('requires an Idempotency-Key of 1–128 visible characters', async () => {
        const q = await quote([{ productId: 'lilac-tiptop', quantity: 1 }]);
        const body = { quote: q.quote, shipping: intlShipping, paymentMethod: 'wallet' };
        for (const headers of [
          {},
          { 'idempotency-key': '' },
          { 'idempotency-key': 'x'.repeat(129) },
          { 'idempotency-key': 'a b' },
        ] as Record<string, string>[]) {
          const r = await inject('POST', '/api/orders', body, headers);
          expect(r.statusCode).toBe(400);
          expect(r.json()).toMatchObject({ error: 'idempotency_key_required', field: 'Idempotency-Key' });
        }
        expect((await order(body, 'x'.repeat(128))).statusCode).toBe(201);
      });

      it('refuses a second order on the same quote (UNIQUE reference)', async () => {
        const q = await quote([{ productId: 'lilac-tiptop', quantity: 1 }]);
        const body = { quote: q.quote, shipping: intlShipping, paymentMethod: 'wallet' };
        expect((await order(body)).statusCode).toBe(201);
        const r = await order(body);
        expect(r.statusCode).toBe(409);
        expect(r.json()).toMatchObject({ error: 'quote_already_used', field: 'quote' });
      });

      it('rejects a tampered quote', async () => {
        const q = await quote([{ productId: 'lilac-tiptop', quantity: 1 }]);
        const [payload, mac] = q.quote.split('.') as [string, string];
        const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
        decoded.totalCents = 1;
        decoded.amountBaseUnits = '1';
        const forged = `${Buffer.from(JSON.stringify(decoded)).toString('base64url')}.${mac}`;
        for (const bad of [
          forged,
          `${payload}.${mac.slice(0, -2)}AA`,
          'garbage',
          `${payload}`,
          `${payload}.${mac}.x`,
        ]) {
          const r = await order({ quote: bad, shipping: intlShipping, paymentMethod: 'wallet' });
          expect(r.statusCode).toBe(400);
          expect(r.json()).toMatchObject({ error: 'invalid_quote', field: 'quote' });
        }
      });

      it('rejects an expired quote with 410', async () => {
        const q = await quote([{ productId: 'lilac-tiptop', quantity: 1 }]);
        clock.advance(15 * 60_000);
        const r = await order({ quote: q.quote, shipping: intlShipping, paymentMethod: 'wallet' });
        expect(r.statusCode).toBe(410);
        expect(r.json()).toMatchObject({ error: 'quote_expired', field: 'quote' });
        expect(r.json().message).toContain('expired');
      });

      it.each(['fullName', 'email', 'address1', 'city', 'stateProvince', 'postalCode', 'country'])(
        'wallet orders require %s, with the spec alert',
        async (field) => {
          const q = await quote([{ productId: 'lilac-tiptop', quantity: 1 }]);
          const r = await order({
            quote: q.quote,
            shipping: { ...intlShipping, [field]: ' ' },
            paymentMethod: 'wallet',
          });
          expect(r.statusCode).toBe(400);
          expect(r.json()).toMatchObject({
            error: 'invalid_shipping',
            message: 'Please fill out all required shipping details first!',
            field: `shipping.${field}`,
          });
        },
      );

      it.each(['fullName', 'email', 'address1', 'city', 'usState', 'zip'])(
        'QR orders require %s, with the spec alert',
        async (field) => {
          const q = await quote([{ productId: 'honey-dew-papaya-live-rosin', quantity: 1 }]);
          const shipping: Record<string, unknown> = { ...usShipping };
          delete shipping[field];
          const r = await order({ quote: q.quote, shipping, paymentMethod: 'qr' });
          expect(r.statusCode).toBe(400);
          expect(r.json()).toMatchObject({
            error: 'invalid_shipping',
            message: 'Please fill out all required shipping details.',
            field: `shipping.${field}`,
          });
        },
      );

      it.each([
        ['a bad e-mail', { email: 'not-an-email' }, 'shipping.email', 'e-mail address'],
        ['a too long city', { city: 'x'.repeat(201) }, 'shipping.city', 'at most 200'],
        ['an unknown field', { admin: true }, 'shipping', 'Unknown field'],
        [
          'a control character',
          { fullName: 'Ada\nBcc: evil@x.y' },
          'shipping.fullName',
          'control characters',
        ],
      ])('refuses shipping with %s', async (_what, patch, field, message) => {
        const q = await quote([{ productId: 'lilac-tiptop', quantity: 1 }]);
        const r = await order({
          quote: q.quote,
          shipping: { ...intlShipping, ...patch },
          paymentMethod: 'wallet',
        });
        expect(r.statusCode).toBe(400);
        expect(r.json()).toMatchObject({ error: 'invalid_shipping', field });
        expect(r.json().message).toContain(message);
      });

      it('refuses the wrong form, state, ZIP and payment method for the product', async () => {
        const qr = await quote([{ productId: 'honey-dew-papaya-live-rosin', quantity: 1 }]);
        let r = await order({ quote: qr.quote, shipping: intlShipping, paymentMethod: 'qr' });
        expect(r.json()).toMatchObject({ error: 'invalid_shipping', field: 'shipping.kind' });
        r = await order({ quote: qr.quote, shipping: { ...usShipping, usState: 'DC' }, paymentMethod: 'qr' });
        expect(r.json()).toMatchObject({ error: 'invalid_shipping', field: 'shipping.usState' });
        r = await order({ quote: qr.quote, shipping: { ...usShipping, zip: '1234' }, paymentMethod: 'qr' });
        expect(r.json()).toMatchObject({ error: 'invalid_shipping', field: 'shipping.zip' });
        r = await order({ quote: qr.quote, shipping: usShipping, paymentMethod: 'wallet' });
        expect(r.statusCode).toBe(400);
        expect(r.json()).toMatchObject({ error: 'invalid_payment_method', field: 'paymentMethod' });
        r = await order({ quote: qr.quote, shipping: 'Navy Way', paymentMethod: 'qr' });
        expect(r.json()).toMatchObject({ error: 'invalid_shipping', field: 'shipping' });
        r = await order({ quote: qr.quote, shipping: usShipping, paymentMethod: 'qr', extra: 1 });
        expect(r.json()).toMatchObject({ error: 'invalid_order_request' });
        r = await order({ shipping: usShipping, paymentMethod: 'qr' });
        expect(r.json()).toMatchObject({ error: 'invalid_order_request', field: 'quote' });
        r = await order({
          quote: qr.quote,
          shipping: usShipping,
          paymentMethod: 'qr',
          referrer: 'x'.repeat(201),
        });
        expect(r.json()).toMatchObject({ error: 'invalid_order_request', field: 'referrer' });
        const count = await server.store.db
          .selectFrom('orders')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow();
        expect(Number(count.n)).toBe(0);
      });

      it('answers 404 for an unknown order and 400 for a malformed id', async () => {
        const r404 = await inject('GET', '/api/orders/00000000-0000-4000-8000-000000000000');
        expect(r404.statusCode).toBe(404);
        expect(r404.json()).toMatchObject({ error: 'order_not_found' });
        for (const bad of ['abc', '1%27%20or%201=1', 'DF6042F3-1012-4F53-B30A-08B16287BF3E0']) {
          const r = await inject('GET', `/api/orders/${bad}`);
          expect(r.statusCode).toBe(400);
          expect(r.json()).toMatchObject({ error: 'invalid_order_id' });
        }
      });
    });

    describe('payments, confirmations and expiry', () => {
      it('a wallet payment marks the order paid, queues seller then buyer, and finalizes', async () => {
        const o = await walletOrder();
        const sig = fakeSignature();
        const blockTime = Math.floor(clock.ms / 1000);
        const r = await server.orders.recordPayment(
          { reference: o.reference },
          { signature: sig, receivedBaseUnits: 650_000_000n, finalized: false, blockTime },
        );
        expect(r).toMatchObject({ ok: true, changed: true, status: 'paid' });
        // Recording again is a no-op; finalized moves it to final.
        expect(
          await server.orders.recordPayment(
            { orderId: o.orderId },
            { signature: sig, receivedBaseUnits: 650_000_000n, finalized: false, blockTime },
          ),
        ).toMatchObject({
          ok: true,
          changed: false,
        });
        clock.advance(20_000);
        expect(
          await server.orders.recordPayment(
            { orderId: o.orderId },
            { signature: sig, receivedBaseUnits: 650_000_000n, finalized: true, blockTime },
          ),
        ).toMatchObject({
          ok: true,
          status: 'final',
        });
        const pub = await getOrder(o.orderId);
        expect(pub.status).toBe('final');
        expect(pub.signature).toBe(sig);
        expect(pub.receivedBaseUnits).toBe('650000000');
        expect(pub.history.map((h) => h.status)).toEqual(['awaiting_payment', 'paid', 'final']);
        expect(pub.emails).toEqual([
          { kind: 'order_confirmation', recipient: 'seller', state: 'pending', attempts: 0 },
          { kind: 'order_confirmation', recipient: 'buyer', state: 'pending', attempts: 0 },
        ]);

        const run = await server.outbox.runOnce();
        expect(run).toEqual({ sent: 2, retrying: 0, failed: 0 });
        expect(transport.sent.map((m) => [m.role, m.to])).toEqual([
          ['seller', SELLER],
          ['buyer', 'ada@example.com'],
        ]);
        expect(transport.sent[0]?.payload).toEqual({
          from_name: 'Ada Lovelace',
          email: 'ada@example.com',
          shippingAddress: '12 St James Square, London, Greater London, SW1Y 4JH, United Kingdom',
          product: 'Sonic Crushed Opal Spillproof',
          totalUSD: '325.00',
          totalCLAIM: '650.000000',
          to_name: 'Seller',
          seller_email: SELLER,
          // Ours: quantity on wallet orders too, the order number, the transaction link (the order page link is
          // the buyer's alone).
          quantity: '1',
          orderNumber: o.orderId.slice(0, 8).toUpperCase(),
          // The test settings are mainnet's: a plain explorer link.
          transactionLinks: `https://explorer.solana.com/tx/${sig}`,
        });
        expect(transport.sent[0]).toMatchObject({
          payoutGroup: 'coopersglass',
          paymentSeen: true,
          kind: 'order_confirmation',
          orderId: o.orderId,
        });
        // The buyer's message names the vendor and how to reach it: its seller address (replies go there).
        expect(transport.sent[1]?.payload).toMatchObject({
          to_name: 'Ada Lovelace',
          vendor_name: 'Coopers Glass',
          vendor_email: SELLER,
          orderUrl: o.orderUrl,
        });
        expect(transport.sent[1]?.payload).not.toHaveProperty('vendor_telegram');
        const after = await getOrder(o.orderId);
        expect(after.emails.map((e) => [e.recipient, e.state, e.attempts])).toEqual([
          ['seller', 'sent', 1],
          ['buyer', 'sent', 1],
        ]);
        expect(after.emails[0]?.deliveredAt).toBe(clock.now().toISOString());
      });

      it('one signature pays at most one order', async () => {
        const a = await walletOrder();
        const b = await walletOrder();
        const sig = fakeSignature();
        expect(
          await server.orders.recordPayment(
            { orderId: a.orderId },
            { signature: sig, receivedBaseUnits: 650_000_000n, finalized: false, blockTime: null },
          ),
        ).toMatchObject({ ok: true });
        expect(
          await server.orders.recordPayment(
            { orderId: b.orderId },
            { signature: sig, receivedBaseUnits: 650_000_000n, finalized: false, blockTime: null },
          ),
        ).toEqual({
          ok: false,
          reason: 'signature_used',
          otherOrderId: a.orderId,
        });
        expect(await server.orders.isSignatureUsed(sig)).toBe(true);
        expect((await getOrder(b.orderId)).status).toBe('awaiting_payment');
        // A second, different payment on a paid order is recorded as an extra payment; the order stays paid.
        expect(
          await server.orders.recordPayment(
            { orderId: a.orderId },
            { signature: fakeSignature(), receivedBaseUnits: 1n, finalized: false, blockTime: null },
          ),
        ).toMatchObject({
          ok: true,
          status: 'paid',
          role: 'extra',
        });
        expect(
          await server.orders.recordPayment(
            { reference: 'nope' },
            { signature: fakeSignature(), receivedBaseUnits: 1n, finalized: false, blockTime: null },
          ),
        ).toEqual({
          ok: false,
          reason: 'order_not_found',
        });
      });

      it('records underpaid (the seller is told, no confirmations) and paid_late', async () => {
        const short = await walletOrder();
        // Short while the quote is open: in the ledger, the order stays payable.
        expect(
          await server.orders.recordPayment(
            { orderId: short.orderId },
            {
              signature: fakeSignature(),
              receivedBaseUnits: 649_999_999n,
              finalized: false,
              blockTime: null,
            },
          ),
        ).toMatchObject({
          ok: true,
          status: 'awaiting_payment',
          role: 'partial',
        });
        expect((await getOrder(short.orderId)).emails).toEqual([]);
        // A short payment after the expiry is underpaid at once (a real short sum: dust e-mails nobody).
        const lateShort = await walletOrder();
        const afterExpiry = Math.floor(Date.parse(lateShort.expiresAt) / 1000) + 1;
        expect(
          await server.orders.recordPayment(
            { orderId: lateShort.orderId },
            {
              signature: fakeSignature(),
              receivedBaseUnits: 300_000_000n,
              finalized: false,
              blockTime: afterExpiry,
            },
          ),
        ).toMatchObject({ ok: true, status: 'underpaid', role: 'partial' });
        // The seller, and the buyer too (with the link for the missing amount).
        expect((await getOrder(lateShort.orderId)).emails.map((e) => [e.kind, e.recipient])).toEqual([
          ['payment_underpaid', 'seller'],
          ['payment_underpaid', 'buyer'],
        ]);

        const late = await walletOrder();
        const lateBlock = Math.floor(Date.parse(late.expiresAt) / 1000) + 1;
        expect(
          await server.orders.recordPayment(
            { orderId: late.orderId },
            {
              signature: fakeSignature(),
              receivedBaseUnits: 650_000_000n,
              finalized: true,
              blockTime: lateBlock,
            },
          ),
        ).toMatchObject({
          ok: true,
          status: 'paid_late',
        });
        // Paid in full, late: the seller gets the distinct 'review before shipping' note, the buyer a note that
        // the seller will confirm.
        expect((await getOrder(late.orderId)).emails.map((e) => [e.kind, e.recipient])).toEqual([
          ['paid_late', 'seller'],
          ['paid_late', 'buyer'],
        ]);
      });

      it('expires unpaid orders and records a later payment as paid_late', async () => {
        const o = await walletOrder();
        expect(await server.orders.expireOrders(new Date(clock.ms + 14 * 60_000))).toBe(0);
        clock.advance(15 * 60_000);
        expect(await server.orders.expireOrders()).toBe(1);
        expect(await server.orders.expireOrders()).toBe(0);
        expect((await getOrder(o.orderId)).history.map((h) => h.status)).toEqual([
          'awaiting_payment',
          'expired',
        ]);
        const watch = await server.orders.ordersToWatch();
        expect(watch.map((w) => w.orderId)).toContain(o.orderId);
        // Recorded a second after the expiry (no block time: the recording time decides lateness).
        clock.advance(1000);
        expect(
          await server.orders.recordPayment(
            { orderId: o.orderId },
            {
              signature: fakeSignature(),
              receivedBaseUnits: 650_000_000n,
              finalized: false,
              blockTime: null,
            },
          ),
        ).toMatchObject({
          ok: true,
          status: 'paid_late',
        });
      });

      it('an expired order paid by a block before its expiry is paid (time is the chain’s), its piece taken back', async () => {
        const o = await walletOrder();
        const expiresAtS = Date.parse((await getOrder(o.orderId)).expiresAt) / 1000;
        clock.advance(15 * 60_000);
        expect(await server.orders.expireOrders()).toBe(1);
        expect(
          await server.orders.recordPayment(
            { orderId: o.orderId },
            {
              signature: fakeSignature(),
              receivedBaseUnits: 650_000_000n,
              finalized: false,
              blockTime: expiresAtS - 40,
            },
          ),
        ).toMatchObject({ ok: true, status: 'paid', role: 'payment' });
        const reservations = await server.store.db
          .selectFrom('reservations')
          .select('state')
          .where('order_id', '=', o.orderId)
          .execute();
        expect(reservations.map((r) => r.state)).toEqual(['sold']);
      });

      it('expiry follows the payment watcher: nothing expires before it has judged past the expiry', async () => {
        const o = await walletOrder();
        const judgedUntil: { at: Date | null } = { at: null };
        // The watcher's chain clock, served on the lanes the order service was handed at construction.
        const unserve = server.lanes.serve({ chainClock: async () => judgedUntil.at });
        try {
          clock.advance(16 * 60_000);
          expect(await server.orders.expireOrders()).toBe(0);
          judgedUntil.at = new Date(clock.ms - 2 * 60_000); // judged up to 14 min after the order: before expiry
          expect(await server.orders.expireOrders()).toBe(0);
          judgedUntil.at = new Date(clock.ms);
          expect(await server.orders.expireOrders()).toBe(1);
          expect((await getOrder(o.orderId)).status).toBe('expired');
        } finally {
          unserve();
        }
      });

      it('expiry never waits on the watcher longer than MAX_EXPIRY_WAIT_MS (5 min by default)', async () => {
        const o = await walletOrder();
        // The watcher has judged nothing (stalled, flooded, catching up): expiry waits for it, 5 minutes at most.
        const unserve = server.lanes.serve({ chainClock: async () => null });
        try {
          clock.advance(15 * 60_000 + 4 * 60_000);
          expect(await server.orders.expireOrders()).toBe(0);
          clock.advance(60_000 + 1000);
          expect(await server.orders.expireOrders()).toBe(1);
          expect((await getOrder(o.orderId)).status).toBe('expired');
        } finally {
          unserve();
        }
      });

      it('only a poll with the page token makes an order awaited by the watcher (an id is not a capability)', async () => {
        const noted: [string, { client: string; stake: string }][] = [];
        const unserve = server.lanes.serve({ awaited: (id, waiter) => noted.push([id, waiter]) });
        try {
          const wallet = await walletOrder();
          const q = await quote([{ productId: 'honey-dew-papaya-live-rosin', quantity: 1 }]);
          const record = (await order({ quote: q.quote, paymentMethod: 'qr' })).json<OrderCreated>();
          const tokenOf = (o: OrderCreated) => o.orderUrl.slice(o.orderUrl.lastIndexOf('/') + 1);
          const poll = (id: string, token?: string) =>
            inject('GET', `/api/orders/${id}`, undefined, token ? { 'x-order-token': token } : {});
          // The id alone, another order's token, a made-up token: the status answers, nobody is awaited.
          expect((await poll(wallet.orderId)).statusCode).toBe(200);
          expect((await poll(wallet.orderId, tokenOf(record))).statusCode).toBe(200);
          expect((await poll(wallet.orderId, '0'.repeat(32))).statusCode).toBe(200);
          expect(noted).toEqual([]);
          // With its own token (the checkout's status poll), or the order page itself: awaited, with its stake.
          await poll(wallet.orderId, tokenOf(wallet));
          await poll(record.orderId, tokenOf(record));
          expect((await inject('GET', `/api/order-pages/${tokenOf(record)}`)).statusCode).toBe(200);
          expect(noted.map(([id, w]) => [id, w.stake])).toEqual([
            [wallet.orderId, 'money'],
            [record.orderId, 'free'],
            [record.orderId, 'free'],
          ]);
          // The poller's client is its hashed hold key, never its address.
          expect(noted[0]?.[1].client).not.toContain('127.0.0.1');
        } finally {
          unserve();
        }
      });

      it('dust after the expiry is recorded but makes no exception', async () => {
        const o = await walletOrder();
        clock.advance(15 * 60_000 + 1000);
        expect(await server.orders.expireOrders()).toBe(1);
        expect(
          await server.orders.recordPayment(
            { orderId: o.orderId },
            { signature: fakeSignature(), receivedBaseUnits: 1n, finalized: false, blockTime: null },
          ),
        ).toMatchObject({ ok: true, status: 'expired', role: 'partial' });
      });

      it('QR details before paying: kept, nothing e-mailed; the payment sends the confirmation pair, no payable link', async () => {
        const o = await qrOrder(2);
        const first = await confirm(o);
        expect(first.statusCode).toBe(200);
        expect(first.json<OrderPublic>().emails).toEqual([]);
        const retry = await confirm(o);
        expect(retry.json<OrderPublic>().emails).toEqual([]);
        await server.outbox.runOnce();
        expect(transport.sent).toEqual([]);

        await server.orders.recordPayment(
          { orderId: o.orderId },
          { signature: fakeSignature(), receivedBaseUnits: 200_000_000n, finalized: false, blockTime: null },
        );
        await server.outbox.runOnce();
        await server.outbox.runOnce();
        expect(transport.sent.map((m) => [m.kind, m.role, m.paymentSeen])).toEqual([
          ['order_confirmation', 'seller', true],
          ['order_confirmation', 'buyer', true],
        ]);
        expect(transport.sent[0]?.payload).toMatchObject({
          quantity: '2',
          solanaPayURL: 'Paid — nothing more to pay',
          totalCLAIM: '200.000000',
          totalUSD: '100.00',
          shippingAddress: '1 Navy Way, Arlington, VA, 22202',
        });
        const rows = await server.store.db
          .selectFrom('outbox')
          .selectAll()
          .where('order_id', '=', o.orderId)
          .execute();
        expect(rows).toHaveLength(2);
        const again = await confirm(o);
        expect(again.json<OrderPublic>().emails).toHaveLength(2);
      });

      it('refuses the confirmation button on wallet orders and unknown ones', async () => {
        const w = await walletOrder();
        const r = await inject('POST', `/api/orders/${w.orderId}/confirmation`);
        expect(r.statusCode).toBe(409);
        expect(r.json()).toMatchObject({ error: 'not_a_qr_order' });
        expect(
          (await inject('POST', '/api/orders/00000000-0000-4000-8000-000000000000/confirmation')).statusCode,
        ).toBe(404);
        expect((await inject('POST', '/api/orders/bad/confirmation')).statusCode).toBe(400);
        expect(
          (await inject('POST', `/api/orders/${w.orderId}/confirmation`, { force: true })).statusCode,
        ).toBe(400);
      });

      it('a payment hint reaches the verifier hook and never marks the order paid', async () => {
        const o = await walletOrder();
        const sig = fakeSignature();
        const r = await inject('POST', `/api/orders/${o.orderId}/payment`, { signature: sig });
        expect(r.statusCode).toBe(202);
        expect(r.json<OrderPublic>().status).toBe('awaiting_payment');
        await new Promise((res) => setTimeout(res, 10));
        expect(hints).toEqual([{ orderId: o.orderId, signature: sig }]);
        expect((await getOrder(o.orderId)).status).toBe('awaiting_payment');
        for (const body of [{}, { signature: 'not base58 0OIl' }, { signature: sig, paid: true }]) {
          const bad = await inject('POST', `/api/orders/${o.orderId}/payment`, body);
          expect(bad.statusCode).toBe(400);
          expect(bad.json()).toMatchObject({ field: 'signature' });
        }
        expect(
          (
            await inject('POST', '/api/orders/00000000-0000-4000-8000-000000000000/payment', {
              signature: sig,
            })
          ).statusCode,
        ).toBe(404);
      });
    });

    describe('payment ledger (every transfer recorded once)', () => {
      const AMOUNT = 650_000_000n; // sonic-crushed-opal-spillproof at $0.5
      const record = (
        orderId: string,
        signature: string,
        receivedBaseUnits: bigint,
        o: { finalized?: boolean; blockTime?: number | null } = {},
      ) =>
        server.orders.recordPayment(
          { orderId },
          {
            signature,
            receivedBaseUnits,
            finalized: o.finalized ?? false,
            blockTime: o.blockTime ?? null,
            slot: 42,
          },
        );
      const ledgerRows = (orderId: string) =>
        server.store.db
          .selectFrom('payments')
          .selectAll()
          .where('order_id', '=', orderId)
          .orderBy('seq')
          .execute();

      // The ledger's invariants: each test fails when the code enforcing it is removed.
      it('a partial or an extra payment signature is never taken by a second order', async () => {
        const a = await walletOrder();
        const b = await walletOrder();
        const partial = fakeSignature();
        expect(await record(a.orderId, partial, 100n)).toMatchObject({ ok: true, role: 'partial' });
        expect(await record(b.orderId, partial, 100n)).toEqual({
          ok: false,
          reason: 'signature_used',
          otherOrderId: a.orderId,
        });
        await record(a.orderId, fakeSignature(), AMOUNT);
        const extra = fakeSignature();
        expect(await record(a.orderId, extra, 5n)).toMatchObject({ ok: true, role: 'extra' });
        expect(await record(b.orderId, extra, AMOUNT)).toEqual({
          ok: false,
          reason: 'signature_used',
          otherOrderId: a.orderId,
        });
        expect(await ledgerRows(b.orderId)).toEqual([]);
        expect((await getOrder(b.orderId)).status).toBe('awaiting_payment');
      });

      it('final only once every counting payment is finalized (one of two finalized stays paid)', async () => {
        const o = await walletOrder();
        const [s1, s2] = [fakeSignature(), fakeSignature()];
        await record(o.orderId, s1, AMOUNT / 2n);
        expect(await record(o.orderId, s2, AMOUNT - AMOUNT / 2n)).toMatchObject({ status: 'paid' });
        expect(await record(o.orderId, s1, AMOUNT / 2n, { finalized: true })).toMatchObject({
          ok: true,
          status: 'paid',
        });
        expect((await getOrder(o.orderId)).status).toBe('paid');
        // An extra payment does not count: its finality is not waited for.
        await record(o.orderId, fakeSignature(), 1n);
        expect(await record(o.orderId, s2, AMOUNT - AMOUNT / 2n, { finalized: true })).toMatchObject({
          ok: true,
          status: 'final',
        });
      });

      it('the same signature reported concurrently for two orders is recorded for exactly one', async () => {
        for (let round = 0; round < 3; round++) {
          const a = await walletOrder();
          const b = await walletOrder();
          const sig = fakeSignature();
          const results = await Promise.all([
            record(a.orderId, sig, 100n),
            record(b.orderId, sig, 100n),
            record(a.orderId, sig, 100n),
            record(b.orderId, sig, 100n),
          ]);
          const owners = new Set(
            (
              await server.store.db
                .selectFrom('payments')
                .select('order_id')
                .where('signature', '=', sig)
                .execute()
            ).map((r) => r.order_id),
          );
          expect(owners.size).toBe(1);
          const owner = [...owners][0];
          for (const [i, r] of results.entries()) {
            const target = i % 2 === 0 ? a.orderId : b.orderId;
            if (target === owner) expect(r.ok).toBe(true);
            else expect(r).toMatchObject({ ok: false, reason: 'signature_used' });
          }
        }
      });

      it('a block time exactly at the expiry is on time; one second later is late', async () => {
        const onTime = await walletOrder();
        const late = await walletOrder();
        // Block times are whole seconds: put both expiries on a whole second.
        const expiry = Math.floor(Date.parse(onTime.expiresAt) / 1000);
        await server.store.db
          .updateTable('orders')
          .set({ expires_at: new Date(expiry * 1000).toISOString() })
          .where('id', 'in', [onTime.orderId, late.orderId])
          .execute();
        expect(await record(onTime.orderId, fakeSignature(), AMOUNT, { blockTime: expiry })).toMatchObject({
          ok: true,
          status: 'paid',
        });
        expect(await record(late.orderId, fakeSignature(), AMOUNT, { blockTime: expiry + 1 })).toMatchObject({
          ok: true,
          status: 'paid_late',
        });
      });

      it('expiry racing a payment: the payment is kept and the order ends paid or paid_late, never expired', async () => {
        const racing = await Promise.all([1, 2, 3, 4].map(() => walletOrder()));
        clock.advance(15 * 60_000 + 1000);
        const sigs = racing.map(() => fakeSignature());
        await Promise.all([
          server.orders.expireOrders(),
          ...racing.map((o, i) =>
            record(o.orderId, sigs[i] as string, AMOUNT, { blockTime: Date.parse(o.expiresAt) / 1000 - 60 }),
          ),
          server.orders.expireOrders(),
        ]);
        for (const [i, o] of racing.entries()) {
          const pub = await getOrder(o.orderId);
          expect(['paid', 'paid_late']).toContain(pub.status);
          expect(pub.payments.map((p) => p.signature)).toEqual([sigs[i]]);
        }
      });

      it('pay twice: the second transfer is an extra payment, the order stays paid then final, the seller is told once per extra', async () => {
        const o = await walletOrder();
        const first = fakeSignature();
        const second = fakeSignature();
        expect(await record(o.orderId, first, AMOUNT)).toMatchObject({
          ok: true,
          status: 'paid',
          role: 'payment',
        });
        clock.advance(1000);
        expect(await record(o.orderId, second, AMOUNT)).toMatchObject({
          ok: true,
          changed: true,
          status: 'paid',
          role: 'extra',
        });
        // Seen again (feed, poll, sweep, hint): unchanged, no second row, no second e-mail.
        expect(await record(o.orderId, second, AMOUNT)).toMatchObject({
          ok: true,
          changed: false,
          role: 'extra',
        });
        expect(await ledgerRows(o.orderId)).toHaveLength(2);
        // Finality of the paying transfer makes the order final; the extra does not move it.
        expect(await record(o.orderId, first, AMOUNT, { finalized: true })).toMatchObject({
          ok: true,
          status: 'final',
        });
        expect(await record(o.orderId, second, AMOUNT, { finalized: true })).toMatchObject({
          ok: true,
          status: 'final',
          role: 'extra',
        });
        clock.advance(1000);
        const third = fakeSignature();
        expect(await record(o.orderId, third, 5_000_000n)).toMatchObject({
          ok: true,
          status: 'final',
          role: 'extra',
        });
        // A fourth extra while the third's note waits for its hourly slot: merged into that note.
        clock.advance(1000);
        const fourth = fakeSignature();
        expect(await record(o.orderId, fourth, 7_000_000n)).toMatchObject({ ok: true, role: 'extra' });
        // Dust (below min(1 % of the order, $0.50) = 1 $CLAIM here): recorded, no e-mail, not merged.
        const dust = fakeSignature();
        expect(await record(o.orderId, dust, 999_999n)).toMatchObject({ ok: true, role: 'extra' });

        const pub = await getOrder(o.orderId);
        expect(pub.status).toBe('final');
        expect(pub.signature).toBe(first);
        expect(pub.receivedBaseUnits).toBe((2n * AMOUNT + 12_999_999n).toString());
        expect(pub.payments.map((p) => [p.signature, p.receivedBaseUnits, p.role])).toEqual([
          [first, AMOUNT.toString(), 'payment'],
          [second, AMOUNT.toString(), 'extra'],
          [third, '5000000', 'extra'],
          [fourth, '7000000', 'extra'],
          [dust, '999999', 'extra'],
        ]);
        expect(pub.history.map((h) => h.status)).toEqual(['awaiting_payment', 'paid', 'final']);
        expect(pub.emails.map((e) => [e.kind, e.recipient])).toEqual([
          ['order_confirmation', 'seller'],
          ['order_confirmation', 'buyer'],
          ['payment_received', 'seller'],
          ['payment_received', 'seller'],
        ]);
        await server.outbox.runOnce();
        await server.outbox.runOnce();
        // At most one note per hour: the batched one goes an hour after the first.
        expect(transport.sent.filter((m) => m.kind === 'payment_received')).toHaveLength(1);
        clock.advance(60 * 60_000);
        await server.outbox.runOnce();
        const extras = transport.sent.filter((m) => m.kind === 'payment_received');
        expect(
          extras.map((m) => [
            m.to,
            m.payload.paymentSignature,
            m.payload.receivedCLAIM,
            m.payload.totalCLAIM,
          ]),
        ).toEqual([
          [SELLER, second, '650.000000', '650.000000'],
          [SELLER, `${third} ${fourth}`, '12.000000', '650.000000'],
        ]);
        const text = renderEmail(extras[0] as OutgoingEmail);
        expect(text.subject).toMatch(/^Extra payment received \(order already paid\)/);
        expect(text.text).toContain('already paid in full');
        expect(text.text).toContain('extra payment');
        expect(text.text).toContain('refund or credit');
        expect(text.text).toContain(`Transaction: ${second}`);
      });

      it('pay half then half: the ledger sum pays the order (both rows visible), confirmations once', async () => {
        const o = await walletOrder();
        const a = fakeSignature();
        const b = fakeSignature();
        expect(await record(o.orderId, a, AMOUNT / 2n)).toMatchObject({
          ok: true,
          status: 'awaiting_payment',
          role: 'partial',
        });
        const mid = await getOrder(o.orderId);
        expect(mid).toMatchObject({
          status: 'awaiting_payment',
          receivedBaseUnits: (AMOUNT / 2n).toString(),
          signature: a,
          emails: [],
        });
        clock.advance(1000);
        expect(await record(o.orderId, b, AMOUNT / 2n, { finalized: true })).toMatchObject({
          ok: true,
          status: 'paid',
          role: 'payment',
        });
        // Not final until every transfer that counts is finalized.
        expect((await getOrder(o.orderId)).status).toBe('paid');
        expect(await record(o.orderId, a, AMOUNT / 2n, { finalized: true })).toMatchObject({
          ok: true,
          status: 'final',
        });
        const pub = await getOrder(o.orderId);
        expect(pub).toMatchObject({ status: 'final', signature: b, receivedBaseUnits: AMOUNT.toString() });
        expect(pub.payments.map((p) => [p.signature, p.role])).toEqual([
          [a, 'partial'],
          [b, 'payment'],
        ]);
        expect(pub.emails.map((e) => [e.kind, e.recipient])).toEqual([
          ['order_confirmation', 'seller'],
          ['order_confirmation', 'buyer'],
        ]);
        const rows = await ledgerRows(o.orderId);
        expect(rows.map((r) => [r.confirmation, Number(r.slot)])).toEqual([
          ['finalized', 42],
          ['finalized', 42],
        ]);
      });

      it('pay half, expire → underpaid (seller told); top up → paid_late with the confirmations', async () => {
        const o = await walletOrder();
        const half = fakeSignature();
        expect(
          await record(o.orderId, half, AMOUNT / 2n, { blockTime: Math.floor(clock.ms / 1000) }),
        ).toMatchObject({ status: 'awaiting_payment', role: 'partial' });
        clock.advance(15 * 60_000);
        expect(await server.orders.expireOrders()).toBe(1);
        const under = await getOrder(o.orderId);
        expect(under).toMatchObject({ status: 'underpaid', receivedBaseUnits: (AMOUNT / 2n).toString() });
        expect(under.emails.map((e) => [e.kind, e.recipient])).toEqual([
          ['payment_underpaid', 'seller'],
          ['payment_underpaid', 'buyer'],
        ]);
        // Still watched within 24 h of the expiry.
        expect((await server.orders.ordersToWatch()).map((w) => w.orderId)).toContain(o.orderId);
        clock.advance(60 * 60_000);
        const topUp = fakeSignature();
        expect(
          await record(o.orderId, topUp, AMOUNT / 2n, { blockTime: Math.floor(clock.ms / 1000) }),
        ).toMatchObject({ ok: true, status: 'paid_late', role: 'top_up' });
        const pub = await getOrder(o.orderId);
        expect(pub).toMatchObject({
          status: 'paid_late',
          signature: topUp,
          receivedBaseUnits: AMOUNT.toString(),
        });
        expect(pub.history.map((h) => h.status)).toEqual(['awaiting_payment', 'underpaid', 'paid_late']);
        expect(pub.payments.map((p) => p.role)).toEqual(['partial', 'top_up']);
        expect(pub.emails.map((e) => [e.kind, e.recipient])).toEqual([
          ['payment_underpaid', 'seller'],
          ['payment_underpaid', 'buyer'],
          ['paid_late', 'seller'],
          ['paid_late', 'buyer'],
        ]);
        await server.outbox.runOnce();
        await server.outbox.runOnce();
        // Each buyer message goes after its seller message (the two kinds' pairs may interleave).
        expect(transport.sent.map((m) => [m.kind, m.role, m.payload.receivedCLAIM]).sort()).toEqual([
          ['paid_late', 'buyer', '650.000000'],
          ['paid_late', 'seller', '650.000000'],
          ['payment_underpaid', 'buyer', '325.000000'],
          ['payment_underpaid', 'seller', '325.000000'],
        ]);
        expect(transport.sent.find((m) => m.kind === 'paid_late')?.paymentSeen).toBe(true);
      });

      it('dust before expiry is recorded and visible, and the order is still paid by the real transfer', async () => {
        const o = await walletOrder();
        const dust = fakeSignature();
        const real = fakeSignature();
        expect(await record(o.orderId, dust, 1n)).toMatchObject({
          status: 'awaiting_payment',
          role: 'partial',
        });
        expect((await getOrder(o.orderId)).payments).toEqual([
          { signature: dust, receivedBaseUnits: '1', at: clock.now().toISOString(), role: 'partial' },
        ]);
        expect(await record(o.orderId, real, AMOUNT)).toMatchObject({ status: 'paid', role: 'payment' });
        const pub = await getOrder(o.orderId);
        expect(pub).toMatchObject({
          status: 'paid',
          signature: real,
          receivedBaseUnits: (AMOUNT + 1n).toString(),
        });
        expect(pub.payments.map((p) => p.role)).toEqual(['partial', 'payment']);
      });

      it('one signature is recorded once, even when reported concurrently, and never for a second order', async () => {
        const o = await walletOrder();
        const other = await walletOrder();
        const sig = fakeSignature();
        const results = await Promise.all([1, 2, 3, 4].map(() => record(o.orderId, sig, AMOUNT)));
        expect(results.filter((r) => r.ok && r.changed)).toHaveLength(1);
        expect(results.every((r) => r.ok && r.status === 'paid')).toBe(true);
        expect(await ledgerRows(o.orderId)).toHaveLength(1);
        expect(await record(other.orderId, sig, AMOUNT)).toEqual({
          ok: false,
          reason: 'signature_used',
          otherOrderId: o.orderId,
        });
        expect(await server.orders.isSignatureUsed(sig, other.orderId)).toBe(true);
        expect(await server.orders.isSignatureUsed(sig, o.orderId)).toBe(false);
        expect((await getOrder(other.orderId)).payments).toEqual([]);
        expect((await getOrder(o.orderId)).emails).toHaveLength(2);
      });

      it('GET /api/orders/:id shows every ledger row with its block time, and the watcher sees the ledger', async () => {
        const o = await walletOrder();
        const sigs = [fakeSignature(), fakeSignature(), fakeSignature()];
        const blockTime = Math.floor(clock.ms / 1000) - 5;
        await record(o.orderId, sigs[0] as string, 100n, { blockTime });
        await record(o.orderId, sigs[1] as string, AMOUNT, { blockTime: blockTime + 1 });
        await record(o.orderId, sigs[2] as string, 7n);
        const r = await inject('GET', `/api/orders/${o.orderId}`);
        expect(r.statusCode).toBe(200);
        const pub = r.json<OrderPublic>();
        expect(pub.payments).toEqual([
          {
            signature: sigs[0],
            receivedBaseUnits: '100',
            at: new Date(blockTime * 1000).toISOString(),
            role: 'partial',
          },
          {
            signature: sigs[1],
            receivedBaseUnits: AMOUNT.toString(),
            at: new Date((blockTime + 1) * 1000).toISOString(),
            role: 'payment',
          },
          { signature: sigs[2], receivedBaseUnits: '7', at: clock.now().toISOString(), role: 'extra' },
        ]);
        expect(pub.receivedBaseUnits).toBe((AMOUNT + 107n).toString());
        const watched = await server.orders.findOrder({ orderId: o.orderId });
        expect(watched?.payments.map((p) => p.signature)).toEqual(sigs);
        expect(watched?.receivedBaseUnits).toBe(AMOUNT + 107n);
        // Paid orders stay watched within 24 h of the quote expiry (later transfers are extras), not after.
        expect((await server.orders.ordersToWatch()).map((w) => w.orderId)).toContain(o.orderId);
        clock.advance(25 * 60 * 60_000);
        // Past the window a paid order is only followed until its payments are finalized.
        expect((await server.orders.ordersToWatch()).map((w) => w.orderId)).toContain(o.orderId);
        await record(o.orderId, sigs[0] as string, 100n, { finalized: true });
        expect(await record(o.orderId, sigs[1] as string, AMOUNT, { finalized: true })).toMatchObject({
          status: 'final',
        });
        expect((await server.orders.ordersToWatch()).map((w) => w.orderId)).not.toContain(o.orderId);
      });
    });

    describe('QR: unpriced orders (spec: totalCLAIM N/A) and renewed references', () => {
      const honey = (quantity: number) => [{ productId: 'honey-dew-papaya-live-rosin', quantity }];
      const postQuote = (body: Record<string, unknown>) => inject('POST', '/api/quotes', body);
      /** The quote token with its body rewritten (signature kept) or re-signed with another secret. */
      const rewrite = (token: string, change: (q: Record<string, unknown>) => void, secret?: string) => {
        const [payload, mac] = token.split('.') as [string, string];
        const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<
          string,
          unknown
        >;
        change(decoded);
        if (secret !== undefined) return signQuote(decoded as SignedQuote, secret);
        return `${Buffer.from(JSON.stringify(decoded)).toString('base64url')}.${mac}`;
      };

      it('refuses unpriced quotes for wallet products and while a fresh price exists', async () => {
        const withPrice = await postQuote({ items: honey(1), unpriced: true });
        expect(withPrice.statusCode).toBe(409);
        expect(withPrice.json()).toMatchObject({ error: 'price_available', field: 'unpriced' });
        price.set(undefined);
        const wallet = await postQuote({
          items: [{ productId: 'lilac-tiptop', quantity: 1 }],
          unpriced: true,
        });
        expect(wallet.statusCode).toBe(400);
        expect(wallet.json()).toMatchObject({ error: 'unpriced_not_allowed', field: 'unpriced' });
        // Without the flag, no price still means no quote.
        expect((await postQuote({ items: honey(1) })).json()).toMatchObject({ error: 'price_unavailable' });
        expect((await postQuote({ items: honey(1), unpriced: 'yes' })).statusCode).toBe(400);
        expect(await server.store.db.selectFrom('orders').select('id').execute()).toEqual([]);
      });

      it('without a price: the order is recorded with no amount, both confirmations say N/A, nothing watches it', async () => {
        price.set('0.5', 61_000); // stale counts as unknown
        const r = await postQuote({ items: honey(3), unpriced: true });
        expect(r.statusCode, r.body).toBe(200);
        const q = r.json<UnpricedQuoteResponse>();
        expect(q).toMatchObject({
          totalCents: 15000,
          priceUsd: null,
          amount: null,
          amountBaseUnits: null,
          solanaPayUrl: null,
        });
        expect(q.reference).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
        const created = await order({ quote: q.quote, shipping: usShipping, paymentMethod: 'qr' });
        expect(created.statusCode, created.body).toBe(201);
        const o = created.json<AnyOrderCreated>();
        expect(o).toMatchObject({
          reference: q.reference,
          amount: null,
          amountBaseUnits: null,
          solanaPayUrl: null,
        });
        const row = await server.store.db
          .selectFrom('orders')
          .selectAll()
          .where('id', '=', o.orderId)
          .executeTakeFirstOrThrow();
        expect([row.amount_base_units, row.price_usd, row.solana_pay_url]).toEqual([null, null, null]);

        const conf = await confirm(o);
        expect(conf.statusCode).toBe(200);
        await server.outbox.runOnce();
        expect(transport.sent.map((m) => [m.kind, m.role])).toEqual([
          ['order_confirmation', 'seller'],
          ['order_confirmation', 'buyer'],
        ]);
        for (const m of transport.sent) {
          expect(m.payload).toMatchObject({
            totalCLAIM: 'N/A',
            solanaPayURL: 'N/A',
            totalUSD: '150.00',
            quantity: '3',
          });
        }
        const pub = await getOrder(o.orderId);
        expect(pub).toMatchObject({
          status: 'awaiting_payment',
          amount: null,
          amountBaseUnits: null,
          totalCents: 15000,
        });
        expect(pub.emails.map((e) => e.state)).toEqual(['sent', 'sent']);

        // Not payment-watched: nothing to verify against (the seller arranges payment), no expiry, no hints.
        expect((await server.orders.ordersToWatch()).map((w) => w.orderId)).not.toContain(o.orderId);
        expect(await server.orders.findOrder({ reference: q.reference })).toBeUndefined();
        clock.advance(60 * 60_000);
        await server.orders.expireOrders();
        expect((await getOrder(o.orderId)).status).toBe('awaiting_payment');
        const paid = await server.orders.recordPayment(
          { orderId: o.orderId },
          { signature: fakeSignature(), receivedBaseUnits: 1n, finalized: true, blockTime: null },
        );
        expect(paid).toMatchObject({ ok: false, reason: 'refused' });
        const hint = await inject('POST', `/api/orders/${o.orderId}/payment`, { signature: fakeSignature() });
        expect(hint.statusCode).toBe(409);
        expect(hint.json()).toMatchObject({ error: 'order_unpriced' });
        expect(hints).toEqual([]);
      });

      it('a renewed quote keeps the reference (also once expired, up to 24 h), with the new amount', async () => {
        const first = await quote(honey(1));
        const second = (await postQuote({ items: honey(2), renew: first.quote })).json<QuoteResponse>();
        expect(second.reference).toBe(first.reference);
        expect(second.amount).toBe('200.000000');
        expect(new URL(second.solanaPayUrl).searchParams.get('reference')).toBe(first.reference);
        // Expired, and renewing a renewal: still the same reference.
        clock.advance(20 * 60_000);
        price.set('0.25');
        const third = (await postQuote({ items: honey(1), renew: second.quote })).json<QuoteResponse>();
        expect(third).toMatchObject({ reference: first.reference, amount: '200.000000' });
        // A price failure in between: the unpriced quote keeps it too.
        price.set(undefined);
        const unpriced = (
          await postQuote({ items: honey(1), unpriced: true, renew: third.quote })
        ).json<UnpricedQuoteResponse>();
        expect(unpriced.reference).toBe(first.reference);
        // Without renew: a fresh reference.
        price.set('0.5');
        expect((await quote(honey(1))).reference).not.toBe(first.reference);
        // One order per reference.
        expect(
          (await order({ quote: third.quote, shipping: usShipping, paymentMethod: 'qr' })).statusCode,
        ).toBe(201);
        const again = (await postQuote({ items: honey(1), renew: third.quote })).json<QuoteResponse>();
        const dup = await order({ quote: again.quote, shipping: usShipping, paymentMethod: 'qr' });
        expect(dup.statusCode).toBe(409);
        expect(dup.json()).toMatchObject({ error: 'quote_already_used' });
        // Older than 24 h since issue: refused.
        clock.advance(24 * 3600_000 + 1);
        price.set('0.5');
        const old = await postQuote({ items: honey(1), renew: third.quote });
        expect(old.statusCode).toBe(400);
        expect(old.json()).toMatchObject({ error: 'invalid_renew', field: 'renew' });
      });

      it('refuses forged, tampered and foreign renew tokens (never a reference it did not issue)', async () => {
        const q = await quote(honey(1));
        const victim = await quote(honey(1));
        const cases: [string, string][] = [
          ['tampered reference', rewrite(q.quote, (d) => (d.reference = victim.reference))],
          [
            'signed with another secret',
            rewrite(
              q.quote,
              (d) => (d.reference = victim.reference),
              'not-the-store-secret-0123456789-abcdef',
            ),
          ],
          ['truncated mac', `${q.quote.slice(0, -3)}AAA`],
          ['a raw reference', victim.reference],
          [
            'other vendor (glass QR)',
            (await quote([{ productId: 'eagles-xl-joystick-cropal-stick', quantity: 1 }])).quote,
          ],
          [
            'other payment mode (same vendor, wallet)',
            (await quote([{ productId: 'garlic-amaretto-live-resin', quantity: 1 }])).quote,
          ],
        ];
        for (const [name, renew] of cases) {
          const r = await postQuote({ items: honey(2), renew });
          expect(r.statusCode, name).toBe(400);
          expect(r.json(), name).toMatchObject({ error: 'invalid_renew', field: 'renew' });
        }
        // And the wallet direction: a QR token cannot lend its reference to a wallet quote.
        const w = await postQuote({
          items: [{ productId: 'garlic-amaretto-live-resin', quantity: 1 }],
          renew: q.quote,
        });
        expect(w.json()).toMatchObject({ error: 'invalid_renew' });
      });

      it('a payment at an older quote amount is recorded as underpaid, visible and e-mailed to the seller', async () => {
        const first = await quote(honey(1)); // 100 $CLAIM
        const second = (await postQuote({ items: honey(2), renew: first.quote })).json<QuoteResponse>(); // 200 $CLAIM
        const o = (
          await order({ quote: second.quote, shipping: usShipping, paymentMethod: 'qr' })
        ).json<OrderCreated>();
        expect(o.reference).toBe(first.reference);
        const target = await server.orders.findOrder({ reference: first.reference });
        expect(target?.orderId).toBe(o.orderId);
        const sig = fakeSignature();
        const r = await server.orders.recordPayment(
          { reference: first.reference },
          {
            signature: sig,
            receivedBaseUnits: BigInt(first.amountBaseUnits),
            finalized: true,
            blockTime: null,
          },
        );
        // Recorded at once (visible), the order stays payable until its quote expires, then it is underpaid.
        expect(r).toMatchObject({ ok: true, status: 'awaiting_payment', role: 'partial' });
        expect((await getOrder(o.orderId)).payments).toEqual([
          { signature: sig, receivedBaseUnits: '100000000', at: clock.now().toISOString(), role: 'partial' },
        ]);
        clock.advance(15 * 60_000);
        expect(await server.orders.expireOrders()).toBe(1);
        const pub = await getOrder(o.orderId);
        expect(pub).toMatchObject({
          status: 'underpaid',
          amountBaseUnits: '200000000',
          receivedBaseUnits: '100000000',
        });
        await server.outbox.runOnce();
        expect(
          transport.sent.map((m) => [m.kind, m.role, m.payload.totalCLAIM, m.payload.receivedCLAIM]),
        ).toEqual([
          ['payment_underpaid', 'seller', '200.000000', '100.000000'],
          ['payment_underpaid', 'buyer', '200.000000', '100.000000'],
        ]);
      });
    });
  });
});
