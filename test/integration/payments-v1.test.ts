/**
 * Issue 27 end to end: today's chain carries version 1 transactions and no transaction may stall payment
 * watching. The real server (startServer, SQLite file, the payment watcher as main.ts runs it with its default RPC
 * budget, e-mail over real SMTP on loopback) watches the localnet with the public endpoint's limits, through a
 * JSON-RPC stub that passes everything through except `getTransaction` for the signatures a test poisons. Buyers
 * and attackers build v1 transfers with @solana/kit 8.4 and name themselves to the localnet (`x-localnet-client`),
 * so only the server's own requests count against its address. Readiness and the dependency report's `rpc` and
 * `watcher` parts are polled throughout: neither may fail while the watcher works through v1 transactions.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import {
  Connection,
  Keypair,
  PublicKey,
  TransactionMessage,
  VersionedTransaction,
  type TransactionInstruction,
} from '@solana/web3.js';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderCreated, OrderPageView, OrderPublic, QuoteResponse } from '../../src/core/api';
import type { SellerOrderDetail, SellerOrderList } from '../../src/core/seller-api';
import { EXCEPTION_LABEL } from '../../src/core/seller-words';
import { unreadablePaymentNote } from '../../src/core/unreadable-payment';
import { demoRecipientKeypairs } from '../support/demo-keypairs';
import { startLocalnet, type Localnet } from '../support/localnet';
import { paymentsService } from '../../src/server/payments/index';
import { kyselyScanStore } from '../../src/server/payments/scan-store';
import type { WatcherEvent } from '../../src/server/payments/watcher';
import { startServer, type RunningServer } from '../../src/server/server';
import { loadSettings } from '../../src/server/settings';
import { startRpcStub, type RpcStub } from '../support/rpc-stub';
import { injector, signInSeller } from '../support/seller-session';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink';
import { restock } from '../support/stock';
import { buildV1 } from '../support/v1-tx';
import { usShipping } from './orders-support';
import { faucet, ownerTransferIxs, transferIx, waitFor } from './payments-support';

const QR_PRODUCT = 'honey-dew-papaya-live-rosin';
const SELLER = 'seller@shop.test';

describe('version 1 transactions on the localnet with the public limits', () => {
  let net: Localnet;
  let stub: RpcStub;
  let mail: SmtpSink;
  let server: RunningServer;
  let dir: string;
  const events: WatcherEvent[] = [];
  const buyer = Keypair.generate();
  const attacker = Keypair.generate();
  const vendors = demoRecipientKeypairs();
  /**
   * Every health sample since the server started (polled every 200 ms): 200 when readiness answered 200 and the
   * dependency report's `rpc` and `watcher` parts were not failing, else 503.
   */
  const readiness: number[] = [];
  /** The answers when a sample was not 200 (which part failed). */
  const notReady: string[] = [];
  let polling = true;
  let poller: Promise<void> | undefined;

  const client = (name: string) =>
    new Connection(net.rpcUrl, { commitment: 'confirmed', httpHeaders: { 'x-localnet-client': name } });
  const inject = injector(() => server);

  beforeAll(async () => {
    net = await startLocalnet({ port: 0, slotMs: 50, finalizeLag: 4, publicLimits: true });
    stub = await startRpcStub(net.rpcUrl);
    mail = await startSmtpSink();
    dir = mkdtempSync(join(tmpdir(), 'claim-v1-'));
    const keys = net.keys!;
    expect(keys.recipients.coopersglass.equals(vendors.coopersglass.publicKey)).toBe(true);
    expect(keys.recipients.gorilla.equals(vendors.gorilla.publicKey)).toBe(true);
    const settings = loadSettings(
      {
        PORT: '0',
        // The server's RPC is the stub (HTTP); its WebSocket is the localnet's own.
        LOCALNET_PORT: String(stub.port),
        SOLANA_WS_URL: net.wsUrl,
        DATABASE_URL: join(dir, 'store.sqlite'),
        MAIL_TRANSPORT: 'smtp',
        SMTP_URL: mail.url,
        SELLER_EMAIL: SELLER,
        HOLD_LIMIT_PER_CLIENT: '0',
      },
      {
        claimMint: keys.mint.toBase58(),
        recipients: {
          coopersglass: keys.recipients.coopersglass.toBase58(),
          gorilla: keys.recipients.gorilla.toBase58(),
        },
      },
    );
    server = await startServer(settings, {
      // A fresh price at every quote (a fixed one goes stale while the tests run).
      priceSource: { current: () => ({ priceUsd: '0.5', fetchedAt: new Date() }) },
      outbox: { baseDelayMs: 300, maxDelayMs: 2_000, pollMs: 200 },
      expireEveryMs: 1_000,
      // The watcher as main.ts composes it (default RPC budget), its safety sweep every 2 s instead of 15 s so
      // this file takes seconds: the sweep is what moves the cursors these tests check.
      services: [paymentsService({ onEvent: (e) => events.push(e), watcher: { sweepIntervalMs: 2_000 } })],
    });
    await restock(server, QR_PRODUCT, 100);
    await faucet(net, buyer.publicKey, 10, 100_000);
    await faucet(net, attacker.publicKey, 10, 1_000);
    for (const v of Object.values(vendors)) await faucet(net, v.publicKey, 2, 0);
    await waitFor('ready', async () =>
      (await fetch(`${server.url}/api/health/ready`)).status === 200 ? true : undefined,
    );
    poller = (async () => {
      while (polling) {
        const r = await fetch(`${server.url}/api/health/ready`);
        const deps = await (await fetch(`${server.url}/api/health/deps`)).text();
        const parts = (JSON.parse(deps) as { parts: Record<string, { status: string }> }).parts;
        const ok = r.status === 200 && parts.rpc?.status !== 'failing' && parts.watcher?.status !== 'failing';
        readiness.push(ok ? 200 : 503);
        if (!ok) notReady.push(`${r.status} ${await r.text()} ${deps}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
  }, 60_000);
  afterAll(async () => {
    polling = false;
    await poller;
    await server?.close();
    await stub?.close();
    await mail?.close();
    await net?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function qrOrder(quantity = 1): Promise<OrderCreated> {
    const q = await inject('POST', '/api/quotes', { body: { items: [{ productId: QR_PRODUCT, quantity }] } });
    expect(q.statusCode, q.body).toBe(200);
    const r = await server.app.inject({
      method: 'POST',
      url: '/api/orders',
      payload: { quote: q.json<QuoteResponse>().quote, shipping: usShipping, paymentMethod: 'qr' },
      headers: { 'idempotency-key': `v1-${Math.random().toString(36).slice(2)}` },
    });
    expect(r.statusCode, r.body).toBe(201);
    const o = r.json<OrderCreated>();
    expect(o.amountBaseUnits).not.toBeNull();
    return o;
  }
  const statusOf = async (orderId: string) =>
    (await inject('GET', `/api/orders/${orderId}`)).json<OrderPublic>().status;
  const paid = async (orderId: string) =>
    ['paid', 'final'].includes(await statusOf(orderId)) ? true : undefined;
  const pageOf = async (o: OrderCreated) =>
    (
      await inject('GET', `/api/order-pages/${o.orderUrl.slice(o.orderUrl.lastIndexOf('/') + 1)}`)
    ).json<OrderPageView>();
  const vendorOf = (o: OrderCreated) =>
    Object.values(vendors).find((k) => k.publicKey.toBase58() === o.recipient)!;
  const payIx = (o: OrderCreated, from = buyer, amount = BigInt(o.amountBaseUnits)) =>
    transferIx({
      from,
      recipientOwner: new PublicKey(o.recipient),
      mint: new PublicKey(o.mint),
      amount,
      references: [new PublicKey(o.reference)],
    });

  /** Sends a kit-built v1 transaction as `who`; returns its signature once confirmed. */
  async function sendV1(
    who: string,
    payer: Keypair,
    ixs: TransactionInstruction[],
    before?: (signature: string) => void,
  ): Promise<string> {
    const c = client(who);
    const tx = await buildV1(payer, ixs, await c.getLatestBlockhash('confirmed'));
    const signature = bs58.encode(VersionedTransaction.deserialize(tx.bytes).signatures[0]!);
    before?.(signature);
    expect(await c.sendRawTransaction(tx.bytes)).toBe(signature);
    await confirmed(c, [signature]);
    return signature;
  }
  /** A v0 transaction (web3.js) as `who`. */
  async function sendV0(who: string, payer: Keypair, ixs: TransactionInstruction[]): Promise<string> {
    const c = client(who);
    const latest = await c.getLatestBlockhash('confirmed');
    const message = new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: latest.blockhash,
      instructions: ixs,
    }).compileToV0Message();
    const tx = new VersionedTransaction(message);
    tx.sign([payer]);
    const signature = await c.sendRawTransaction(tx.serialize());
    await confirmed(c, [signature]);
    return signature;
  }
  async function confirmed(c: Connection, signatures: string[]): Promise<void> {
    await waitFor(
      'confirmed',
      async () => {
        const st = await c.getSignatureStatuses(signatures, { searchTransactionHistory: true });
        return st.value.every(
          (s) => s?.confirmationStatus === 'confirmed' || s?.confirmationStatus === 'finalized',
        )
          ? true
          : undefined;
      },
      30_000,
      200,
    );
  }

  const scan = () => kyselyScanStore(server.store.db);
  const tokenAccountOf = (o: OrderCreated) =>
    getAssociatedTokenAddressSync(new PublicKey(o.mint), new PublicKey(o.recipient), true).toBase58();
  /** The cursor of the vendor's token account has passed every one of `signatures`, each judged. */
  async function cursorPassed(o: OrderCreated, signatures: string[]): Promise<true | undefined> {
    const judged = await scan().judged(signatures);
    if (judged.size !== signatures.length) return undefined;
    const slots = await slotsOf(signatures);
    const cursor = await scan().cursor(tokenAccountOf(o));
    return cursor && cursor.slot >= Math.max(...slots) ? true : undefined;
  }
  /** Their slots (asked once each: the test's own reads must stay within the public limits too). */
  const slots = new Map<string, number>();
  async function slotsOf(signatures: string[]): Promise<number[]> {
    const missing = signatures.filter((s) => !slots.has(s));
    for (let i = 0; i < missing.length; i += 256) {
      const part = missing.slice(i, i + 256);
      const st = await client('status').getSignatureStatuses(part, { searchTransactionHistory: true });
      st.value.forEach((v, j) => v && slots.set(part[j]!, v.slot));
    }
    return signatures.map((s) => slots.get(s) ?? Infinity);
  }

  it('a v1 transfer carrying the order reference pays a QR order: paid, e-mails sent', async () => {
    const o = await qrOrder();
    const mailBefore = mail.messages().length;
    const signature = await sendV1('buyer', buyer, [payIx(o)]);
    await waitFor('paid', () => paid(o.orderId), 20_000);
    const page = await pageOf(o);
    expect(page.payments?.map((p) => p.signature)).toEqual([signature]);
    const mails = await waitFor(
      'the paid e-mails',
      () => {
        const mine = mail
          .messages()
          .slice(mailBefore)
          .filter((m) => m.headers.get('x-claim-order') === o.orderId);
        const to = mine.map((m) => (Array.isArray(m.to) ? m.to[0] : m.to)?.text ?? '');
        return to.some((t) => t.includes(usShipping.email)) && to.some((t) => t.includes(SELLER))
          ? mine
          : undefined;
      },
      20_000,
    );
    expect(mails.length).toBeGreaterThanOrEqual(2);
    expect(events.some((e) => e.type === 'recorded' && e.orderId === o.orderId)).toBe(true);
  }, 60_000);

  it('a v1 dust transfer, then a v0 payment: both judged, the cursor passes both, readiness 200 and rpc/watcher not failing throughout', async () => {
    const o = await qrOrder();
    const from = readiness.length;
    const dust = await sendV1('attacker', attacker, [stripRefs(payIx(o, attacker, 1n))]);
    const payment = await sendV0('buyer', buyer, [payIx(o)]);
    await waitFor('both judged, the cursor past them', () => cursorPassed(o, [dust, payment]), 30_000, 200);
    await waitFor('paid', () => paid(o.orderId), 10_000);
    expect((await scan().setAsideAmong([dust, payment])).size).toBe(0);
    expect(readiness.length).toBeGreaterThan(from);
    expect(readiness.filter((s) => s !== 200)).toEqual([]);
  }, 60_000);

  it('50 v1 dust transfers in a burst, then a v0 payment: all judged, the cursor passes them, readiness 200 and rpc/watcher not failing throughout', async () => {
    const o = await qrOrder();
    const from = readiness.length;
    const t0 = Date.now();
    const dust = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const c = client(`dust-${i % 5}`);
        const tx = await buildV1(
          attacker,
          [stripRefs(payIx(o, attacker, BigInt(i + 1)))],
          await c.getLatestBlockhash('confirmed'),
        );
        return c.sendRawTransaction(tx.bytes, { skipPreflight: true });
      }),
    );
    await confirmed(client('dust-status'), dust);
    const payment = await sendV0('buyer', buyer, [payIx(o)]);
    await waitFor('all judged, the cursor past them', () => cursorPassed(o, [...dust, payment]), 90_000, 250);
    console.info(`50 v1 dust transfers and a v0 payment judged in ${Date.now() - t0} ms`);
    await waitFor('paid', () => paid(o.orderId), 10_000);
    expect((await scan().setAsideAmong(dust)).size).toBe(0);
    expect(
      readiness.slice(from).filter((s) => s !== 200),
      notReady.join('\n'),
    ).toEqual([]);
  }, 120_000);

  it('a transaction the server cannot read (-32015, garbage) is set aside after its retries; the cursor passes; the order says so', async () => {
    const from = readiness.length;
    const cases = [
      { how: 'unsupported_version' as const, order: await qrOrder() },
      { how: 'garbage' as const, order: await qrOrder() },
    ];
    // The buyer's order page is open: it polls with its page token, which makes the order awaited.
    let open = true;
    const pages = (async () => {
      while (open) {
        for (const c of cases) await pageOf(c.order);
        await new Promise((r) => setTimeout(r, 500));
      }
    })();
    const cookie = await signInSeller(inject, vendorOf(cases[0]!.order));
    const signatures: string[] = [];
    try {
      for (const c of cases) {
        signatures.push(
          await sendV1('buyer', buyer, [payIx(c.order)], (signature) => stub.poison(signature, c.how)),
        );
      }
      await waitFor('set aside', async () =>
        (await scan().setAsideAmong(signatures)).size === 2 ? true : undefined,
      );
      expect(await scan().setAsideAmong(signatures)).toEqual(
        new Map([
          [signatures[0], 'unsupported_version'],
          [signatures[1], 'malformed'],
        ]),
      );
      await waitFor('the cursor past them', () => cursorPassed(cases[0]!.order, signatures), 30_000, 200);
    } finally {
      open = false;
      await pages;
    }
    for (const [i, c] of cases.entries()) {
      const signature = signatures[i]!;
      // Read a bounded number of times (4), then never again.
      expect(stub.attempts(signature)).toBeGreaterThanOrEqual(4);
      const attempts = stub.attempts(signature);
      expect(await statusOf(c.order.orderId)).toBe('awaiting_payment');
      // The buyer's page: the plain-words note, naming the transaction.
      const page = await pageOf(c.order);
      expect(page.unreadablePayments?.map((u) => u.signature)).toEqual([signature]);
      expect(unreadablePaymentNote([signature])).toContain('it is not lost');
      // The seller's Exceptions list and the order's detail.
      const list = (
        await inject('GET', '/api/seller/orders?queue=exceptions', { cookie })
      ).json<SellerOrderList>();
      const row = list.orders.find((r) => r.orderId === c.order.orderId);
      expect(row?.exceptions).toContain('unreadable_payment');
      const detail = (
        await inject('GET', `/api/seller/orders/${c.order.orderId}`, { cookie })
      ).json<SellerOrderDetail>();
      expect(detail.exceptions).toContain('unreadable_payment');
      expect(detail.unreadablePayments.map((u) => [u.signature, u.reason])).toEqual([
        [signature, c.how === 'garbage' ? 'malformed' : 'unsupported_version'],
      ]);
      expect(EXCEPTION_LABEL.unreadable_payment).toBe('A payment the store could not read: check it by hand');
      await new Promise((r) => setTimeout(r, 1_000));
      expect(stub.attempts(signature)).toBe(attempts);
    }
    const deps = (await (await fetch(`${server.url}/api/health/deps`)).json()) as {
      parts: { watcher: { status: string; detail: string; unreadable: { count: number } } };
    };
    // Set aside within the last day: the watcher part says so (degraded: the seller checks them by hand).
    expect(deps.parts.watcher).toMatchObject({ status: 'degraded', unreadable: { count: 2 } });
    expect(deps.parts.watcher.detail).toContain('2 transactions could not be read');
    expect(
      readiness.slice(from).filter((s) => s !== 200),
      notReady.join('\n'),
    ).toEqual([]);
  }, 90_000);

  it('a refund sent as v1 is recorded', async () => {
    const o = await qrOrder();
    const extra = 300_000_000n; // 300 $CLAIM beyond the order: owed back to the buyer
    await sendV1('buyer', buyer, [payIx(o)]);
    await waitFor('paid', () => paid(o.orderId), 20_000);
    await sendV1('buyer', buyer, [payIx(o, buyer, extra)]);
    const vendor = vendorOf(o);
    const cookie = await signInSeller(inject, vendor);
    const detail = async () =>
      (await inject('GET', `/api/seller/orders/${o.orderId}`, { cookie })).json<SellerOrderDetail>();
    await waitFor('the extra payment', async () =>
      (await detail()).exceptions.includes('extra_payment') ? true : undefined,
    );
    const refund = await sendV1(
      'vendor',
      vendor,
      ownerTransferIxs(net.keys!.mint, vendor, buyer.publicKey, extra),
    );
    const r = await inject('POST', `/api/seller/orders/${o.orderId}/refund`, {
      cookie,
      body: { exception: 'extra_payment', signature: refund },
    });
    expect(r.statusCode, r.body).toBe(200);
    const d = r.json<SellerOrderDetail>();
    expect(d.resolved).toEqual(['extra_payment']);
    expect(d.actions).toContainEqual(
      expect.objectContaining({
        action: 'refunded',
        detail: { exception: 'extra_payment', signature: refund, amountBaseUnits: extra.toString() },
      }),
    );
  }, 60_000);
});

/** The same transfer without the order's reference: dust from someone, naming no order. */
function stripRefs(ix: TransactionInstruction): TransactionInstruction {
  return { ...ix, keys: ix.keys.slice(0, 4) } as TransactionInstruction;
}
