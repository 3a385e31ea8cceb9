/**
 * "Mark refunded" against the chain: the localnet (LiteSVM running the real SPL Token program) and the server's
 * own RPC port and budget, on a SQLite file and on PostgreSQL (TEST_DATABASE_URL). A real order is paid by a
 * real transfer (recorded in the ledger with its real signature), then the seller names refund transactions:
 * only a successful transfer of the order's mint from the vendor's token account back to the wallet that paid
 * is recorded; the wrong direction, another mint, another receiver, a failed or unknown transaction are refused
 * with a clear message and nothing is recorded.
 */
import { randomBytes } from 'node:crypto';
import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Connection, Keypair, PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderCreated, OrderPageView, QuoteResponse } from '../../src/core/api';
import type { SellerOrderDetail } from '../../src/core/seller-api';
import { demoRecipientKeypair } from '../support/demo-keypairs';
import { startLocalnet, type Localnet } from '../support/localnet';
import type { RunningServer } from '../../src/server/server';
import { renderEmail } from '../../src/server/mail/templates';
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
import { createOtherMint, faucet, ownerTransferIxs, pay, send } from './payments-support';

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

describe.each(backends)('Mark refunded on $name', (backend: Backend) => {
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

    /** A glass order paid on chain by `buyer` (plus `extra` base units in a second transfer), in the ledger. */
    async function paidOrder(buyer: Keypair, extra: bigint): Promise<OrderCreated> {
      const q = await inject('POST', '/api/quotes', {
        body: { items: [{ productId: 'sonic-crushed-opal-spillproof', quantity: 1 }] },
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
        headers: { 'idempotency-key': `refund-${randomBytes(8).toString('hex')}` },
      });
      expect(r.statusCode, r.body).toBe(201);
      const o = r.json<OrderCreated>();
      for (const amount of [BigInt(o.amountBaseUnits), extra]) {
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
      }
      return o;
    }

    it('records a real refund from the vendor back to the payer; refuses the wrong direction, another mint, another receiver, failed and unknown transactions', async () => {
      const buyer = Keypair.generate();
      const stranger = Keypair.generate();
      await faucet(net, buyer.publicKey, 2, 10_000);
      await faucet(net, stranger.publicKey, 1, 1);
      const o = await paidOrder(buyer, 7_000_000n); // 7 $CLAIM too much: an extra payment
      const cookie = await signIn(vendor);
      const detail = async () =>
        (await inject('GET', `/api/seller/orders/${o.orderId}`, { cookie })).json<SellerOrderDetail>();
      expect((await detail()).exceptions).toEqual(['extra_payment']);
      const refund = (signature: string) =>
        inject('POST', `/api/seller/orders/${o.orderId}/refund`, {
          cookie,
          body: { exception: 'extra_payment', signature },
        });
      const refused = async (signature: string, error: string, message: string) => {
        const r = await refund(signature);
        expect(r.statusCode, `${error}: ${r.body}`).toBe(400);
        expect(r.json()).toEqual({ error, message, field: 'signature' });
      };

      // The buyer paying the vendor again: tokens moved, but towards the vendor.
      await refused(
        await send(connection, claimTransfer(buyer, vendor.publicKey, 1_000n), [buyer]),
        'refund_wrong_direction',
        'That transaction moved $CLAIM to the vendor, not from the vendor back to the buyer.',
      );
      // The order's own payment is not a refund either.
      const paymentSig = (await detail()).payments[0]!.signature;
      await refused(
        paymentSig,
        'refund_wrong_direction',
        'That transaction moved $CLAIM to the vendor, not from the vendor back to the buyer.',
      );
      // Another token, from the vendor to the buyer.
      const other = await createOtherMint(connection, vendor, vendor.publicKey, 1_000_000n);
      await refused(
        await send(connection, claimTransfer(vendor, buyer.publicKey, 5_000n, other), [vendor]),
        'refund_wrong_mint',
        'That transaction moved another token, not $CLAIM.',
      );
      // $CLAIM from the vendor, but to someone who did not pay this order.
      await refused(
        await send(connection, claimTransfer(vendor, stranger.publicKey, 5_000n), [vendor]),
        'refund_not_to_payer',
        'That transaction did not send $CLAIM back to the wallet that paid this order.',
      );
      // A transaction that failed on chain (more than the vendor holds), landed with its error.
      await refused(
        await send(connection, claimTransfer(vendor, buyer.publicKey, 10n ** 18n), [vendor], {
          skipPreflight: true,
        }),
        'refund_failed',
        'That transaction failed on chain: it moved nothing.',
      );
      // A signature the chain does not know.
      await refused(
        bs58.encode(randomBytes(64)),
        'refund_not_found',
        'No confirmed transaction with that signature was found on chain.',
      );
      let d = await detail();
      expect(d.actions).toEqual([]);
      expect(d.resolved).toEqual([]);

      // The real refund: 7 $CLAIM from the vendor's token account back to the buyer.
      const before = await connection.getTokenAccountBalance(
        getAssociatedTokenAddressSync(mint, buyer.publicKey),
      );
      const sig = await send(connection, claimTransfer(vendor, buyer.publicKey, 7_000_000n), [vendor]);
      const after = await connection.getTokenAccountBalance(
        getAssociatedTokenAddressSync(mint, buyer.publicKey),
      );
      expect(BigInt(after.value.amount) - BigInt(before.value.amount)).toBe(7_000_000n);
      const ok = await refund(sig);
      expect(ok.statusCode, ok.body).toBe(200);
      d = ok.json<SellerOrderDetail>();
      expect(d.resolved).toEqual(['extra_payment']);
      expect(d.actions).toEqual([
        {
          action: 'refunded',
          detail: { exception: 'extra_payment', signature: sig, amountBaseUnits: '7000000' },
          address: vendor.publicKey.toBase58(),
          at: expect.any(String),
        },
      ]);
      // Once: the exception is settled, and the signature cannot settle another.
      const again = await refund(sig);
      expect(again.statusCode).toBe(409);
      expect(again.json()).toMatchObject({ error: 'already_resolved' });
      const o2 = await paidOrder(buyer, 2_000_000n);
      const reuse = await inject('POST', `/api/seller/orders/${o2.orderId}/refund`, {
        cookie,
        body: { exception: 'extra_payment', signature: sig },
      });
      expect(reuse.statusCode).toBe(409);
      expect(reuse.json()).toMatchObject({ error: 'refund_already_recorded' });
      // A transfer made before the order was paid is not its refund.
      const early = await send(connection, claimTransfer(vendor, buyer.publicKey, 1_000n), [vendor]);
      const o3 = await paidOrder(buyer, 2_000_000n);
      const tooEarly = await inject('POST', `/api/seller/orders/${o3.orderId}/refund`, {
        cookie,
        body: { exception: 'extra_payment', signature: early },
      });
      expect(tooEarly.statusCode).toBe(400);
      expect(tooEarly.json()).toMatchObject({ error: 'refund_before_payment' });
    });

    it('partial refunds add up: the exception stays open until what is owed is back; more than was received is refused in words; the buyer is e-mailed each refund with its amount and transaction', async () => {
      const buyer = Keypair.generate();
      await faucet(net, buyer.publicKey, 2, 10_000);
      const o = await paidOrder(buyer, 5_000_000n); // 5 $CLAIM extra: owed back
      const cookie = await signIn(vendor);
      const refund = (orderId: string, signature: string) =>
        inject('POST', `/api/seller/orders/${orderId}/refund`, {
          cookie,
          body: { exception: 'extra_payment', signature },
        });
      const first = await send(connection, claimTransfer(vendor, buyer.publicKey, 2_000_000n), [vendor]);
      let r = await refund(o.orderId, first);
      expect(r.statusCode, r.body).toBe(200);
      let d = r.json<SellerOrderDetail>();
      expect(d.resolved).toEqual([]); // 3 $CLAIM still owed
      expect(d.actions.map((a) => a.action)).toEqual(['refund']);
      const second = await send(connection, claimTransfer(vendor, buyer.publicKey, 3_000_000n), [vendor]);
      r = await refund(o.orderId, second);
      expect(r.statusCode, r.body).toBe(200);
      d = r.json<SellerOrderDetail>();
      expect(d.resolved).toEqual(['extra_payment']);
      expect(d.actions.map((a) => a.action)).toEqual(['refund', 'refunded']);
      // The detail: who paid (read from the ledger's transactions), what was owed and what went back.
      expect(d.payersKnown).toBe(true);
      expect(d.payers).toEqual([
        {
          owner: buyer.publicKey.toBase58(),
          tokenAccount: getAssociatedTokenAddressSync(mint, buyer.publicKey).toBase58(),
          explorerUrl: expect.stringContaining(`/address/${buyer.publicKey.toBase58()}`),
          paidBaseUnits: d.receivedBaseUnits,
          payments: d.payments.map((p) => p.signature),
          // Everything owed to the buyer is back.
          owedBaseUnits: '0',
          refundLimits: { extra_payment: '0' },
        },
      ]);
      expect(d.owed).toMatchObject({
        owedBaseUnits: '5000000',
        refundedBaseUnits: '5000000',
        remainingBaseUnits: '0',
      });
      expect(d.refunds.map((x) => [x.signature, x.amountBaseUnits, x.exception])).toEqual([
        [first, '2000000', 'extra_payment'],
        [second, '3000000', 'extra_payment'],
      ]);
      expect(d.refunds[0]!.transactionUrl).toContain(`/tx/${first}`);
      // The buyer's order page lists both refunds (amount, transaction, time); of the buyer, only the details as
      // typed for the token's holder (issue 33), the e-mail masked.
      const page = await inject('GET', `/api/order-pages/${o.orderUrl.split('/order/')[1]}`);
      expect(page.statusCode, page.body).toBe(200);
      expect(page.json<OrderPageView>().refunds).toEqual([
        { signature: first, amountBaseUnits: '2000000', at: expect.any(String) },
        { signature: second, amountBaseUnits: '3000000', at: expect.any(String) },
      ]);
      expect(page.json<OrderPageView>().details?.fullName).toBe(intlShipping.fullName);
      expect(page.body).not.toContain(intlShipping.email);

      // The buyer hears of each refund: the amount and the transaction's link.
      expect(d.emails.filter((e) => e.kind === 'refund_sent').map((e) => e.recipient)).toEqual([
        'buyer',
        'buyer',
      ]);
      for (let i = 0; i < 5; i++) await server.outbox.runOnce();
      const number = o.orderId.slice(0, 8).toUpperCase();
      const told = transport.sent.filter((m) => m.kind === 'refund_sent' && m.payload.orderNumber === number);
      expect(told.every((m) => m.to === intlShipping.email)).toBe(true);
      expect(told.map((m) => m.payload.refundCLAIM).sort()).toEqual(['2.000000', '3.000000']);
      const text = renderEmail(told.find((m) => m.payload.refundCLAIM === '2.000000')!).text;
      expect(text).toContain('Refund ($CLAIM): 2.000000');
      expect(text).toContain(first);

      // More than is owed to that wallet (here: its 2 $CLAIM extra) is refused, and nothing is recorded.
      const o2 = await paidOrder(buyer, 2_000_000n);
      const received = BigInt(
        (await inject('GET', `/api/seller/orders/${o2.orderId}`, { cookie })).json<SellerOrderDetail>()
          .receivedBaseUnits,
      );
      const tooMuch = await send(connection, claimTransfer(vendor, buyer.publicKey, received + 1n), [vendor]);
      const refused = await refund(o2.orderId, tooMuch);
      expect(refused.statusCode, refused.body).toBe(409);
      expect(refused.json()).toMatchObject({ error: 'refund_too_much', field: 'signature' });
      expect(refused.json<{ message: string }>().message).toMatch(
        /more than the 2\.000000 \$CLAIM this order owes that wallet now/,
      );
      const after = (
        await inject('GET', `/api/seller/orders/${o2.orderId}`, { cookie })
      ).json<SellerOrderDetail>();
      expect(after.actions).toEqual([]);
    });
  });
});
