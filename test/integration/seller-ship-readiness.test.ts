/**
 * "Mark shipped" needs the money and an address (src/core/ship-readiness.ts): the order service refuses it, in
 * words and before anything is written, for a paid-late order refunded in full (closed) or in part (a refund
 * begun), for a QR order paid without shipping details and for an order whose buyer deleted their details (then
 * paid late), and the order's detail carries what the console decides on (`refunds`, `closedByRefund`,
 * `shippingDetails`); a refunded extra payment leaves the order to ship. In-process (app.inject) against a real
 * store: a SQLite file, and PostgreSQL when TEST_DATABASE_URL is set.
 */
import { Keypair } from '@solana/web3.js';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiError, OrderCreated, QuoteResponse } from '../../src/core/api';
import type { SellerMe, SellerOrderDetail, SellerOrderList } from '../../src/core/seller-api';
import { shipBlockOf, type ShipBlock, type ShippingDetailsState } from '../../src/core/ship-readiness';
import { startServer, type RunningServer } from '../../src/server/server';
import { payoutAccountsAssumedToExist } from '../support/payout-accounts';
import { injector, sellerSettings, signInSeller } from '../support/seller-session';
import { restock } from '../support/stock';
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
/** The buyer's wallet, as the payments module reads it from the chain. */
const BUYER_WALLET = Keypair.generate().publicKey.toBase58();
const gorilla = Keypair.generate();
const GLASS = 'sonic-crushed-opal-spillproof';
/** Paid by QR only (coopers). */
const EAGLES = 'eagles-xl-joystick-cropal-stick';
/** The refusal for want of an address alone (nothing refunded). */
const addressBlock = (shippingDetails: ShippingDetailsState) =>
  shipBlockOf({ shippingDetails, refundedExceptions: [], closedByRefund: false })!;

describe.each([sqliteBackend(), postgresBackend()])(
  'Mark shipped needs an address on $name',
  (backend: Backend) => {
    describe.runIf(backend.enabled)(`${backend.name} store`, () => {
      let server: RunningServer;
      let clock: Clock;
      let price: TestPrice;
      let keyN = 0;

      beforeEach(async () => {
        clock = new Clock();
        server = await startServer(sellerSettings(coopers, gorilla, keys.mint), {
          payoutAccounts: payoutAccountsAssumedToExist,
          store: await backend.fresh(),
          priceSource: (price = new TestPrice(clock, '0.5')),
          transport: new RecordingTransport(),
          now: clock.now,
          listen: false,
          startOutbox: false,
          expireEveryMs: 0,
        });
        await restock(server, GLASS, 5);
        await restock(server, EAGLES, 5);
      });
      afterEach(async () => {
        await server.close();
      });
      afterAll(async () => {
        await backend.cleanup();
      });

      const inject = injector(() => server);

      async function order(productId: string, paymentMethod: 'wallet' | 'qr'): Promise<OrderCreated> {
        price.set('0.5');
        const q = await inject('POST', '/api/quotes', { body: { items: [{ productId, quantity: 1 }] } });
        expect(q.statusCode, q.body).toBe(200);
        const r = await inject('POST', '/api/orders', {
          body: {
            quote: q.json<QuoteResponse>().quote,
            paymentMethod,
            ...(paymentMethod === 'wallet' ? { shipping: intlShipping } : {}),
          },
          headers: { 'idempotency-key': `ship-${++keyN}` },
        });
        expect(r.statusCode, r.body).toBe(201);
        return r.json<OrderCreated>();
      }
      /** A transfer recorded through the ledger's own entry point; its signature. */
      async function pay(o: OrderCreated, base = BigInt(o.amountBaseUnits)): Promise<string> {
        const signature = fakeSignature();
        const r = await server.orders.recordPayment(
          { orderId: o.orderId },
          { signature, receivedBaseUnits: base, finalized: true, blockTime: null },
        );
        expect(r.ok).toBe(true);
        return signature;
      }
      /** Paid in full after its quote expired: status paid_late, the buyer's details kept. */
      async function paidLate(): Promise<{ o: OrderCreated; paidWith: string }> {
        const o = await order(GLASS, 'wallet');
        clock.advance(16 * 60_000);
        await server.orders.expireOrders();
        return { o, paidWith: await pay(o) };
      }
      /** A refund as the console records it once the chain confirmed it (the chain read is seller-refund's). */
      async function refund(
        cookie: string,
        orderId: string,
        exception: 'paid_late' | 'extra_payment',
        amountBaseUnits: bigint,
        paidWith: string[],
      ) {
        const me = await inject('GET', '/api/seller/me', { cookie });
        expect(me.statusCode, me.body).toBe(200);
        const seller = {
          address: me.json<SellerMe>().address,
          vendorIds: me.json<SellerMe>().vendors.map((v) => v.id),
        };
        await server.orders.recordRefund(seller, orderId, {
          exception,
          signature: fakeSignature(),
          amountBaseUnits,
          to: BUYER_WALLET,
          payers: new Map(paidWith.map((s) => [s, BUYER_WALLET])),
        });
      }
      const toShip = async (cookie: string) => {
        const r = await inject('GET', '/api/seller/orders?queue=to_ship', { cookie });
        expect(r.statusCode, r.body).toBe(200);
        return r.json<SellerOrderList>().orders.map((o) => o.orderId);
      };
      /** What a refused Mark shipped must leave as it was. */
      async function footprint(orderId: string) {
        const db = server.store.db;
        const [row, history, actions, mail, refunds] = await Promise.all([
          db
            .selectFrom('orders')
            .select(['status', 'updated_at'])
            .where('id', '=', orderId)
            .executeTakeFirstOrThrow(),
          db.selectFrom('order_history').select('event').where('order_id', '=', orderId).execute(),
          db.selectFrom('seller_actions').select('action').where('order_id', '=', orderId).execute(),
          db.selectFrom('outbox').select('kind').where('order_id', '=', orderId).execute(),
          db.selectFrom('refunds').select('signature').where('order_id', '=', orderId).execute(),
        ]);
        return {
          row,
          history: history.length,
          actions: actions.length,
          mail: mail.map((m) => m.kind).sort(),
          refunds: refunds.length,
        };
      }
      async function refusedShip(cookie: string, orderId: string, block: ShipBlock) {
        const before = await footprint(orderId);
        const r = await inject('POST', `/api/seller/orders/${orderId}/ship`, {
          cookie,
          body: { trackingNumber: '1Z999AA10123456784' },
        });
        expect(r.statusCode, r.body).toBe(409);
        const body = r.json<ApiError>();
        expect(body).toMatchObject({ error: block.code, message: block.message });
        expect(await footprint(orderId)).toEqual(before);
      }
      const detail = async (cookie: string, orderId: string) => {
        const r = await inject('GET', `/api/seller/orders/${orderId}`, { cookie });
        expect(r.statusCode, r.body).toBe(200);
        return r.json<SellerOrderDetail>();
      };

      it('a QR order paid without shipping details: no address, refused in words, nothing written; shipped once the details come', async () => {
        const record = await order(EAGLES, 'qr');
        await pay(record);
        const cookie = await signInSeller(inject, coopers);
        expect(await detail(cookie, record.orderId)).toMatchObject({
          status: 'final',
          shippingDetails: 'none',
        });
        await refusedShip(cookie, record.orderId, addressBlock('none'));
        // Past the grace too (an exception by then): still refused.
        clock.advance(31 * 60_000);
        await refusedShip(cookie, record.orderId, addressBlock('none'));
        // The buyer sends them: it ships.
        const token = record.orderUrl.split('/').pop()!;
        const sent = await inject('POST', `/api/orders/${record.orderId}/confirmation`, {
          body: {
            token,
            shipping: {
              kind: 'us',
              fullName: 'Ada Lovelace',
              email: 'ada@buyer.test',
              address1: '1 Navy Way',
              city: 'Arlington',
              usState: 'VA',
              zip: '22202',
            },
          },
        });
        expect(sent.statusCode, sent.body).toBeLessThan(300);
        expect((await detail(cookie, record.orderId)).shippingDetails).toBe('given');
        const ok = await inject('POST', `/api/seller/orders/${record.orderId}/ship`, {
          cookie,
          body: { trackingNumber: '1Z999AA10123456784' },
        });
        expect(ok.statusCode, ok.body).toBe(200);
        expect(ok.json<SellerOrderDetail>().status).toBe('shipped');
      });

      it('details the buyer deleted (an expired order, then paid late): no address, refused in words, nothing written', async () => {
        const o = await order(GLASS, 'wallet');
        clock.advance(16 * 60_000);
        await server.orders.expireOrders();
        const token = o.orderUrl.split('/').pop()!;
        const del = await inject('DELETE', `/api/order-pages/${token}/details`);
        expect(del.statusCode, del.body).toBe(200);
        await pay(o); // late: paid in full after its quote expired
        const cookie = await signInSeller(inject, coopers);
        const d = await detail(cookie, o.orderId);
        expect(d).toMatchObject({ status: 'paid_late', shippingDetails: 'erased' });
        await refusedShip(cookie, o.orderId, addressBlock('erased'));
      });

      it('a paid-late order refunded in full: closed, refused as refunded in words (the address given), nothing written, not To ship', async () => {
        const { o, paidWith } = await paidLate();
        const cookie = await signInSeller(inject, coopers);
        await refund(cookie, o.orderId, 'paid_late', BigInt(o.amountBaseUnits), [paidWith]);
        const d = await detail(cookie, o.orderId);
        expect(d).toMatchObject({ status: 'paid_late', shippingDetails: 'given', closedByRefund: true });
        const block = shipBlockOf({
          shippingDetails: d.shippingDetails,
          refundedExceptions: d.refunds.map((r) => r.exception),
          closedByRefund: d.closedByRefund,
        });
        expect(block?.code).toBe('refunded');
        await refusedShip(cookie, o.orderId, block!);
        expect(await toShip(cookie)).not.toContain(o.orderId);
      });

      it('a paid-late order refunded in two parts: the first leaves the exception open (begun, not To ship, not shippable), the second settles it and closes the order', async () => {
        const { o, paidWith } = await paidLate();
        const cookie = await signInSeller(inject, coopers);
        const amount = BigInt(o.amountBaseUnits);
        await refund(cookie, o.orderId, 'paid_late', amount / 3n, [paidWith]);
        let d = await detail(cookie, o.orderId);
        // Everything came back? No: a third did. The late payment goes back whole, so the rest is still owed.
        expect(d).toMatchObject({ status: 'paid_late', closedByRefund: false });
        expect(d.exceptions).toContain('paid_late');
        expect(d.resolved).not.toContain('paid_late');
        expect(d.actions.map((a) => a.action)).toEqual(['refund']);
        const begun = shipBlockOf({
          shippingDetails: d.shippingDetails,
          refundedExceptions: d.refunds.map((r) => r.exception),
          closedByRefund: d.closedByRefund,
        });
        expect(begun?.code).toBe('refund_begun');
        await refusedShip(cookie, o.orderId, begun!);
        expect(await toShip(cookie)).not.toContain(o.orderId);
        await refund(cookie, o.orderId, 'paid_late', amount - amount / 3n, [paidWith]);
        d = await detail(cookie, o.orderId);
        expect(d).toMatchObject({ status: 'paid_late', closedByRefund: true });
        expect(d.resolved).toContain('paid_late');
        // (Both at the test clock's same instant: their order in the list is not the point.)
        expect(d.actions.map((a) => a.action).sort()).toEqual(['refund', 'refunded']);
      });

      it('a refund begun on a paid-late order (part went back, not settled): refused as begun, even once the vendor recorded an action for it; not To ship, while the same order without the refund is', async () => {
        const begun = await paidLate();
        const kept = await paidLate();
        // An extra payment on each: what is owed then exceeds a small refund, which leaves the exception open.
        const extra = BigInt(begun.o.amountBaseUnits) / 20n;
        const begunExtra = await pay(begun.o, extra);
        await pay(kept.o, extra);
        const cookie = await signInSeller(inject, coopers);
        await refund(cookie, begun.o.orderId, 'paid_late', extra / 2n, [begun.paidWith, begunExtra]);
        const d = await detail(cookie, begun.o.orderId);
        expect(d).toMatchObject({ status: 'paid_late', closedByRefund: false });
        expect(d.refunds.map((r) => r.exception)).toEqual(['paid_late']);
        expect(d.exceptions).toContain('paid_late');
        expect(d.resolved).not.toContain('paid_late');
        const block = shipBlockOf({
          shippingDetails: d.shippingDetails,
          refundedExceptions: d.refunds.map((r) => r.exception),
          closedByRefund: d.closedByRefund,
        });
        expect(block?.code).toBe('refund_begun');
        await refusedShip(cookie, begun.o.orderId, block!);
        // "Record action" on the late payment (ship at the price paid) does not bring the money back.
        for (const { o } of [begun, kept]) {
          const r = await inject('POST', `/api/seller/orders/${o.orderId}/resolve`, {
            cookie,
            body: { exception: 'paid_late', note: 'Ships at the price paid.' },
          });
          expect(r.statusCode, r.body).toBe(200);
        }
        await refusedShip(cookie, begun.o.orderId, block!);
        const queue = await toShip(cookie);
        expect(queue).not.toContain(begun.o.orderId);
        expect(queue).toContain(kept.o.orderId);
        const ok = await inject('POST', `/api/seller/orders/${kept.o.orderId}/ship`, {
          cookie,
          body: { trackingNumber: '1Z999AA10123456784' },
        });
        expect(ok.statusCode, ok.body).toBe(200);
      });

      it('an extra payment refunded leaves the goods paid: To ship, and it ships', async () => {
        const o = await order(GLASS, 'wallet');
        const first = await pay(o);
        const extra = BigInt(o.amountBaseUnits) / 20n;
        const second = await pay(o, extra);
        const cookie = await signInSeller(inject, coopers);
        await refund(cookie, o.orderId, 'extra_payment', extra, [first, second]);
        const d = await detail(cookie, o.orderId);
        expect(d).toMatchObject({ status: 'final', closedByRefund: false });
        expect(d.refunds.map((r) => r.exception)).toEqual(['extra_payment']);
        expect(
          shipBlockOf({
            shippingDetails: d.shippingDetails,
            refundedExceptions: d.refunds.map((r) => r.exception),
            closedByRefund: d.closedByRefund,
          }),
        ).toBeUndefined();
        expect(await toShip(cookie)).toContain(o.orderId);
        const ok = await inject('POST', `/api/seller/orders/${o.orderId}/ship`, {
          cookie,
          body: { trackingNumber: '1Z999AA10123456784' },
        });
        expect(ok.statusCode, ok.body).toBe(200);
        expect(ok.json<SellerOrderDetail>().status).toBe('shipped');
      });
    });
  },
);
