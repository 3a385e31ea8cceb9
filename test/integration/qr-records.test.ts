/**
 * QR records first and the buyer's order page, server side (app.inject against a real store: a SQLite file, and PostgreSQL when TEST_DATABASE_URL
 * is set): QR records made before the QR is shown, paid before the details, the buyer's order page by capability
 * token, late payments valued at their block time, dust, and the cleanup of expired records. Real transfers on
 * the localnet are in test/e2e/qr-checkout.test.ts and test/integration/qr-watcher.test.ts.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { OrderCreated, OrderPageView, OrderPublic, QuoteResponse } from '../../src/core/api';
import { renderEmail } from '../../src/server/mail/templates';
import { startServer, type RunningServer } from '../../src/server/server';
import {
  Clock,
  fakeSignature,
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
const HONEY = 'honey-dew-papaya-live-rosin'; // QR, $50 each; at $0.5 per $CLAIM: 100 $CLAIM each

describe.each(backends)('QR records on $name', (backend: Backend) => {
  describe.runIf(backend.enabled)(`${backend.name} store`, () => {
    let server: RunningServer;
    let clock: Clock;
    let transport: RecordingTransport;
    let keyN = 0;

    beforeEach(async () => {
      clock = new Clock();
      transport = new RecordingTransport();
      server = await startServer(testSettings(), {
        payoutAccounts: payoutAccountsAssumedToExist,
        store: await backend.fresh(),
        priceSource: new TestPrice(clock, '0.5'),
        transport,
        now: clock.now,
        listen: false,
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

    const inject = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown, headers = {}) =>
      server.app.inject({
        method,
        url,
        ...(payload !== undefined ? { payload: payload as object } : {}),
        headers,
      });
    async function quote(quantity: number, renew?: string): Promise<QuoteResponse> {
      const r = await inject('POST', '/api/quotes', {
        items: [{ productId: HONEY, quantity }],
        ...(renew ? { renew } : {}),
      });
      expect(r.statusCode, r.body).toBe(200);
      return r.json<QuoteResponse>();
    }
    /** What the QR page does before it shows a QR: a record without shipping details. */
    async function record(quantity = 1): Promise<OrderCreated & { quote: string }> {
      const q = await quote(quantity);
      const r = await inject(
        'POST',
        '/api/orders',
        { quote: q.quote, paymentMethod: 'qr' },
        { 'idempotency-key': `rec-${++keyN}` },
      );
      expect(r.statusCode, r.body).toBe(201);
      return { ...r.json<OrderCreated>(), quote: q.quote };
    }
    const getOrder = async (id: string) => (await inject('GET', `/api/orders/${id}`)).json<OrderPublic>();
    const tokenOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);
    const page = async (url: string) => inject('GET', `/api/order-pages/${tokenOf(url)}`);
    const pay = (orderId: string, amount: bigint, blockTime: number | null = Math.floor(clock.ms / 1000)) =>
      server.orders.recordPayment(
        { orderId },
        { signature: fakeSignature(), receivedBaseUnits: amount, finalized: false, blockTime },
      );
    /** "Send Order Confirmation" as the page that made the record sends it: the details and its page token. */
    const confirm = (
      r: { orderId: string; orderUrl: string },
      shipping?: unknown,
      token = tokenOf(r.orderUrl),
    ) =>
      inject('POST', `/api/orders/${r.orderId}/confirmation`, {
        ...(shipping !== undefined ? { shipping } : {}),
        token,
      });
    const held = async () =>
      (await server.stock.availability()).find((l) => l.productId === HONEY)?.held ?? 0;
    const sendAll = async () => {
      for (let i = 0; i < 4; i++) await server.outbox.runOnce();
    };

    it('a record holds the payment target and no stock; details attach only with its token, no e-mail until paid', async () => {
      const available = async () =>
        (await server.stock.availability()).find((l) => l.productId === HONEY)?.available ?? -1;
      const stockBefore = await available();
      const r = await record(2);
      expect(r).toMatchObject({ amount: '200.000000' });
      expect(r.orderUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/order\/[0-9a-f]{32}$/);
      const pub = await getOrder(r.orderId);
      expect(pub).toMatchObject({ status: 'awaiting_payment', shippingDetails: 'awaiting', emails: [] });
      // A view holds nothing: the catalogue does not count it.
      expect(await available()).toBe(stockBefore);
      expect(await held()).toBe(0);
      // The watcher follows it like any other order.
      expect((await server.orders.ordersToWatch()).map((w) => w.orderId)).toContain(r.orderId);

      // The order id alone attaches nothing (ids appear in request logs and seller e-mails).
      for (const token of [undefined, '0'.repeat(32), r.orderId, tokenOf(r.orderUrl).toUpperCase()]) {
        const res = await inject('POST', `/api/orders/${r.orderId}/confirmation`, {
          shipping: usShipping,
          ...(token !== undefined ? { token } : {}),
        });
        expect(res.statusCode, String(token)).toBe(403);
        expect(res.json()).toMatchObject({
          error: 'order_capability_required',
          message:
            'Shipping details can only be sent from the page that started this order, or from its order page link.',
        });
      }
      // No details, no confirmation; bad details change nothing.
      const none = await confirm(r);
      expect(none.statusCode).toBe(400);
      expect(none.json()).toMatchObject({ error: 'invalid_shipping' });
      const bad = await confirm(r, { ...usShipping, usState: 'XX' });
      expect(bad.statusCode).toBe(400);
      const extra = await inject('POST', `/api/orders/${r.orderId}/confirmation`, {
        shipping: usShipping,
        token: tokenOf(r.orderUrl),
        x: 1,
      });
      expect(extra.statusCode).toBe(400);
      expect((await getOrder(r.orderId)).shippingDetails).toBe('awaiting');

      const ok = await confirm(r, usShipping);
      expect(ok.statusCode, ok.body).toBe(200);
      // Kept, but nothing held (details are free to send: the payment takes the stock; holds.md) and nothing is
      // e-mailed to anyone while unpaid.
      expect(ok.json<OrderPublic>()).toMatchObject({ shippingDetails: 'given', emails: [] });
      expect(await held()).toBe(0);
      expect(await available()).toBe(stockBefore);
      // The same details again: fine, nothing new. A second, different set: refused in words.
      expect((await confirm(r, usShipping)).statusCode).toBe(200);
      const other = await confirm(r, { ...usShipping, fullName: 'Someone Else' });
      expect(other.statusCode).toBe(409);
      expect(other.json()).toMatchObject({
        error: 'details_already_sent',
        message:
          'Shipping details were already sent for this order and cannot be replaced here. To change them, contact the seller.',
      });
      await sendAll();
      expect(transport.sent).toEqual([]);

      // The payment lands: both confirmations, seller then buyer, saying it is paid, with no payable link.
      expect(await pay(r.orderId, 200_000_000n)).toMatchObject({ ok: true, status: 'paid' });
      await sendAll();
      expect(transport.sent.map((m) => [m.kind, m.role, m.payload.from_name, m.paymentSeen])).toEqual([
        ['order_confirmation', 'seller', usShipping.fullName, true],
        ['order_confirmation', 'buyer', usShipping.fullName, true],
      ]);
      for (const m of transport.sent) {
        expect(m.payload.solanaPayURL).toBe('Paid — nothing more to pay');
        const { text, html } = renderEmail(m);
        expect(text).toContain('Payment has been received on-chain.');
        expect(text + html).not.toContain('solana:');
      }
      expect(transport.sent[1]?.payload.orderUrl).toBe(r.orderUrl);
      // Sold: the hold became a sale.
      expect(await held()).toBe(0);
      expect(await available()).toBe(stockBefore - 2);
    });

    it('a record paid before its details sells the unit if it is there, else it is oversold', async () => {
      await server.stock.set({ productId: HONEY }, 1, 'test', clock.now().toISOString());
      const a = await record(1);
      const b = await record(1);
      // Two views of the last unit: both see it for sale.
      expect((await server.stock.availability()).find((l) => l.productId === HONEY)?.available).toBe(1);
      expect(await pay(a.orderId, 100_000_000n)).toMatchObject({ ok: true, status: 'paid' });
      expect((await server.stock.availability()).find((l) => l.productId === HONEY)?.available).toBe(0);
      // The later payment for the same last unit: recorded, the order is oversold and the seller refunds.
      expect(await pay(b.orderId, 100_000_000n)).toMatchObject({ ok: true, status: 'oversold' });
      // Sold out now: the page's next quote is refused in words.
      const next = await inject('POST', '/api/quotes', { items: [{ productId: HONEY, quantity: 1 }] });
      expect(next.statusCode).toBe(409);
      expect(next.json()).toMatchObject({ error: 'sold_out' });
    });

    /** The record's answer carries its QR: exactly what GET /api/qr.svg draws for the link it shows. */
    async function expectDrawnQr(body: OrderCreated): Promise<void> {
      const link = body.transactionRequestUrl ?? body.solanaPayUrl;
      const drawn = await inject('GET', `/api/qr.svg?data=${encodeURIComponent(link)}`);
      expect(drawn.statusCode, drawn.body).toBe(200);
      expect(body.qrSvg).toMatch(/^<svg /);
      expect(body.qrSvg).toBe(drawn.body);
    }

    it('the open record follows the quantity (same reference); a paid one refuses', async () => {
      const r = await record(1);
      await expectDrawnQr(r);
      const q2 = await quote(3, r.quote);
      expect(q2.reference).toBe(r.reference);
      // The order id alone moves nothing: without the record's page token (or with a wrong one) 403, unchanged.
      for (const token of [undefined, r.orderId, '0'.repeat(32)]) {
        const res = await inject('PUT', `/api/orders/${r.orderId}/quote`, {
          quote: q2.quote,
          ...(token !== undefined ? { token } : {}),
        });
        expect(res.statusCode, String(token)).toBe(403);
        expect(res.json()).toMatchObject({ error: 'order_capability_required' });
        expect(res.body).not.toContain(tokenOf(r.orderUrl));
      }
      expect((await getOrder(r.orderId)).amount).toBe('100.000000');
      const moved = await inject('PUT', `/api/orders/${r.orderId}/quote`, {
        quote: q2.quote,
        token: tokenOf(r.orderUrl),
      });
      expect(moved.statusCode, moved.body).toBe(200);
      expect(moved.json<OrderCreated>()).toMatchObject({ amount: '300.000000', orderUrl: r.orderUrl });
      await expectDrawnQr(moved.json<OrderCreated>());
      expect(moved.json<OrderCreated>().qrSvg).not.toBe(r.qrSvg);
      expect((await getOrder(r.orderId)).amount).toBe('300.000000');
      // Another order's quote cannot move it.
      const other = await quote(1);
      expect(
        (
          await inject('PUT', `/api/orders/${r.orderId}/quote`, {
            quote: other.quote,
            token: tokenOf(r.orderUrl),
          })
        ).statusCode,
      ).toBe(400);
      // Once anything is paid, the record is fixed.
      await pay(r.orderId, 1_000_000n);
      const q3 = await quote(1, r.quote);
      const refused = await inject('PUT', `/api/orders/${r.orderId}/quote`, {
        quote: q3.quote,
        token: tokenOf(r.orderUrl),
      });
      expect(refused.statusCode).toBe(409);
      expect(refused.json()).toMatchObject({ error: 'order_not_open' });
      expect((await getOrder(r.orderId)).amount).toBe('300.000000');
    });

    it('paid before the details: no e-mail yet; details → confirmations saying it is paid', async () => {
      const r = await record(1);
      expect(await pay(r.orderId, 100_000_000n)).toMatchObject({ ok: true, status: 'paid' });
      expect((await getOrder(r.orderId)).emails).toEqual([]);
      await confirm(r, usShipping);
      await sendAll();
      expect(transport.sent.map((m) => [m.kind, m.role, m.paymentSeen])).toEqual([
        ['order_confirmation', 'seller', true],
        ['order_confirmation', 'buyer', true],
      ]);
      const text = renderEmail(transport.sent[1]!).text;
      expect(text).toContain('Payment has been received on-chain.');
      expect(text).toContain('Transaction link: https://explorer.solana.com/tx/');
      expect(text).toContain(`Order page: ${r.orderUrl}`);
      // The grace delay has nothing to do: the details came.
      clock.advance(2 * 3600_000);
      expect(await server.orders.notifyMissingDetails()).toBe(0);
    });

    it('paid and the details never come: the seller is told once after the grace delay', async () => {
      const r = await record(1);
      const paid = await pay(r.orderId, 100_000_000n);
      expect(paid).toMatchObject({ ok: true, status: 'paid' });
      const grace = testSettings().qr.detailsGraceMs;
      clock.advance(grace - 1000);
      expect(await server.orders.notifyMissingDetails()).toBe(0);
      clock.advance(2000);
      expect(await server.orders.notifyMissingDetails()).toBe(1);
      expect(await server.orders.notifyMissingDetails()).toBe(0);
      const pub = await getOrder(r.orderId);
      expect(pub.shippingDetails).toBe('missing');
      expect(pub.emails.map((e) => [e.kind, e.recipient])).toEqual([['details_missing', 'seller']]);
      await sendAll();
      const mail = transport.sent[0]!;
      expect(mail.to).toBe(SELLER);
      expect(mail.payload).toMatchObject({ receivedCLAIM: '100.000000', totalCLAIM: '100.000000' });
      const { subject, text } = renderEmail(mail);
      expect(subject).toBe('Paid, shipping details missing: Honey Dew Papaya Live Rosin');
      expect(text).toContain(`Transaction link: https://explorer.solana.com/tx/${pub.signature}`);
      expect((await page(r.orderUrl)).json<OrderPageView>().shippingDetails).toBe('missing');
    });

    it('the order page: by token only, no e-mail or address, live status and payments; wrong token 404', async () => {
      const r = await record(2);
      await confirm(r, usShipping);
      const first = await page(r.orderUrl);
      expect(first.statusCode).toBe(200);
      expect(first.headers['cache-control']).toBe('no-store');
      const view = first.json<OrderPageView>();
      expect(view).toMatchObject({
        number: r.orderId.slice(0, 8).toUpperCase(),
        status: 'awaiting_payment',
        vendorName: 'Gorilla Pack Genetics',
        items: [{ name: 'Honey Dew Papaya Live Rosin', quantity: 2, unitCents: 5000, lineCents: 10000 }],
        totalCents: 10000,
        amount: '200.000000',
        payments: [],
        shippingDetails: 'given',
      });
      // The holder of the page's token sees the details as typed (issue 33: a typo can be caught), the e-mail
      // masked; the full e-mail, the order id (it attaches details) and the reference never appear.
      expect(view.details).toMatchObject({ fullName: usShipping.fullName });
      expect(view.details?.addressLines.join('\n')).toContain(usShipping.address1);
      expect(view.details?.email).not.toBe(usShipping.email);
      for (const secret of [usShipping.email, r.orderId, r.reference])
        expect(first.body).not.toContain(secret);

      // Underpaid: what is missing and a top-up link with the same reference.
      await pay(r.orderId, 50_000_000n);
      clock.advance(16 * 60_000);
      await server.orders.expireOrders();
      const under = (await page(r.orderUrl)).json<OrderPageView>();
      expect(under.status).toBe('underpaid');
      expect(under.payments).toHaveLength(1);
      expect(under.topUp).toMatchObject({ amount: '150.000000' });
      expect(under.topUp?.solanaPayUrl).toContain(`reference=${r.reference}`);
      expect(under.topUp?.solanaPayUrl).toContain('amount=150.000000');

      for (const wrong of [
        tokenOf(r.orderUrl).replace(/^./, (c) => (c === 'a' ? 'b' : 'a')),
        '0'.repeat(32),
        r.orderId,
        'x',
        tokenOf(r.orderUrl).toUpperCase(),
      ]) {
        const res = await inject('GET', `/api/order-pages/${wrong}`);
        expect(res.statusCode, wrong).toBe(404);
        expect(res.json()).toMatchObject({ error: 'order_not_found' });
      }
    });

    it('late: paid_late, the seller gets the USD value at the block time against the total', async () => {
      const r = await record(1); // $50 = 100 $CLAIM at $0.5
      await confirm(r, usShipping);
      clock.advance(20 * 60_000);
      await server.orders.expireOrders();
      // The price at the payment's block time, from the stored history: $0.40 → 100 $CLAIM were worth $40.
      const blockTime = Math.floor(clock.ms / 1000) - 30;
      await server.store.db
        .insertInto('price_history')
        .values([
          { t: new Date((blockTime - 3600) * 1000).toISOString(), price_usd: '0.9' },
          { t: new Date((blockTime - 5) * 1000).toISOString(), price_usd: '0.4' },
          { t: new Date((blockTime + 5) * 1000).toISOString(), price_usd: '0.1' },
        ])
        .execute();
      expect(await pay(r.orderId, 100_000_000n, blockTime)).toMatchObject({ ok: true, status: 'paid_late' });
      await sendAll();
      const late = transport.sent.filter((m) => m.kind === 'paid_late');
      expect(late.map((m) => m.role)).toEqual(['seller', 'buyer']);
      expect(late[0]?.payload.usdAtPayment).toBe('40.00');
      const seller = renderEmail(late[0]!);
      expect(seller.subject).toMatch(/^Paid after the quote expired — review before shipping/);
      expect(seller.text).toContain('$40.00 against the order total of $50.00');
      expect(renderEmail(late[1]!).text).toContain('the seller will review it and confirm');
      expect((await page(r.orderUrl)).json<OrderPageView>().status).toBe('paid_late');
    });

    it('late, during a spike: valued with the reference price at the block time, not the spiked spot', async () => {
      const r = await record(1); // 100 $CLAIM
      await inject('POST', `/api/orders/${r.orderId}/confirmation`, { shipping: usShipping });
      clock.advance(20 * 60_000);
      await server.orders.expireOrders();
      // Ten minutes at $0.40 (a sample every 10 s), then 3× for the last 30 s before the block.
      const blockTime = Math.floor(clock.ms / 1000) - 30;
      const rows = [];
      for (let s = blockTime - 600; s < blockTime - 30; s += 10)
        rows.push({ t: new Date(s * 1000).toISOString(), price_usd: '0.4' });
      for (let s = blockTime - 30; s <= blockTime; s += 10)
        rows.push({ t: new Date(s * 1000).toISOString(), price_usd: '1.2' });
      await server.store.db.insertInto('price_history').values(rows).execute();
      expect(await pay(r.orderId, 100_000_000n, blockTime)).toMatchObject({ ok: true, status: 'paid_late' });
      await sendAll();
      const late = transport.sent.filter((m) => m.kind === 'paid_late' && m.role === 'seller');
      expect(late.map((m) => m.payload.usdAtPayment)).toEqual(['40.00']); // the spot would say $120.00
    });

    it('paid_late is valued on every transfer that completed the order, each at its own block time', async () => {
      const r = await record(1); // $50 = 100 $CLAIM at $0.5
      await inject('POST', `/api/orders/${r.orderId}/confirmation`, { shipping: usShipping });
      const start = Math.floor(clock.ms / 1000);
      await server.store.db
        .insertInto('price_history')
        .values([
          { t: new Date((start - 5) * 1000).toISOString(), price_usd: '0.5' },
          { t: new Date((start + 20 * 60 - 5) * 1000).toISOString(), price_usd: '0.25' },
        ])
        .execute();
      // 99.999999 $CLAIM on time at $0.5, then the last base unit after the expiry at $0.25.
      expect(await pay(r.orderId, 99_999_999n, start)).toMatchObject({
        ok: true,
        status: 'awaiting_payment',
      });
      clock.advance(20 * 60_000);
      await server.orders.expireOrders();
      expect(await pay(r.orderId, 1n, start + 20 * 60)).toMatchObject({ ok: true, status: 'paid_late' });
      await sendAll();
      const late = transport.sent.filter((m) => m.kind === 'paid_late');
      // $50.00 (the 1-unit top-up alone would be $0.00).
      expect(late[0]?.payload.usdAtPayment).toBe('50.00');
    });

    it('dust e-mails nobody; expired unpaid records without details are cleaned up, nothing else', async () => {
      const dusty = await record(1);
      await pay(dusty.orderId, 100_000_000n);
      await confirm(dusty, usShipping);
      const before = (await getOrder(dusty.orderId)).emails.length;
      // min(1 % of 100 $CLAIM, $0.50 / $0.5) = 1 $CLAIM
      expect(await pay(dusty.orderId, 999_999n)).toMatchObject({ ok: true, role: 'extra' });
      expect((await getOrder(dusty.orderId)).emails).toHaveLength(before);
      expect(await pay(dusty.orderId, 1_000_000n)).toMatchObject({ ok: true, role: 'extra' });
      expect((await getOrder(dusty.orderId)).emails).toHaveLength(before + 1);

      const unpaid = await record(1);
      const withDetails = await record(1);
      await confirm(withDetails, usShipping);
      clock.advance(16 * 60_000);
      await server.orders.expireOrders();
      expect(await server.orders.cleanupRecords()).toBe(0); // inside the watcher's window: kept
      clock.advance(testSettings().qr.cleanupAfterMs);
      expect(await server.orders.cleanupRecords()).toBe(1);
      expect((await inject('GET', `/api/orders/${unpaid.orderId}`)).statusCode).toBe(404);
      expect((await page(unpaid.orderUrl)).statusCode).toBe(404);
      expect((await getOrder(withDetails.orderId)).status).toBe('expired');
      expect((await getOrder(dusty.orderId)).status).toBe('paid');
    });
  });
});
