/**
 * The seller console's list side in-process (app.inject) against a real store: a SQLite file, and PostgreSQL when
 * TEST_DATABASE_URL is set. Queues and their counts, search by product, the date range in a time zone, the
 * "changed since" poll, the sales summary, and the CSV read back through a real CSV parser.
 */
import { parse } from 'csv-parse/sync';
import { Keypair } from '@solana/web3.js';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { OrderCreated, QuoteResponse } from '../../src/core/api';
import type {
  SellerChanges,
  SellerOrderDetail,
  SellerOrderList,
  SellerSummary,
} from '../../src/core/seller-api';
import { CSV_COLUMNS } from '../../src/server/seller/csv';
import { startServer, type RunningServer } from '../../src/server/server';
import { payoutAccountsAssumedToExist } from '../support/payout-accounts';
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
  usShipping,
  type Backend,
} from './orders-support';

const coopers = Keypair.generate();
const gorilla = Keypair.generate();

const GLASS = 'sonic-crushed-opal-spillproof';
const LILAC = 'lilac-tiptop';
/** Another vendor's (gorilla). */
const PAPAYA = 'honey-dew-papaya-live-rosin';
/** Paid by QR only (coopers). */
const EAGLES = 'eagles-xl-joystick-cropal-stick';

describe.each([sqliteBackend(), postgresBackend()])('seller queues on $name', (backend: Backend) => {
  describe.runIf(backend.enabled)(`${backend.name} store`, () => {
    let server: RunningServer;
    let clock: Clock;
    let price: TestPrice;
    let keyN = 0;

    beforeEach(async () => {
      clock = new Clock();
      server = await startServer(sellerSettings(coopers, gorilla, keys.mint), {
        // No chain here: the vendors' token accounts are taken to exist (QR quotes are issued).
        payoutAccounts: payoutAccountsAssumedToExist,
        store: await backend.fresh(),
        priceSource: (price = new TestPrice(clock, '0.5')),
        transport: new RecordingTransport(),
        now: clock.now,
        listen: false,
        startOutbox: false,
        expireEveryMs: 0,
      });
      await restock(server, GLASS, 20);
      await restock(server, LILAC, 20);
      await restock(server, PAPAYA, 20);
    });
    afterEach(async () => {
      await server.close();
    });
    afterAll(async () => {
      await backend.cleanup();
    });

    const inject = injector(() => server);

    const signInAs = (key: Keypair) => signInSeller(inject, key);

    async function order(
      productId = GLASS,
      shipping: object = intlShipping,
      paymentMethod: 'wallet' | 'qr' = 'wallet',
    ): Promise<OrderCreated> {
      price.set('0.5'); // a fresh price at the clock's time
      const q = await inject('POST', '/api/quotes', { body: { items: [{ productId, quantity: 1 }] } });
      expect(q.statusCode, q.body).toBe(200);
      const r = await server.app.inject({
        method: 'POST',
        url: '/api/orders',
        payload: { quote: q.json<QuoteResponse>().quote, shipping, paymentMethod },
        headers: { 'idempotency-key': `k-${++keyN}-${Math.random()}` },
      });
      expect(r.statusCode, r.body).toBe(201);
      return r.json<OrderCreated>();
    }
    async function pay(o: OrderCreated, base = BigInt(o.amountBaseUnits)) {
      const r = await server.orders.recordPayment(
        { orderId: o.orderId },
        { signature: fakeSignature(), receivedBaseUnits: base, finalized: true, blockTime: null },
      );
      expect(r.ok).toBe(true);
    }
    const list = async (cookie: string, qs: string) => {
      const r = await inject('GET', `/api/seller/orders${qs}`, { cookie });
      expect(r.statusCode, r.body).toBe(200);
      return r.json<SellerOrderList>();
    };
    const ids = (l: SellerOrderList) => l.orders.map((o) => o.orderId);

    it('queues: To ship (paid in full with details, paid late once resolved), open Exceptions, Shipped, All, with counts', async () => {
      const unpaid = await order();
      clock.advance(1000);
      const paid = await order();
      await pay(paid);
      clock.advance(1000);
      const extra = await order();
      await pay(extra);
      await pay(extra, 2_000_000n); // an extra payment (above dust): still to ship, and an open exception
      clock.advance(1000);
      const late = await order();
      clock.advance(16 * 60_000);
      await server.orders.expireOrders();
      await pay(late); // paid after expiry: the vendor decides first
      const cookie = await signInAs(coopers);

      let toShip = await list(cookie, '?queue=to_ship');
      expect(ids(toShip)).toEqual([extra.orderId, paid.orderId]);
      expect(toShip.counts).toEqual({ to_ship: 2, exceptions: 2, shipped: 0, all: 4 });
      expect(toShip.orders[0]!.orderNumber).toBe(extra.orderId.slice(0, 8).toUpperCase());
      expect(ids(await list(cookie, '?queue=exceptions'))).toEqual([late.orderId, extra.orderId]);
      expect(ids(await list(cookie, '?queue=all'))).toEqual([
        late.orderId,
        extra.orderId,
        paid.orderId,
        unpaid.orderId,
      ]);

      // "Record action" on the late payment (shipping at the price paid): it joins To ship, leaves Exceptions.
      const r = await inject('POST', `/api/seller/orders/${late.orderId}/resolve`, {
        cookie,
        body: { exception: 'paid_late', note: 'Shipping it at the price paid' },
      });
      expect(r.statusCode, r.body).toBe(200);
      toShip = await list(cookie, '?queue=to_ship');
      expect(ids(toShip)).toEqual([late.orderId, extra.orderId, paid.orderId]);
      expect(ids(await list(cookie, '?queue=exceptions'))).toEqual([extra.orderId]);

      // Shipping moves it from To ship to Shipped.
      const s = await inject('POST', `/api/seller/orders/${paid.orderId}/ship`, {
        cookie,
        body: { trackingNumber: '1Z999AA10123456784', carrier: 'UPS' },
      });
      expect(s.statusCode, s.body).toBe(200);
      const shipped = await list(cookie, '?queue=shipped');
      expect(ids(shipped)).toEqual([paid.orderId]);
      expect(shipped.counts).toEqual({ to_ship: 2, exceptions: 1, shipped: 1, all: 4 });

      // Another vendor sees none of it.
      const other = await list(await signInAs(gorilla), '?queue=all');
      expect(other.counts).toEqual({ to_ship: 0, exceptions: 0, shipped: 0, all: 0 });
    });

    it('searches by product and variant name too, by "#" order number, and counts the queues over the matches', async () => {
      const glass = await order(GLASS);
      const lilac = await order(LILAC);
      await pay(lilac);
      const cookie = await signInAs(coopers);
      const found = await list(cookie, '?queue=all&q=tiptop');
      expect(ids(found)).toEqual([lilac.orderId]);
      expect(found.counts).toEqual({ to_ship: 1, exceptions: 0, shipped: 0, all: 1 });
      expect(ids(await list(cookie, '?q=SPILLPROOF'))).toEqual([glass.orderId]);
      expect(
        ids(await list(cookie, `?q=${encodeURIComponent('#' + glass.orderId.slice(0, 8).toUpperCase())}`)),
      ).toEqual([glass.orderId]);
      const byBuyer = await list(cookie, `?queue=to_ship&q=${encodeURIComponent(intlShipping.fullName)}`);
      expect(ids(byBuyer)).toEqual([lilac.orderId]);
      expect(byBuyer.counts).toEqual({ to_ship: 1, exceptions: 0, shipped: 0, all: 2 });
    });

    it('filters by a date range in the asked time zone, both days included; refuses bad dates and zones', async () => {
      // The clock starts at 2026-01-15T12:00Z or so: place orders on three days, 23:30 UTC each.
      const at = (iso: string) => clock.advance(Date.parse(iso) - clock.ms);
      at('2030-03-01T23:30:00Z');
      const first = await order();
      at('2030-03-02T23:30:00Z');
      const second = await order();
      at('2030-03-03T23:30:00Z');
      const third = await order();
      const cookie = await signInAs(coopers);
      // In UTC, 2 March holds the second order only.
      expect(ids(await list(cookie, '?from=2030-03-02&to=2030-03-02'))).toEqual([second.orderId]);
      // In Berlin (UTC+1) 23:30 UTC is the next day: 2 March holds the first order.
      const berlin = await list(cookie, '?from=2030-03-02&to=2030-03-02&tz=Europe/Berlin');
      expect(ids(berlin)).toEqual([first.orderId]);
      expect(berlin.counts.all).toBe(1);
      expect(ids(await list(cookie, '?from=2030-03-03'))).toEqual([third.orderId]);
      expect(ids(await list(cookie, '?to=2030-03-01'))).toEqual([first.orderId]);
      for (const bad of [
        '?from=2030-02-30',
        '?from=03/02/2030',
        '?from=2030-03-03&to=2030-03-02',
        '?tz=Mars/Olympus',
        '?queue=later',
        '?from=2030-03-01&from=2030-03-02',
      ]) {
        const r = await inject('GET', `/api/seller/orders${bad}`, { cookie });
        expect(r.statusCode, bad).toBe(400);
        expect(r.json(), bad).toMatchObject({ error: 'invalid_query' });
      }
    });

    it('"changed since": new orders, payments and seller actions of this vendor only, with a cursor', async () => {
      const cookie = await signInAs(coopers);
      const changes = async (since?: string) => {
        const r = await inject('GET', `/api/seller/changes${since ? `?since=${since}` : ''}`, { cookie });
        expect(r.statusCode, r.body).toBe(200);
        return r.json<SellerChanges>();
      };
      const start = await changes();
      expect(start.changes).toEqual([]);
      clock.advance(60_000);
      const o = await order();
      await order(PAPAYA, usShipping, 'qr'); // another vendor's
      let c = await changes(start.cursor);
      expect(c.changes.map((x) => x.orderId)).toEqual([o.orderId]);
      expect(c.changes[0]).toMatchObject({
        orderNumber: o.orderId.slice(0, 8).toUpperCase(),
        status: 'awaiting_payment',
      });
      // Asked again within the overlap (30 s before the cursor) it is told again (the console drops what it knows);
      // once past it, nothing is new.
      clock.advance(60_000);
      const again = await changes(c.cursor);
      expect(again.changes).toEqual(c.changes);
      const quiet = await changes(again.cursor);
      expect(quiet.changes).toEqual([]);
      clock.advance(60_000);
      await pay(o);
      c = await changes(quiet.cursor);
      expect(c.changes.map((x) => [x.orderId, x.status])).toEqual([[o.orderId, 'final']]);
      clock.advance(60_000);
      await inject('POST', `/api/seller/orders/${o.orderId}/ship`, {
        cookie,
        body: { trackingNumber: 'T1' },
      });
      expect((await changes(c.cursor)).changes.map((x) => x.orderId)).toEqual([o.orderId]);
      expect((await inject('GET', '/api/seller/changes?since=yesterday', { cookie })).statusCode).toBe(400);
      expect((await inject('GET', '/api/seller/changes')).statusCode).toBe(401);
    });

    it('summary: today, 7 and 30 days — orders placed (= the All tab for those days), $CLAIM received, refunded and net, USD when received; open exceptions and what is still owed back, now', async () => {
      // The reference price history the ledger values each transfer with: 0.5 USD for the last 15 minutes.
      const priceRows = Array.from({ length: 31 }, (_, i) => ({
        t: new Date(clock.ms - i * 30_000).toISOString(),
        price_usd: '0.5',
      }));
      await server.store.db.insertInto('price_history').values(priceRows).execute();
      const old = await order();
      await pay(old); // today (clock time)
      clock.advance(3 * 24 * 3600_000); // three days later
      const o = await order();
      await pay(o);
      await pay(o, 2_000_000n); // 2 $CLAIM extra: an open exception, no price known three days on
      await order(); // unpaid: listed under All, so counted as placed
      // Paid, then cancelled at the buyer's request: still an order placed (the All tab lists it).
      const cancelled = await order();
      await pay(cancelled);
      const token = cancelled.orderUrl.split('/').pop()!;
      expect((await inject('POST', `/api/order-pages/${token}/cancel`)).statusCode).toBe(200);
      await server.store.db
        .insertInto('refunds')
        .values({
          signature: fakeSignature(),
          order_id: o.orderId,
          amount_base_units: '1500000',
          exception: 'extra_payment',
          address: coopers.publicKey.toBase58(),
          at: clock.now().toISOString(),
        })
        .execute();
      const cookie = await signInAs(coopers);
      const c = await inject('POST', `/api/seller/orders/${cancelled.orderId}/cancel`, { cookie });
      expect(c.statusCode, c.body).toBe(200);
      const r = await inject('GET', '/api/seller/summary?tz=UTC', { cookie });
      expect(r.statusCode, r.body).toBe(200);
      const s = r.json<SellerSummary>();
      expect(s.periods.map((p) => p.period)).toEqual(['today', '7d', '30d']);
      const [today, week, month] = s.periods;
      const amount = BigInt(o.amountBaseUnits);
      const cancelledAmount = BigInt(cancelled.amountBaseUnits);
      expect(today).toMatchObject({
        fromDate: clock.now().toISOString().slice(0, 10),
        // Placed today, whatever became of them: paid, unpaid, cancelled.
        orders: 3,
        receivedBaseUnits: (amount + cancelledAmount + 2_000_000n).toString(),
        netBaseUnits: (amount + cancelledAmount + 500_000n).toString(),
        paymentsWithoutUsd: 3,
        receivedUsdCents: 0,
        refunds: 1,
        refundedBaseUnits: '1500000',
      });
      expect(week).toMatchObject({
        orders: 4,
        receivedBaseUnits: (amount * 2n + cancelledAmount + 2_000_000n).toString(),
        netBaseUnits: (amount * 2n + cancelledAmount + 500_000n).toString(),
        // The first payment was valued when it was recorded: $325 at 0.5 USD.
        receivedUsdCents: 32500,
        paymentsWithoutUsd: 3,
      });
      expect(month).toMatchObject({ orders: 4 });
      // Each period's count is the All tab's for the period's days, and the open exceptions the Exceptions tab's.
      for (const p of s.periods)
        expect({
          period: p.period,
          tab: (await list(cookie, `?queue=all&from=${p.fromDate}&tz=UTC`)).total,
        }).toEqual({
          period: p.period,
          tab: p.orders,
        });
      // Now: two orders with an open exception (the extra payment; the cancelled order's refund), 0.5 $CLAIM and
      // all the cancelled order received still to go back.
      expect(s).toMatchObject({
        openExceptions: 2,
        owedBackBaseUnits: (500_000n + cancelledAmount).toString(),
        owedBackOrders: 2,
      });
      expect((await list(cookie, '?queue=exceptions')).total).toBe(s.openExceptions);
      expect((await inject('GET', '/api/seller/summary?tz=Nowhere/Else', { cookie })).statusCode).toBe(400);
    });

    it("the summary's open exceptions equal the Exceptions tab: orders older than 30 days too, the grace for shipping details, settled ones", async () => {
      const older = await order();
      await pay(older);
      await pay(older, 2_000_000n); // an extra payment: an exception that stays open until the vendor acts
      clock.advance(40 * 24 * 3600_000); // placed 40 days ago: outside every period, still open
      price.set('0.5');
      const q = await inject('POST', '/api/quotes', {
        body: { items: [{ productId: EAGLES, quantity: 1 }] },
      });
      const rec = await inject('POST', '/api/orders', {
        body: { quote: q.json<QuoteResponse>().quote, paymentMethod: 'qr' },
        headers: { 'idempotency-key': `rec-${++keyN}` },
      });
      expect(rec.statusCode, rec.body).toBe(201);
      const record = rec.json<OrderCreated>();
      await pay(record); // a QR order paid before its buyer sent the shipping details
      const cookie = await signInAs(coopers);
      const agree = async (n: number) => {
        const tabs = (await list(cookie, '?queue=to_ship')).counts.exceptions;
        const summary = (await inject('GET', '/api/seller/summary?tz=UTC', { cookie })).json<SellerSummary>();
        expect({ tab: tabs, summary: summary.openExceptions }).toEqual({ tab: n, summary: n });
      };
      // Seconds after the payment its buyer may still be typing: not an exception, in the tab or the summary.
      await agree(1);
      const all = await list(cookie, '?queue=all');
      expect(all.orders.find((x) => x.orderId === record.orderId)).toMatchObject({
        exceptions: [],
        awaitingDetails: true,
      });
      clock.advance(30 * 60_000); // QR_DETAILS_GRACE_MS: now the seller is told, and so are both counts
      await agree(2);
      expect(ids(await list(cookie, '?queue=exceptions'))).toEqual([record.orderId, older.orderId]);
      const r = await inject('POST', `/api/seller/orders/${older.orderId}/resolve`, {
        cookie,
        body: { exception: 'extra_payment', note: 'Credited to the buyer' },
      });
      expect(r.statusCode, r.body).toBe(200);
      await agree(1);
    });

    it('CSV: one row per order, read back by a CSV parser: the columns, $CLAIM with 6 decimals, USD, address, tracking, refunds', async () => {
      const awkward = { ...intlShipping, fullName: 'O"Brien, Ada', address2: '=SUM(A1)' };
      const o = await order(GLASS, awkward);
      await pay(o);
      const cookie = await signInAs(coopers);
      await inject('POST', `/api/seller/orders/${o.orderId}/ship`, {
        cookie,
        body: { trackingNumber: '1Z999AA10123456784', carrier: 'UPS' },
      });
      clock.advance(1000);
      const unpaid = await order(LILAC);
      const r = await inject('GET', '/api/seller/orders.csv?queue=all', { cookie });
      expect(r.statusCode).toBe(200);
      const rows = parse(r.body, { columns: true }) as Record<string, string>[];
      const header = (parse(r.body, { to: 1 }) as string[][])[0];
      expect(header).toEqual([...CSV_COLUMNS]);
      expect(header).toEqual(
        expect.arrayContaining([
          'order_number',
          'quantity',
          'variant',
          'address1',
          'postal_code',
          'country',
          'tracking_number',
          'carrier',
          'shipped_at',
          'delivered_at',
          'refunds',
          'refunded_claim',
          'amount_claim',
          'received_claim',
          'received_usd',
          'total_usd',
        ]),
      );
      expect(rows).toHaveLength(2);
      const [u, s] = rows as [Record<string, string>, Record<string, string>];
      expect(u).toMatchObject({
        order_id: unpaid.orderId,
        status: 'Awaiting payment',
        received_claim: '0.000000',
      });
      const d = (
        await inject('GET', `/api/seller/orders/${o.orderId}`, { cookie })
      ).json<SellerOrderDetail>();
      const claim = (base: string) =>
        `${BigInt(base) / 1_000_000n}.${(BigInt(base) % 1_000_000n).toString().padStart(6, '0')}`;
      expect(s).toMatchObject({
        order_number: o.orderId.slice(0, 8).toUpperCase(),
        order_id: o.orderId,
        status: 'Shipped',
        payment_method: 'Wallet',
        buyer_name: 'O"Brien, Ada',
        address1: intlShipping.address1,
        address2: "'=SUM(A1)",
        city: intlShipping.city,
        state: intlShipping.stateProvince,
        postal_code: intlShipping.postalCode,
        country: intlShipping.country,
        products: 'Sonic Crushed Opal Spillproof',
        quantity: '1',
        total_usd: '325.00',
        amount_claim: claim(o.amountBaseUnits),
        received_claim: claim(o.amountBaseUnits),
        refunds: '0',
        refunded_claim: '0.000000',
        tracking_number: '1Z999AA10123456784',
        carrier: 'UPS',
        shipped_at: d.history.find((h) => h.status === 'shipped')!.at,
        delivered_at: '',
      });
      expect(s.amount_claim).toMatch(/^\d+\.\d{6}$/);
    });
  });
});
