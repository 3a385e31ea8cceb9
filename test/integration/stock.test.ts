/**
 * Stock on a real store: a SQLite file, and PostgreSQL when TEST_DATABASE_URL is set. Seeded from the
 * catalogue; quotes and orders for more than is available answer 409; parallel orders for the last unit (real
 * HTTP requests): exactly one succeeds; expiry releases the reservation; a payment for stock sold meanwhile is
 * recorded and the order becomes oversold, with the seller's exception e-mail. Every change is logged.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { OrderCreated, OrderPublic, QuoteResponse, StockResponse } from '../../src/core/api';
import { startServer, type RunningServer } from '../../src/server/server';
import { renderEmail } from '../../src/server/mail/templates';
import { restock } from '../support/stock';
import {
  Clock,
  fakeSignature,
  intlShipping,
  postgresBackend,
  RecordingTransport,
  sqliteBackend,
  testSettings,
  TestPrice,
  type Backend,
} from './orders-support';
import { payoutAccountsAssumedToExist } from '../support/payout-accounts';
import { balancesAssumed, proofOf, TEST_PAYER } from '../support/hold-proof';

const backends = [sqliteBackend(), postgresBackend()];
const LILAC = 'lilac-tiptop'; // a glass piece: one of a kind
const LILAC_AMOUNT = 190_000_000n; // $95 at $0.5

describe.each(backends)('stock on $name', (backend: Backend) => {
  describe.runIf(backend.enabled)(`${backend.name} store`, () => {
    let server: RunningServer;
    let clock: Clock;
    let transport: RecordingTransport;
    let price: TestPrice;
    let keyN = 0;
    /** Time passes (past a quote's expiry); the price feed keeps up. */
    const advance = (ms: number) => {
      clock.advance(ms);
      price.set('0.5');
    };

    beforeEach(async () => {
      clock = new Clock();
      transport = new RecordingTransport();
      price = new TestPrice(clock, '0.5');
      server = await startServer(testSettings(), {
        walletBalances: balancesAssumed(),
        payoutAccounts: payoutAccountsAssumedToExist,
        store: await backend.fresh(),
        priceSource: price,
        transport,
        now: clock.now,
        startOutbox: false,
        expireEveryMs: 0,
      });
    });
    afterEach(async () => {
      await server.close();
    });
    afterAll(async () => {
      await backend.cleanup();
    });

    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    const available = async (productId: string, variantId?: string) => {
      const body = (await (await fetch(`${server.url}/api/stock`)).json()) as StockResponse;
      return body.lines.find((l) => l.productId === productId && l.variantId === variantId)?.available;
    };
    async function quote(productId: string, quantity = 1, variantId?: string): Promise<Response> {
      return post('/api/quotes', {
        items: [{ productId, quantity, ...(variantId ? { variantId } : {}) }],
      });
    }
    async function order(q: QuoteResponse): Promise<Response> {
      return post(
        '/api/orders',
        {
          quote: q.quote,
          shipping: intlShipping,
          paymentMethod: 'wallet',
          payer: proofOf(TEST_PAYER, q.reference),
        },
        { 'idempotency-key': `k-${++keyN}-${Math.random().toString(36).slice(2)}` },
      );
    }
    async function buyLilac(): Promise<OrderCreated> {
      const q = await quote(LILAC);
      expect(q.status).toBe(200);
      const r = await order((await q.json()) as QuoteResponse);
      expect(r.status).toBe(201);
      return (await r.json()) as OrderCreated;
    }

    it('is seeded from the catalogue: glass pieces 1, the spec’s sold-out products 0, the others their number', async () => {
      const res = await fetch(`${server.url}/api/stock`);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(await available(LILAC)).toBe(1);
      expect(await available('eagles-xl-joystick-cropal-stick')).toBe(1);
      expect(await available('strawberry-fritter-live-rosin')).toBe(0);
      expect(await available('plumz-live-rosin')).toBe(0);
      expect(await available('honeydew-papaya-live-rosin')).toBe(0);
      expect(await available('bathsalts-flower', '18ths')).toBe(0);
      expect(await available('bathsalts-flower', 'zips')).toBe(0);
      expect(await available('garlic-amaretto-live-resin')).toBe(25);
      const seeded = await server.stock.changes({ productId: LILAC });
      expect(seeded).toEqual([
        expect.objectContaining({
          kind: 'seed',
          onHandAfter: 1,
          actor: 'catalogue',
          at: clock.now().toISOString(),
        }),
      ]);
    });

    it('a restart does not re-seed: the store’s stock stays the truth', async () => {
      await restock(server, LILAC, 4);
      const seedAgain = await server.stock.seed(
        { vendors: [], products: [] as never[] },
        clock.now().toISOString(),
      );
      expect(seedAgain).toBe(0);
      const { catalog } = await import('../../catalog');
      expect(await server.stock.seed(catalog, clock.now().toISOString())).toBe(0);
      expect(await available(LILAC)).toBe(4);
    });

    it('refuses quotes and orders for more than is available with 409 "Sold out" / "Only N left"', async () => {
      const sold = await quote('strawberry-fritter-live-rosin');
      expect(sold.status).toBe(409);
      expect(await sold.json()).toMatchObject({
        error: 'sold_out',
        message: 'Sold out: Strawberry Fritter Live Rosin is no longer available.',
      });
      const zips = await quote('bathsalts-flower', 1, 'zips');
      expect(zips.status).toBe(409);

      await restock(server, { productId: 'bathsalts-flower', variantId: 'zips' }, 2);
      const three = await quote('bathsalts-flower', 3, 'zips');
      expect(three.status).toBe(409);
      expect(await three.json()).toMatchObject({
        error: 'low_stock',
        message: 'Only 2 left of BathSalts Flower.',
      });
      expect((await quote('bathsalts-flower', 2, 'zips')).status).toBe(200);
      // Another variant is another stock line.
      expect((await quote('bathsalts-flower', 1, '18ths')).status).toBe(409);

      // A quote taken while in stock cannot become an order once the stock is gone.
      const q = (await (await quote(LILAC)).json()) as QuoteResponse;
      await restock(server, LILAC, 0);
      const r = await order(q);
      expect(r.status).toBe(409);
      expect(((await r.json()) as { message: string }).message).toBe(
        'Sold out: Lilac TipTop is no longer available.',
      );
      // Nothing was written for the refused order.
      const count = await server.store.db
        .selectFrom('orders')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(count.n)).toBe(0);
    });

    it('parallel orders for the last unit: exactly one succeeds, the others get 409 and write nothing', async () => {
      const N = 8;
      const quotes = await Promise.all(
        Array.from({ length: N }, async () => (await (await quote(LILAC)).json()) as QuoteResponse),
      );
      const results = await Promise.all(quotes.map((q) => order(q)));
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([201, ...Array.from({ length: N - 1 }, () => 409)]);
      const orders = await server.store.db.selectFrom('orders').select('id').execute();
      expect(orders).toHaveLength(1);
      expect(await available(LILAC)).toBe(0);
      const level = (await server.stock.levels()).find((l) => l.productId === LILAC);
      expect(level).toMatchObject({ onHand: 1, reserved: 1 });
      // The tile and the page read sold out; a new quote is refused.
      expect((await quote(LILAC)).status).toBe(409);
    });

    it('parallel orders for a stocked line: each gets a unit, and the change log numbers them 1, 2, 3… without gaps', async () => {
      await restock(server, LILAC, 12);
      const N = 12;
      const quotes = await Promise.all(
        Array.from({ length: N }, async () => (await (await quote(LILAC)).json()) as QuoteResponse),
      );
      const results = await Promise.all(quotes.map((q) => order(q)));
      expect(results.map((r) => r.status)).toEqual(Array.from({ length: N }, () => 201));
      const seqs = await server.store.db
        .selectFrom('stock_changes')
        .select('seq')
        .where('product_id', '=', LILAC)
        .orderBy('seq')
        .execute();
      expect(seqs.map((r) => Number(r.seq))).toEqual(seqs.map((_, i) => i + 1));
      const log = await server.stock.changes({ productId: LILAC }); // in seq order
      expect(log.filter((c) => c.kind === 'reserve')).toHaveLength(N);
      // Each entry's "after" follows from the one before: no two reservations saw the same row.
      for (let i = 1; i < log.length; i++)
        expect(log[i]!.reservedAfter).toBe(log[i - 1]!.reservedAfter + log[i]!.reservedDelta);
      expect((await server.stock.levels()).find((l) => l.productId === LILAC)).toMatchObject({
        onHand: 12,
        reserved: N,
      });
    });

    it('expiry releases the reservation; payment turns it into a sale', async () => {
      const first = await buyLilac();
      expect(await available(LILAC)).toBe(0);
      advance(15 * 60_000 + 1_000);
      expect(await server.orders.expireOrders()).toBe(1);
      expect(await available(LILAC)).toBe(1);

      const second = await buyLilac();
      const r = await server.orders.recordPayment(
        { orderId: second.orderId },
        {
          signature: fakeSignature(),
          receivedBaseUnits: LILAC_AMOUNT,
          finalized: false,
          blockTime: Math.floor(clock.ms / 1000),
        },
      );
      expect(r).toMatchObject({ ok: true, status: 'paid' });
      expect((await server.stock.levels()).find((l) => l.productId === LILAC)).toMatchObject({
        onHand: 0,
        reserved: 0,
      });
      const log = await server.stock.changes({ productId: LILAC });
      expect(log.map((c) => [c.kind, c.actor, c.orderId])).toEqual([
        ['seed', 'catalogue', null],
        ['reserve', 'order', first.orderId],
        ['release', 'expiry', first.orderId],
        ['reserve', 'order', second.orderId],
        ['sale', 'payment', second.orderId],
      ]);
      expect(log.every((c) => typeof c.at === 'string' && c.at.length === 24)).toBe(true);
    });

    it('a late payment after the piece sold to someone else: recorded, order oversold, the seller is told to refund and the buyer at once', async () => {
      const late = await buyLilac();
      advance(15 * 60_000 + 1_000);
      await server.orders.expireOrders();
      const other = await buyLilac();
      await server.orders.recordPayment(
        { orderId: other.orderId },
        { signature: fakeSignature(), receivedBaseUnits: LILAC_AMOUNT, finalized: false, blockTime: null },
      );
      const sig = fakeSignature();
      const r = await server.orders.recordPayment(
        { orderId: late.orderId },
        { signature: sig, receivedBaseUnits: LILAC_AMOUNT, finalized: false, blockTime: null },
      );
      expect(r).toMatchObject({ ok: true, changed: true, status: 'oversold', role: 'payment' });
      const pub = (await (await fetch(`${server.url}/api/orders/${late.orderId}`)).json()) as OrderPublic;
      expect(pub.status).toBe('oversold');
      expect(pub.payments).toEqual([expect.objectContaining({ signature: sig, role: 'payment' })]);
      // One exception for the seller; the buyer is told at once (no order confirmation).
      expect(pub.emails).toEqual([
        expect.objectContaining({ kind: 'payment_oversold', recipient: 'seller' }),
        expect.objectContaining({ kind: 'payment_oversold', recipient: 'buyer' }),
      ]);
      await server.outbox.runOnce();
      await server.outbox.runOnce();
      expect(transport.sent.map((m) => [m.kind, m.role])).toEqual(
        expect.arrayContaining([
          ['payment_oversold', 'seller'],
          ['payment_oversold', 'buyer'],
        ]),
      );
      const told = transport.sent.find((m) => m.kind === 'payment_oversold' && m.role === 'buyer');
      expect(renderEmail(told!).text).toContain('sold to someone else a moment earlier');
      expect(renderEmail(told!).text).toContain('Your refund is on its way');
      // Nothing sold twice: one unit, one sale.
      expect((await server.stock.levels()).find((l) => l.productId === LILAC)).toMatchObject({
        onHand: 0,
        reserved: 0,
      });
      // A payment after a release, with the piece still there, is simply a sale.
      await restock(server, LILAC, 1);
      const third = await buyLilac();
      advance(15 * 60_000 + 1_000);
      await server.orders.expireOrders();
      const paid = await server.orders.recordPayment(
        { orderId: third.orderId },
        { signature: fakeSignature(), receivedBaseUnits: LILAC_AMOUNT, finalized: false, blockTime: null },
      );
      expect(paid).toMatchObject({ ok: true, status: 'paid_late' });
      expect(await available(LILAC)).toBe(0);
    });

    it('npm run stock’s setter refuses unknown lines and bad counts and records who changed what', async () => {
      await expect(server.stock.set({ productId: 'nope' }, 1, 'cli:x', 'now')).rejects.toThrow(
        "Unknown product 'nope'.",
      );
      await expect(server.stock.set({ productId: 'bathsalts-flower' }, 1, 'cli:x', 'now')).rejects.toThrow(
        'has variants',
      );
      await expect(server.stock.set({ productId: LILAC }, -1, 'cli:x', 'now')).rejects.toThrow(
        'whole number',
      );
      await expect(server.stock.set({ productId: LILAC }, 1.5, 'cli:x', 'now')).rejects.toThrow(
        'whole number',
      );
      const at = clock.now().toISOString();
      await server.stock.set({ productId: 'plumz-live-rosin' }, 5, 'cli:alice', at);
      expect(await available('plumz-live-rosin')).toBe(5);
      expect((await server.stock.changes({ productId: 'plumz-live-rosin' })).at(-1)).toMatchObject({
        kind: 'set',
        onHandDelta: 5,
        onHandAfter: 5,
        actor: 'cli:alice',
        at,
      });
    });
  });
});
