/**
 * "Mark shipped" needs an address: the order service refuses it, in words and before anything is written, for a
 * QR order paid without shipping details and for an order whose buyer deleted their details (then paid late), and
 * the order's detail says which (`shippingDetails`, what the console offers Mark shipped on). In-process
 * (app.inject) against a real store: a SQLite file, and PostgreSQL when TEST_DATABASE_URL is set.
 */
import { Keypair } from '@solana/web3.js';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiError, OrderCreated, QuoteResponse } from '../../src/core/api';
import type { SellerOrderDetail } from '../../src/core/seller-api';
import { shipBlockOf } from '../../src/core/ship-readiness';
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
const gorilla = Keypair.generate();
const GLASS = 'sonic-crushed-opal-spillproof';
/** Paid by QR only (coopers). */
const EAGLES = 'eagles-xl-joystick-cropal-stick';

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
      async function pay(o: OrderCreated) {
        const r = await server.orders.recordPayment(
          { orderId: o.orderId },
          {
            signature: fakeSignature(),
            receivedBaseUnits: BigInt(o.amountBaseUnits),
            finalized: true,
            blockTime: null,
          },
        );
        expect(r.ok).toBe(true);
      }
      /** What a refused Mark shipped must leave as it was. */
      async function footprint(orderId: string) {
        const db = server.store.db;
        const [row, history, actions, mail] = await Promise.all([
          db
            .selectFrom('orders')
            .select(['status', 'updated_at'])
            .where('id', '=', orderId)
            .executeTakeFirstOrThrow(),
          db.selectFrom('order_history').select('event').where('order_id', '=', orderId).execute(),
          db.selectFrom('seller_actions').select('action').where('order_id', '=', orderId).execute(),
          db.selectFrom('outbox').select('kind').where('order_id', '=', orderId).execute(),
        ]);
        return {
          row,
          history: history.length,
          actions: actions.length,
          mail: mail.map((m) => m.kind).sort(),
        };
      }
      async function refusedShip(cookie: string, orderId: string, code: string) {
        const before = await footprint(orderId);
        const r = await inject('POST', `/api/seller/orders/${orderId}/ship`, {
          cookie,
          body: { trackingNumber: '1Z999AA10123456784' },
        });
        expect(r.statusCode, r.body).toBe(409);
        const body = r.json<ApiError>();
        expect(body.error).toBe(code);
        expect(body.message).toBe(shipBlockOf(code === 'no_shipping_details' ? 'none' : 'erased')?.message);
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
        await refusedShip(cookie, record.orderId, 'no_shipping_details');
        // Past the grace too (an exception by then): still refused.
        clock.advance(31 * 60_000);
        await refusedShip(cookie, record.orderId, 'no_shipping_details');
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
        await refusedShip(cookie, o.orderId, 'details_erased');
      });
    });
  },
);
