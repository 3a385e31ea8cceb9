/**
 * The refund cases beyond an extra payment, on the localnet and on a SQLite file and PostgreSQL
 * (TEST_DATABASE_URL): an overpayment inside the completing transfer is an open exception ("Paid more than the
 * total") until the over-amount is refunded or the vendor records why not; a buyer's cancel request on a paid
 * order is an open exception ("The buyer asked to cancel") that the vendor declines with a reason, or settles by
 * "Cancel order and refund": the order is cancelled, its piece back on sale, everything received owed, and real
 * refunds adding up to it settle it; the buyer's page says so and the buyer is e-mailed each refund.
 */
import { randomBytes } from 'node:crypto';
import { Connection, Keypair, PublicKey } from '@solana/web3.js';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderCreated, OrderPageView, QuoteResponse } from '../../src/core/api';
import type { SellerOrderDetail, SellerOrderList, SellerStock } from '../../src/core/seller-api';
import { statusWords } from '../../src/core/seller-words';
import { demoRecipientKeypair } from '../support/demo-keypairs';
import { startLocalnet, type Localnet } from '../support/localnet';
import type { RunningServer } from '../../src/server/server';
import { injector, signInSeller, startLocalnetSellerServer } from '../support/seller-session';
import {
  Clock,
  intlShipping,
  postgresBackend,
  RecordingTransport,
  sqliteBackend,
  TestPrice,
  type Backend,
} from './orders-support';
import { faucet, ownerTransferIxs, pay, send } from './payments-support';

let net: Localnet;
let connection: Connection;
let mint: PublicKey;
const vendor = demoRecipientKeypair('coopersglass');

beforeAll(async () => {
  net = await startLocalnet({ port: 0, slotMs: 50, finalizeLag: 4 });
  connection = new Connection(net.rpcUrl, 'confirmed');
  if (!net.keys) throw new Error('localnet without demo keys');
  mint = net.keys.mint;
  await faucet(net, vendor.publicKey, 2, 0);
});
afterAll(async () => {
  await net?.close();
});

/** A CLAIM transfer between two owners' associated token accounts (the receiver's created if needed). */
const claimTransfer = (from: Keypair, to: PublicKey, amount: bigint, tokenMint: PublicKey = mint) =>
  ownerTransferIxs(tokenMint, from, to, amount);

const backends = [sqliteBackend(), postgresBackend()];
const PRODUCT = 'sonic-crushed-opal-spillproof';

describe.each(backends)('Refund cases on $name', (backend: Backend) => {
  describe.runIf(backend.enabled)(`${backend.name} store`, () => {
    let server: RunningServer;
    const transport = new RecordingTransport();

    beforeAll(async () => {
      const clock = new Clock(Date.now());
      server = await startLocalnetSellerServer(net.port, mint, vendor, {
        store: await backend.fresh(),
        priceSource: new TestPrice(clock, '0.5'),
        transport,
      });
    });
    afterAll(async () => {
      await server?.close();
      await backend.cleanup();
    });

    const inject = injector(() => server);
    const signIn = (key: Keypair) => signInSeller(inject, key);

    /** A glass order paid on chain by `buyer` in one transfer per amount (the first completes it). */
    async function paidOrder(buyer: Keypair, over: bigint): Promise<OrderCreated> {
      const q = await inject('POST', '/api/quotes', {
        body: { items: [{ productId: PRODUCT, quantity: 1 }] },
      });
      expect(q.statusCode, q.body).toBe(200);
      const r = await server.app.inject({
        method: 'POST',
        url: '/api/orders',
        payload: {
          quote: q.json<QuoteResponse>().quote,
          shipping: intlShipping,
          paymentMethod: 'wallet',
        },
        headers: { 'idempotency-key': `cases-${randomBytes(8).toString('hex')}` },
      });
      expect(r.statusCode, r.body).toBe(201);
      const o = r.json<OrderCreated>();
      await payOrder(buyer, o, BigInt(o.amountBaseUnits) + over);
      return o;
    }

    async function payOrder(buyer: Keypair, o: OrderCreated, amount: bigint) {
      const signature = await pay(connection, {
        from: buyer,
        recipientOwner: vendor.publicKey,
        mint,
        amount,
        references: [new PublicKey(o.reference)],
        createRecipientAta: true,
      });
      const status = (await connection.getSignatureStatuses([signature])).value[0];
      const rec = await server.orders.recordPayment(
        { orderId: o.orderId },
        {
          signature,
          receivedBaseUnits: amount,
          finalized: false,
          blockTime: null,
          slot: status?.slot ?? null,
        },
      );
      expect(rec.ok).toBe(true);
      return rec;
    }

    const tokenOf = (o: OrderCreated) => o.orderUrl.split('/order/')[1]!;
    const orderPage = async (o: OrderCreated) =>
      (await inject('GET', `/api/order-pages/${tokenOf(o)}`)).json<OrderPageView>();
    const exceptionsQueue = async (cookie: string) =>
      (
        await inject('GET', '/api/seller/orders?queue=exceptions&pageSize=100', { cookie })
      ).json<SellerOrderList>();
    /** The order's status column in the console's CSV export, read back by a CSV parser. */
    const csvStatus = async (cookie: string, orderId: string) => {
      const r = await inject('GET', '/api/seller/orders.csv?queue=all', { cookie });
      expect(r.statusCode).toBe(200);
      const rows = parse(r.body, { columns: true }) as Record<string, string>[];
      return rows.find((x) => x.order_id === orderId)?.status;
    };
    const available = async (cookie: string) => {
      const line = (await inject('GET', '/api/seller/stock', { cookie }))
        .json<SellerStock>()
        .lines.find((l) => l.productId === PRODUCT && l.variantId === undefined);
      return line!.onHand - line!.reserved;
    };

    it('an overpayment in the completing transfer is an open exception until the over-amount is refunded; another is resolved with a reason', async () => {
      const buyer = Keypair.generate();
      await faucet(net, buyer.publicKey, 2, 10_000);
      const cookie = await signIn(vendor);
      const o = await paidOrder(buyer, 3_000_000n); // one transfer, 3 $CLAIM above the amount
      const detail = async () =>
        (await inject('GET', `/api/seller/orders/${o.orderId}`, { cookie })).json<SellerOrderDetail>();
      let d = await detail();
      expect(d.payments.map((p) => p.role)).toEqual(['payment']);
      expect(d.exceptions).toEqual(['overpaid']);
      expect(d.owed).toMatchObject({ owedBaseUnits: '3000000', remainingBaseUnits: '3000000' });
      // In the Exceptions queue (open), counted there.
      let queue = await exceptionsQueue(cookie);
      expect(queue.orders.map((x) => x.orderId)).toContain(o.orderId);
      const openBefore = queue.counts.exceptions;

      const refund = (signature: string) =>
        inject('POST', `/api/seller/orders/${o.orderId}/refund`, {
          cookie,
          body: { exception: 'overpaid', signature },
        });
      // Part of it: recorded, still open.
      const first = await send(connection, claimTransfer(vendor, buyer.publicKey, 1_000_000n), [vendor]);
      let r = await refund(first);
      expect(r.statusCode, r.body).toBe(200);
      d = r.json<SellerOrderDetail>();
      expect(d.resolved).toEqual([]);
      expect(d.owed.remainingBaseUnits).toBe('2000000');
      // The rest: settled, out of the Exceptions queue.
      const rest = await send(connection, claimTransfer(vendor, buyer.publicKey, 2_000_000n), [vendor]);
      r = await refund(rest);
      expect(r.statusCode, r.body).toBe(200);
      d = r.json<SellerOrderDetail>();
      expect(d.resolved).toEqual(['overpaid']);
      expect(d.actions.map((a) => a.action)).toEqual(['refund', 'refunded']);
      queue = await exceptionsQueue(cookie);
      expect(queue.orders.map((x) => x.orderId)).not.toContain(o.orderId);
      expect(queue.counts.exceptions).toBe(openBefore - 1);
      // Still an order to ship: a refunded over-amount does not close it.
      const toShip = (
        await inject('GET', '/api/seller/orders?queue=to_ship&pageSize=100', { cookie })
      ).json<SellerOrderList>();
      expect(toShip.orders.map((x) => x.orderId)).toContain(o.orderId);

      // Another overpaid order: the vendor records why not (credited to the buyer's next order).
      const o2 = await paidOrder(buyer, 1_500_000n); // above the dust threshold (1 $CLAIM here)
      const resolved = await inject('POST', `/api/seller/orders/${o2.orderId}/resolve`, {
        cookie,
        body: { exception: 'overpaid', note: 'Credited to the buyer’s next order' },
      });
      expect(resolved.statusCode, resolved.body).toBe(200);
      expect(resolved.json<SellerOrderDetail>().resolved).toEqual(['overpaid']);
      expect((await exceptionsQueue(cookie)).orders.map((x) => x.orderId)).not.toContain(o2.orderId);
      // An exactly paid order has no such exception.
      const exact = await paidOrder(buyer, 0n);
      const none = await inject('POST', `/api/seller/orders/${exact.orderId}/resolve`, {
        cookie,
        body: { exception: 'overpaid', note: 'nothing' },
      });
      expect(none.statusCode).toBe(409);
      expect(none.json()).toMatchObject({ error: 'no_such_exception' });
    });

    it('a buyer’s cancel request: an open exception; "Cancel order and refund" cancels it, puts the piece back on sale, and refunds of everything received settle it', async () => {
      const buyer = Keypair.generate();
      await faucet(net, buyer.publicKey, 2, 10_000);
      const cookie = await signIn(vendor);
      const o = await paidOrder(buyer, 0n);
      const url = `/api/seller/orders/${o.orderId}`;
      const detail = async () => (await inject('GET', url, { cookie })).json<SellerOrderDetail>();
      expect((await detail()).exceptions).toEqual([]);
      // Cancelling without the buyer's request is refused (nothing asked).
      const early = await inject('POST', `${url}/cancel`, { cookie, body: {} });
      expect(early.statusCode).toBe(409);
      expect(early.json()).toMatchObject({ error: 'no_such_exception' });

      // The buyer asks from the order page.
      const asked = await inject('POST', `/api/order-pages/${tokenOf(o)}/cancel`);
      expect(asked.statusCode, asked.body).toBe(200);
      expect(asked.json<OrderPageView>().privacy.cancel).toBe('requested');
      let d = await detail();
      expect(d.exceptions).toEqual(['cancel_requested']);
      expect((await exceptionsQueue(cookie)).orders.map((x) => x.orderId)).toContain(o.orderId);
      // Not to ship while the buyer's request is open.
      const toShipNow = (
        await inject('GET', '/api/seller/orders?queue=to_ship&pageSize=100', { cookie })
      ).json<SellerOrderList>();
      expect(toShipNow.orders.map((x) => x.orderId)).not.toContain(o.orderId);
      // A refund is not recorded against the request before the order is cancelled.
      const tooSoon = await send(connection, claimTransfer(vendor, buyer.publicKey, 1_000n), [vendor]);
      const refusedRefund = await inject('POST', `${url}/refund`, {
        cookie,
        body: { exception: 'cancel_requested', signature: tooSoon },
      });
      expect(refusedRefund.statusCode).toBe(409);
      expect(refusedRefund.json()).toMatchObject({ error: 'cancel_first' });

      const before = await available(cookie);
      const cancelled = await inject('POST', `${url}/cancel`, { cookie, body: {} });
      expect(cancelled.statusCode, cancelled.body).toBe(200);
      d = cancelled.json<SellerOrderDetail>();
      expect(d.status).toBe('cancelled');
      expect(d.exceptions).toEqual(['cancel_requested']);
      expect(d.owed).toMatchObject({
        owedBaseUnits: d.receivedBaseUnits,
        remainingBaseUnits: d.receivedBaseUnits,
      });
      expect(d.history.at(-1)).toMatchObject({ status: 'cancelled', event: 'cancelled_by_seller' });
      expect(d.actions.map((a) => a.action)).toEqual(['cancelled']);
      // Until the refund, it asks for one: in the view, the list and the CSV.
      expect(statusWords(d)).toBe('Cancelled: refund the buyer');
      expect(await csvStatus(cookie, o.orderId)).toBe('Cancelled: refund the buyer');
      // The piece is back on sale; the order is not to ship; it cannot ship or be cancelled again.
      expect(await available(cookie)).toBe(before + 1);
      const toShip = (
        await inject('GET', '/api/seller/orders?queue=to_ship&pageSize=100', { cookie })
      ).json<SellerOrderList>();
      expect(toShip.orders.map((x) => x.orderId)).not.toContain(o.orderId);
      const ship = await inject('POST', `${url}/ship`, { cookie, body: { trackingNumber: 'TRACK123' } });
      expect(ship.statusCode).toBe(409);
      expect(ship.json()).toMatchObject({ error: 'cancelled' });
      const again = await inject('POST', `${url}/cancel`, { cookie, body: {} });
      expect(again.statusCode).toBe(409);
      expect(again.json()).toMatchObject({ error: 'already_cancelled' });
      // The buyer's page says cancelled.
      expect((await orderPage(o)).status).toBe('cancelled');

      // A transfer after the cancellation is an extra payment: owed back too, the status stays.
      const late = await payOrder(buyer, o, 2_000_000n); // above the dust threshold
      expect(late).toMatchObject({ ok: true, status: 'cancelled', role: 'extra' });
      d = await detail();
      const received = BigInt(d.receivedBaseUnits);
      expect(d.owed.owedBaseUnits).toBe(received.toString());

      // Refunds of everything received, in two transfers, settle it.
      const refund = (signature: string) =>
        inject('POST', `${url}/refund`, { cookie, body: { exception: 'cancel_requested', signature } });
      const part = await send(connection, claimTransfer(vendor, buyer.publicKey, 250_000n), [vendor]);
      let r = await refund(part);
      expect(r.statusCode, r.body).toBe(200);
      expect(r.json<SellerOrderDetail>().resolved).not.toContain('cancel_requested');
      const rest = await send(connection, claimTransfer(vendor, buyer.publicKey, received - 250_000n), [
        vendor,
      ]);
      r = await refund(rest);
      expect(r.statusCode, r.body).toBe(200);
      d = r.json<SellerOrderDetail>();
      expect(d.resolved).toContain('cancel_requested');
      expect(d.owed.remainingBaseUnits).toBe('0');
      expect((await exceptionsQueue(cookie)).orders.map((x) => x.orderId)).not.toContain(o.orderId);
      // Refunded means done: the order view, the list and the CSV read "Cancelled and refunded".
      expect(d.closedByRefund).toBe(true);
      expect(statusWords(d)).toBe('Cancelled and refunded');
      const row = (await inject('GET', '/api/seller/orders?queue=all&pageSize=100', { cookie }))
        .json<SellerOrderList>()
        .orders.find((x) => x.orderId === o.orderId);
      expect(row && statusWords(row)).toBe('Cancelled and refunded');
      expect(await csvStatus(cookie, o.orderId)).toBe('Cancelled and refunded');
      // The buyer is e-mailed each refund; the page lists them and now lets the buyer delete their details.
      expect(d.emails.filter((e) => e.kind === 'refund_sent').map((e) => e.recipient)).toEqual([
        'buyer',
        'buyer',
      ]);
      const page = await orderPage(o);
      expect(page.refunds.map((x) => x.signature)).toEqual([part, rest]);
      expect(page.privacy.deletion).toBe('allowed');
    });

    it('the vendor declines a cancel request with a reason: resolved, and it can no longer be cancelled from the console', async () => {
      const buyer = Keypair.generate();
      await faucet(net, buyer.publicKey, 2, 10_000);
      const cookie = await signIn(vendor);
      const o = await paidOrder(buyer, 0n);
      const url = `/api/seller/orders/${o.orderId}`;
      expect((await inject('POST', `/api/order-pages/${tokenOf(o)}/cancel`)).statusCode).toBe(200);
      const r = await inject('POST', `${url}/resolve`, {
        cookie,
        body: { exception: 'cancel_requested', note: 'Already handed to the carrier' },
      });
      expect(r.statusCode, r.body).toBe(200);
      const d = r.json<SellerOrderDetail>();
      expect(d.resolved).toEqual(['cancel_requested']);
      expect(d.status).toBe('paid');
      expect((await exceptionsQueue(cookie)).orders.map((x) => x.orderId)).not.toContain(o.orderId);
      // The buyer's page says so (the request was declined; the order goes ahead).
      const page = await inject('GET', `/api/order-pages/${tokenOf(o)}`);
      expect(page.json<OrderPageView>().privacy.cancel).toBe('declined');
      // Declined: to ship again.
      const toShip = (
        await inject('GET', '/api/seller/orders?queue=to_ship&pageSize=100', { cookie })
      ).json<SellerOrderList>();
      expect(toShip.orders.map((x) => x.orderId)).toContain(o.orderId);
      const cancel = await inject('POST', `${url}/cancel`, { cookie, body: {} });
      expect(cancel.statusCode).toBe(409);
      expect(cancel.json()).toMatchObject({ error: 'already_resolved' });
    });
  });
});
