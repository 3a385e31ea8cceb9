/**
 * One order in the seller console, in-process (app.inject) against a real store: a SQLite file, and PostgreSQL
 * when TEST_DATABASE_URL is set. The detail's short order number, what is owed back, tracking changed after
 * shipping (the buyer e-mailed again, the order page following, the carrier's link), the seller's note (bounded,
 * validated at the edge), and the paid-late USD value as the paid-late e-mail states it. Refunds and payers
 * against the chain are in seller-refund.test.ts (localnet).
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Keypair } from '@solana/web3.js';
import type { OrderCreated, OrderPageView, QuoteResponse } from '../../src/core/api';
import type { SellerOrderDetail } from '../../src/core/seller-api';
import { renderEmail } from '../../src/server/mail/templates';
import { startServer, type RunningServer } from '../../src/server/server';
import { restock } from '../support/stock';
import { injector, sellerSettings, signInSeller } from '../support/seller-session';
import {
  Clock,
  fakeSignature,
  intlShipping,
  keys,
  postgresBackend,
  RecordingTransport,
  sqliteBackend,
  TestPrice,
  type Backend,
} from './orders-support';

const coopers = Keypair.generate();
const gorilla = Keypair.generate();

const backends = [sqliteBackend(), postgresBackend()];

describe.each(backends)('seller order detail on $name', (backend: Backend) => {
  describe.runIf(backend.enabled)(`${backend.name} store`, () => {
    let server: RunningServer;
    let clock: Clock;
    let transport: RecordingTransport;
    let keyN = 0;

    beforeEach(async () => {
      clock = new Clock();
      transport = new RecordingTransport();
      server = await startServer(sellerSettings(coopers, gorilla, keys.mint), {
        store: await backend.fresh(),
        priceSource: new TestPrice(clock, '0.5'),
        transport,
        now: clock.now,
        listen: false,
        startOutbox: false,
        expireEveryMs: 0,
      });
      await restock(server, 'sonic-crushed-opal-spillproof', 10);
    });
    afterEach(async () => {
      await server.close();
    });
    afterAll(async () => {
      await backend.cleanup();
    });

    const inject = injector(() => server);

    const signInAs = (key: Keypair) => signInSeller(inject, key);

    async function glassOrder(): Promise<OrderCreated> {
      const q = await inject('POST', '/api/quotes', {
        body: { items: [{ productId: 'sonic-crushed-opal-spillproof', quantity: 1 }] },
      });
      expect(q.statusCode, q.body).toBe(200);
      const r = await inject('POST', '/api/orders', {
        body: { quote: q.json<QuoteResponse>().quote, shipping: intlShipping, paymentMethod: 'wallet' },
        headers: { 'idempotency-key': `d-${++keyN}-${Math.random()}` },
      });
      expect(r.statusCode, r.body).toBe(201);
      return r.json<OrderCreated>();
    }
    async function pay(o: OrderCreated, base: bigint, blockTime: number | null = null) {
      const r = await server.orders.recordPayment(
        { orderId: o.orderId },
        { signature: fakeSignature(), receivedBaseUnits: base, finalized: true, blockTime },
      );
      expect(r.ok).toBe(true);
    }
    const pageOf = async (o: OrderCreated) => {
      const token = o.orderUrl.split('/order/')[1]!;
      const r = await inject('GET', `/api/order-pages/${token}`);
      expect(r.statusCode, r.body).toBe(200);
      return r.json<OrderPageView>();
    };

    it('the detail names the short order number and what is owed back: the extra payment, nothing refunded yet', async () => {
      const o = await glassOrder();
      await pay(o, BigInt(o.amountBaseUnits));
      await pay(o, 5_000_000n); // 5 $CLAIM too much
      const cookie = await signInAs(coopers);
      const r = await inject('GET', `/api/seller/orders/${o.orderId}`, { cookie });
      expect(r.statusCode, r.body).toBe(200);
      const d = r.json<SellerOrderDetail>();
      expect(d.orderNumber).toBe(o.orderId.slice(0, 8).toUpperCase());
      expect(d.mint).toBe(keys.mint);
      expect(d.owed).toEqual({
        receivedBaseUnits: (BigInt(o.amountBaseUnits) + 5_000_000n).toString(),
        owedBaseUnits: '5000000',
        refundedBaseUnits: '0',
        remainingBaseUnits: '5000000',
        refundableBaseUnits: (BigInt(o.amountBaseUnits) + 5_000_000n).toString(),
      });
      expect(d.refunds).toEqual([]);
      // This store's RPC does not answer: who paid is unknown for now, and the detail still answers.
      expect(d.payersKnown).toBe(false);
      expect(d.payers).toEqual([]);
      expect(d.paidLateUsdCents).toBeUndefined();
      expect(d.note).toBeUndefined();
    });

    it('tracking changes after shipping: the latest number and its carrier link are the order’s, the buyer is e-mailed again with the order number, the order page follows; refused before shipping and for bad input', async () => {
      const o = await glassOrder();
      await pay(o, BigInt(o.amountBaseUnits));
      const cookie = await signInAs(coopers);
      const tracking = (body: unknown) =>
        inject('POST', `/api/seller/orders/${o.orderId}/tracking`, { cookie, body });
      const early = await tracking({ trackingNumber: 'EARLY1' });
      expect(early.statusCode, early.body).toBe(409);
      expect(early.json()).toMatchObject({
        error: 'not_shipped',
        message: 'Only a shipped order has tracking to change.',
      });
      const shipped = await inject('POST', `/api/seller/orders/${o.orderId}/ship`, {
        cookie,
        body: { trackingNumber: '9400100000000000000000', carrier: 'USPS' },
      });
      expect(shipped.statusCode, shipped.body).toBe(200);
      const first = shipped.json<SellerOrderDetail>().shipment!;
      expect(first).toMatchObject({
        trackingNumber: '9400100000000000000000',
        carrier: 'USPS',
        trackingUrl: 'https://tools.usps.com/go/TrackConfirmAction?tLabels=9400100000000000000000',
      });
      for (const [body, error] of [
        [{}, 'tracking_required'],
        [{ trackingNumber: '' }, 'tracking_required'],
        [{ trackingNumber: 'a\nb' }, 'invalid_tracking_number'],
        [{ trackingNumber: 'X', note: 'y' }, 'invalid_request'],
        [[1, 2], 'invalid_request'],
      ] as const) {
        const bad = await tracking(body);
        expect(bad.statusCode, JSON.stringify(body)).toBe(400);
        expect(bad.json()).toMatchObject({ error });
      }
      clock.advance(60_000);
      const changed = await tracking({ trackingNumber: ' 1Z999AA10123456784 ', carrier: 'ups' });
      expect(changed.statusCode, changed.body).toBe(200);
      const d = changed.json<SellerOrderDetail>();
      expect(d.status).toBe('shipped');
      expect(d.shipment).toEqual({
        trackingNumber: '1Z999AA10123456784',
        carrier: 'ups',
        trackingUrl: 'https://www.ups.com/track?tracknum=1Z999AA10123456784',
        at: clock.now().toISOString(),
        shippedAt: first.shippedAt,
      });
      // The buyer hears of it, with the short order number.
      for (let i = 0; i < 4; i++) await server.outbox.runOnce();
      const mail = transport.sent.find((m) => m.kind === 'tracking_updated');
      expect(mail?.to).toBe(intlShipping.email);
      expect(mail?.payload.orderNumber).toBe(d.orderNumber);
      const text = renderEmail(mail!).text;
      expect(text).toContain('1Z999AA10123456784');
      expect(text).toContain(d.orderNumber);
      // The buyer's page shows the new number and the carrier's page.
      const page = await pageOf(o);
      expect(page.shipment).toMatchObject({
        trackingNumber: '1Z999AA10123456784',
        trackingUrl: 'https://www.ups.com/track?tracknum=1Z999AA10123456784',
      });
      // Delivered orders keep their tracking editable; another vendor's order is not found.
      await inject('POST', `/api/seller/orders/${o.orderId}/delivered`, { cookie });
      expect((await tracking({ trackingNumber: 'LATER2', carrier: 'DHL' })).statusCode).toBe(200);
      const theirs = await inject('POST', `/api/seller/orders/${o.orderId}/tracking`, {
        cookie: await signInAs(gorilla),
        body: { trackingNumber: 'X1' },
      });
      expect(theirs.statusCode).toBe(404);
    });

    it('the seller’s note: set, changed, cleared; bounded and validated at the edge; never shown to the buyer', async () => {
      const o = await glassOrder();
      const cookie = await signInAs(coopers);
      const note = (body: unknown, c = cookie) =>
        inject('POST', `/api/seller/orders/${o.orderId}/note`, { cookie: c, body });
      const r = await note({ note: '  Wrap twice — fragile.\nCall before delivery.  ' });
      expect(r.statusCode, r.body).toBe(200);
      expect(r.json<SellerOrderDetail>().note).toEqual({
        text: 'Wrap twice — fragile.\nCall before delivery.',
        at: clock.now().toISOString(),
      });
      clock.advance(1_000);
      expect((await note({ note: 'Gift: no invoice in the box' })).json<SellerOrderDetail>().note?.text).toBe(
        'Gift: no invoice in the box',
      );
      for (const [body, error, message] of [
        [{}, 'invalid_note', 'Send the note.'],
        [{ note: 5 }, 'invalid_note', 'The note must be text.'],
        [{ note: 'x'.repeat(2001) }, 'invalid_note', 'The note is too long (at most 2,000 characters).'],
        [{ note: 'bell\u0007' }, 'invalid_note', 'The note has characters that are not text.'],
        [{ note: 'x', other: 1 }, 'invalid_request', 'Unknown field other.'],
      ] as const) {
        const bad = await note(body);
        expect(bad.statusCode, JSON.stringify(body)).toBe(400);
        expect(bad.json()).toMatchObject({ error, message });
      }
      clock.advance(1_000);
      expect((await note({ note: 'é'.repeat(2000) })).statusCode).toBe(200);
      clock.advance(1_000);
      expect((await note({ note: '' })).json<SellerOrderDetail>().note).toBeUndefined();
      expect((await note({ note: 'x' }, await signInAs(gorilla))).statusCode).toBe(404);
      expect((await note({ note: 'x' }, '')).statusCode).toBe(401);
      // The order id in the path is validated at the edge like the buyer's: a malformed one is a 400, nothing set.
      const malformed = await inject('POST', `/api/seller/orders/${o.orderId.toUpperCase()}x/note`, {
        cookie,
        body: { note: 'x' },
      });
      expect(malformed.statusCode).toBe(400);
      expect(malformed.json()).toMatchObject({ error: 'invalid_order_id', field: 'id' });
      expect(
        (await inject('GET', `/api/seller/orders/${o.orderId}`, { cookie })).json<SellerOrderDetail>().note,
      ).toBeUndefined();
      const cross = await inject('POST', `/api/seller/orders/${o.orderId}/note`, {
        cookie,
        body: { note: 'x' },
        headers: { origin: 'https://evil.example' },
      });
      expect(cross.statusCode).toBe(403);
      const page = JSON.stringify(await pageOf(o));
      expect(page).not.toContain('Gift');
      expect(page).not.toContain('é'.repeat(10));
    });

    it('paid late: the detail shows the USD value of the payment, as the paid-late e-mail states it', async () => {
      const o = await glassOrder();
      // The quote expires; the payment's block is after it, with the price then in the stored history.
      clock.advance(16 * 60_000);
      await server.store.db
        .insertInto('price_history')
        .values({ t: new Date(clock.ms - 30_000).toISOString(), price_usd: '0.42' })
        .execute();
      await pay(o, BigInt(o.amountBaseUnits), Math.floor(clock.ms / 1000));
      const cookie = await signInAs(coopers);
      const d = (
        await inject('GET', `/api/seller/orders/${o.orderId}`, { cookie })
      ).json<SellerOrderDetail>();
      expect(d.status).toBe('paid_late');
      for (let i = 0; i < 4; i++) await server.outbox.runOnce();
      const mail = transport.sent.find((m) => m.kind === 'paid_late' && m.role === 'seller');
      expect(mail?.payload.usdAtPayment).toMatch(/^\d+\.\d\d$/);
      expect(d.paidLateUsdCents).toBe(Math.round(Number(mail!.payload.usdAtPayment) * 100));
      // The price history is kept a day only: once it is gone, the value stored with the payment still shows.
      await server.store.db.deleteFrom('price_history').execute();
      const later = (
        await inject('GET', `/api/seller/orders/${o.orderId}`, { cookie })
      ).json<SellerOrderDetail>();
      expect(later.paidLateUsdCents).toBe(d.paidLateUsdCents);
    });
  });
});
