/**
 * Refunds follow the money, on the localnet and on a SQLite file and PostgreSQL (TEST_DATABASE_URL) — issue 28,
 * findings 1 and 7:
 * - an outsider's 1-base-unit "extra" to a paid order's public reference is dust: no exception, owed nothing, the
 *   console's default refund goes to the overpaying buyer, and a refund to the outsider is refused on chain check,
 *   while the buyer's refund is recorded;
 * - underpaid 90 %, the vendor returns the partial, the buyer pays only the 10 % "top-up": the order stays
 *   underpaid (never paid late), the top-up is an extra payment owed back, in the Exceptions queue, not to ship.
 */
import { randomBytes } from 'node:crypto';
import { Connection, Keypair, PublicKey } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderCreated, OrderPageView, QuoteResponse } from '../../src/core/api';
import type { SellerOrderDetail, SellerOrderList } from '../../src/core/seller-api';
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

const backends = [sqliteBackend(), postgresBackend()];
const PRODUCT = 'sonic-crushed-opal-spillproof';

describe.each(backends)('Refunds follow the money on $name', (backend: Backend) => {
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

    async function order(): Promise<OrderCreated> {
      const q = await inject('POST', '/api/quotes', {
        body: { items: [{ productId: PRODUCT, quantity: 1 }] },
      });
      expect(q.statusCode, q.body).toBe(200);
      const r = await server.app.inject({
        method: 'POST',
        url: '/api/orders',
        payload: { quote: q.json<QuoteResponse>().quote, shipping: intlShipping, paymentMethod: 'wallet' },
        headers: { 'idempotency-key': `money-${randomBytes(8).toString('hex')}` },
      });
      expect(r.statusCode, r.body).toBe(201);
      return r.json<OrderCreated>();
    }

    /** `from` pays `amount` to the vendor naming the order's reference; recorded as the watcher records it. */
    async function payOrder(from: Keypair, o: OrderCreated, amount: bigint, opts: { late?: boolean } = {}) {
      const signature = await pay(connection, {
        from,
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
          blockTime: opts.late ? Math.ceil(Date.parse(o.expiresAt) / 1000) + 60 : null,
          slot: status?.slot ?? null,
        },
      );
      expect(rec.ok).toBe(true);
      return rec;
    }

    const queue = async (cookie: string, name: string) =>
      (await inject('GET', `/api/seller/orders?queue=${name}&pageSize=100`, { cookie }))
        .json<SellerOrderList>()
        .orders.map((x) => x.orderId);

    it('an outsider’s 1-base-unit "extra" to a paid order is owed nothing and a refund to them is refused; the overpaying buyer is refunded', async () => {
      const buyer = Keypair.generate();
      const outsider = Keypair.generate();
      await faucet(net, buyer.publicKey, 2, 10_000);
      await faucet(net, outsider.publicKey, 2, 100);
      const cookie = await signInSeller(inject, vendor);
      const o = await order();
      const amount = BigInt(o.amountBaseUnits);
      const over = amount / 2n; // the buyer pays 150 %
      expect(await payOrder(buyer, o, amount + over)).toMatchObject({ status: 'paid', role: 'payment' });
      // The reference is public on chain now: the outsider sends 1 base unit naming it.
      expect(await payOrder(outsider, o, 1n)).toMatchObject({ status: 'paid', role: 'extra' });

      const url = `/api/seller/orders/${o.orderId}`;
      const detail = async () => (await inject('GET', url, { cookie })).json<SellerOrderDetail>();
      let d = await detail();
      // Dust raises no exception: only the buyer's over-amount is one.
      expect(d.exceptions).toEqual(['overpaid']);
      expect(d.owed).toMatchObject({ owedBaseUnits: over.toString(), remainingBaseUnits: over.toString() });
      expect(d.payersKnown).toBe(true);
      const byOwner = (k: Keypair) => d.payers.find((p) => p.owner === k.publicKey.toBase58());
      expect(byOwner(buyer)).toMatchObject({
        paidBaseUnits: (amount + over).toString(),
        owedBaseUnits: over.toString(),
        refundLimits: { overpaid: over.toString() },
      });
      expect(byOwner(outsider)).toMatchObject({
        paidBaseUnits: '1',
        owedBaseUnits: '0',
        refundLimits: { overpaid: '0' },
      });
      const refund = (exception: string, signature: string) =>
        inject('POST', `${url}/refund`, { cookie, body: { exception, signature } });

      // The vendor (fooled, or by the old default) sends everything owed to the outsider: refused, nothing recorded.
      const toOutsider = await send(connection, ownerTransferIxs(mint, vendor, outsider.publicKey, over), [
        vendor,
      ]);
      let r = await refund('overpaid', toOutsider);
      expect(r.statusCode, r.body).toBe(409);
      expect(r.json()).toMatchObject({ error: 'refund_not_owed' });
      // Nor can it be recorded against an "extra payment": dust is no such exception.
      r = await refund('extra_payment', toOutsider);
      expect(r.statusCode, r.body).toBe(409);
      expect(r.json()).toMatchObject({ error: 'no_such_exception' });
      d = await detail();
      expect(d.refunds).toEqual([]);
      expect(d.exceptions).toEqual(['overpaid']);
      expect(d.resolved).toEqual([]);
      expect(await queue(cookie, 'exceptions')).toContain(o.orderId);

      // More than is owed to the buyer is refused; what is owed is recorded, to the buyer, and settles it.
      const tooMuch = await send(connection, ownerTransferIxs(mint, vendor, buyer.publicKey, over + 1n), [
        vendor,
      ]);
      r = await refund('overpaid', tooMuch);
      expect(r.statusCode, r.body).toBe(409);
      expect(r.json()).toMatchObject({ error: 'refund_too_much' });
      const toBuyer = await send(connection, ownerTransferIxs(mint, vendor, buyer.publicKey, over), [vendor]);
      r = await refund('overpaid', toBuyer);
      expect(r.statusCode, r.body).toBe(200);
      d = r.json<SellerOrderDetail>();
      expect(d.refunds.map((x) => ({ signature: x.signature, to: x.to, amount: x.amountBaseUnits }))).toEqual(
        [{ signature: toBuyer, to: buyer.publicKey.toBase58(), amount: over.toString() }],
      );
      expect(d.resolved).toEqual(['overpaid']);
      expect(d.owed.remainingBaseUnits).toBe('0');
      expect(await queue(cookie, 'exceptions')).not.toContain(o.orderId);
      expect(await queue(cookie, 'to_ship')).toContain(o.orderId);
    });

    it('underpaid 90 %, the partial refunded, then only the 10 % top-up: stays underpaid, the top-up owed back and in Exceptions', async () => {
      const buyer = Keypair.generate();
      await faucet(net, buyer.publicKey, 2, 10_000);
      const cookie = await signInSeller(inject, vendor);
      const o = await order();
      const amount = BigInt(o.amountBaseUnits);
      const partial = (amount * 9n) / 10n;
      const rest = amount - partial;
      expect(await payOrder(buyer, o, partial, { late: true })).toMatchObject({
        status: 'underpaid',
        role: 'partial',
      });
      const url = `/api/seller/orders/${o.orderId}`;
      // The vendor returns the partial (settles "underpaid": the order will not ship).
      const back = await send(connection, ownerTransferIxs(mint, vendor, buyer.publicKey, partial), [vendor]);
      let r = await inject('POST', `${url}/refund`, {
        cookie,
        body: { exception: 'underpaid', signature: back },
      });
      expect(r.statusCode, r.body).toBe(200);
      expect(r.json<SellerOrderDetail>().resolved).toEqual(['underpaid']);
      expect(await queue(cookie, 'exceptions')).not.toContain(o.orderId);

      // The buyer pays only the 10 % that was missing.
      expect(await payOrder(buyer, o, rest, { late: true })).toMatchObject({
        status: 'underpaid',
        role: 'extra',
      });
      const d = (await inject('GET', url, { cookie })).json<SellerOrderDetail>();
      expect(d.status).toBe('underpaid');
      expect(d.history.map((h) => h.status)).not.toContain('paid_late');
      // Where the vendor looks: the Exceptions queue, with the top-up owed back to the buyer.
      expect(d.exceptions).toContain('extra_payment');
      expect(d.resolved).not.toContain('extra_payment');
      expect(d.owed.remainingBaseUnits).toBe(rest.toString());
      expect(d.payers[0]).toMatchObject({
        owner: buyer.publicKey.toBase58(),
        refundLimits: { extra_payment: rest.toString() },
      });
      expect(await queue(cookie, 'exceptions')).toContain(o.orderId);
      expect(await queue(cookie, 'to_ship')).not.toContain(o.orderId);
      // Not shippable: the goods are not paid.
      const ship = await inject('POST', `${url}/ship`, { cookie, body: { trackingNumber: 'TRACK123' } });
      expect(ship.statusCode).toBe(409);
      // The top-up goes back to the buyer and settles it.
      const topUpBack = await send(connection, ownerTransferIxs(mint, vendor, buyer.publicKey, rest), [
        vendor,
      ]);
      r = await inject('POST', `${url}/refund`, {
        cookie,
        body: { exception: 'extra_payment', signature: topUpBack },
      });
      expect(r.statusCode, r.body).toBe(200);
      expect(r.json<SellerOrderDetail>().owed.remainingBaseUnits).toBe('0');
      expect(await queue(cookie, 'exceptions')).not.toContain(o.orderId);
    });

    it("dust never raises an exception on a paid order, and the buyer's page owes it nothing by the same rule", async () => {
      const buyer = Keypair.generate();
      const outsider = Keypair.generate();
      await faucet(net, buyer.publicKey, 2, 10_000);
      await faucet(net, outsider.publicKey, 2, 100);
      const cookie = await signInSeller(inject, vendor);
      const o = await order();
      expect(await payOrder(buyer, o, BigInt(o.amountBaseUnits))).toMatchObject({ status: 'paid' });
      expect(await payOrder(outsider, o, 1n)).toMatchObject({ status: 'paid', role: 'extra' });
      const d = (
        await inject('GET', `/api/seller/orders/${o.orderId}`, { cookie })
      ).json<SellerOrderDetail>();
      expect(d.exceptions).toEqual([]);
      expect(d.owed.remainingBaseUnits).toBe('0');
      expect(await queue(cookie, 'exceptions')).not.toContain(o.orderId);
      expect(await queue(cookie, 'to_ship')).toContain(o.orderId);
      // The buyer's order page says what the server's rule says (dust threshold included): nothing is owed back.
      const token = o.orderUrl.split('/order/')[1] ?? '';
      const page = (await inject('GET', `/api/order-pages/${token}`)).json<OrderPageView>();
      expect(page.owed).toEqual({
        owedBaseUnits: '0',
        refundedBaseUnits: '0',
        remainingBaseUnits: '0',
        perPayment: ['0', '0'],
      });
    });
  });
});
