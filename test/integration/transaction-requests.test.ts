/**
 * Solana Pay transaction requests end to end (issue 34), against the real server behind HTTPS: a TLS front on
 * loopback with a certificate made for this run (openssl), the way production sits behind its TLS proxy, PUBLIC_URL
 * its https:// address. The wallet is @solana/pay's own client in a child process that trusts the certificate
 * through NODE_EXTRA_CA_CERTS (test/support/solana-pay-wallet.ts); the chain is the localnet (real SPL Token and
 * associated-token programs), the watcher and the mail are the production ones (SQLite, SMTP on loopback).
 */
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { Keypair, PublicKey, VersionedTransaction } from '@solana/web3.js';
import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseURL } from 'solana-pay-client';
import type { OrderCreated, OrderPublic } from '../../src/core/api';
import { startStack, type Stack } from '../support/stack';
import { startTlsFront, type TlsFront } from '../support/tls-front';
import { restock } from '../support/stock';

const ROOT = resolve(import.meta.dirname, '../..');
const EAGLES = 'eagles-xl-joystick-cropal-stick'; // Coopers Glass, QR
const HONEY = 'honey-dew-papaya-live-rosin'; // Gorilla Pack Genetics, QR; its vendor starts without a token account
const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const ATA_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
const PAY_LIMIT = 60;

let front: TlsFront;
let stack: Stack;
let offsetMs = 0;
let publicUrl = '';

beforeAll(async () => {
  front = await startTlsFront();
  publicUrl = front.url;
  stack = await startStack({
    withoutTokenAccount: ['gorilla'],
    env: { PUBLIC_URL: publicUrl, RATE_LIMIT_ORDERS_PER_MINUTE: String(PAY_LIMIT) },
    server: {
      now: () => new Date(Date.now() + offsetMs),
      priceSource: { current: () => ({ priceUsd: '0.5', fetchedAt: new Date(Date.now() + offsetMs) }) },
    },
  });
  front.target = stack.url;
  // Each glass piece is one of a kind: enough for the records below (a QR record holds none; payments sell).
  await restock(stack.server, EAGLES, 50);
}, 120_000);

afterAll(async () => {
  await stack?.close();
  await front?.close();
});

async function qrRecord(productId: string): Promise<OrderCreated> {
  const q = await stack.server.app.inject({
    method: 'POST',
    url: '/api/quotes',
    payload: { items: [{ productId, quantity: 1 }] },
  });
  expect(q.statusCode, q.body).toBe(200);
  const o = await stack.server.app.inject({
    method: 'POST',
    url: '/api/orders',
    headers: { 'idempotency-key': `txreq-${Math.random()}` },
    payload: { quote: q.json<{ quote: string }>().quote, paymentMethod: 'qr' },
  });
  expect(o.statusCode, o.body).toBe(201);
  return o.json<OrderCreated>();
}

interface WalletRun {
  link?: string;
  get?: { status: number; cors: string | null; body: { label?: string; icon?: string } };
  icon?: { status: number; type: string | null; bytes: number };
  signers?: string[];
  programs?: string[];
  signature?: string;
  err?: unknown;
  validated?: true | string;
  error?: string;
}

/** @solana/pay's client, as a wallet, in a child process trusting the test certificate. */
function wallet(args: {
  qr: string;
  buyer: Keypair;
  lowerTo?: bigint;
  order: OrderCreated;
}): Promise<WalletRun> {
  const input = {
    qr: args.qr,
    rpcUrl: stack.localnet.rpcUrl,
    secretKey: Buffer.from(args.buyer.secretKey).toString('base64'),
    ...(args.lowerTo !== undefined ? { lowerTo: String(args.lowerTo) } : {}),
    validate: {
      recipient: args.order.recipient,
      amount: Number(args.order.amount),
      splToken: args.order.mint,
      reference: args.order.reference,
    },
  };
  return new Promise((ok, fail) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'test/support/solana-pay-wallet.ts'), JSON.stringify(input)],
      { cwd: ROOT, env: { ...process.env, NODE_EXTRA_CA_CERTS: front.certFile }, timeout: 90_000 },
      (err, stdout, stderr) => {
        const line = stdout.trim().split('\n').pop() ?? '';
        try {
          ok(JSON.parse(line) as WalletRun);
        } catch {
          fail(new Error(`wallet: ${err?.message ?? ''} ${stderr}`));
        }
      },
    );
  });
}

async function orderOf(id: string): Promise<OrderPublic> {
  return (await stack.server.app.inject({ method: 'GET', url: `/api/orders/${id}` })).json<OrderPublic>();
}

async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 120_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const post = (token: string, body: unknown) =>
  stack.server.app.inject({ method: 'POST', url: `/api/pay/${token}`, payload: body as object });
const tokenOf = (o: OrderCreated) => (o.transactionRequestUrl ?? '').split('/').pop() ?? '';

// Watchdogs, not measurements: each case spawns a wallet process and waits for the watcher (seconds when quiet).
describe(
  'Solana Pay transaction requests over HTTPS, with @solana/pay as the wallet',
  { timeout: 180_000 },
  () => {
    it('a QR record carries the transaction request; GET, POST, sign, confirm: paid, and validateTransfer accepts it', async () => {
      const order = await qrRecord(EAGLES);
      expect(order.transactionRequestUrl).toMatch(
        new RegExp(`^solana:${publicUrl}/api/pay/[1-9A-HJ-NP-Za-km-z]+\\.[\\w-]{22}$`),
      );
      expect(order.solanaPayUrl).toMatch(/^solana:[1-9A-HJ-NP-Za-km-z]+\?amount=/); // the fallback, unchanged
      expect(parseURL(order.transactionRequestUrl ?? '')).toEqual({
        link: new URL(order.transactionRequestUrl!.slice(7)),
      });
      // The QR drawing accepts the shop's own transaction request (and still refuses anyone else's).
      const drawn = await stack.server.app.inject({
        method: 'GET',
        url: `/api/qr.svg?data=${encodeURIComponent(order.transactionRequestUrl!)}`,
      });
      expect(drawn.statusCode, drawn.body).toBe(200);
      const foreign = order.transactionRequestUrl!.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
      expect(
        (
          await stack.server.app.inject({
            method: 'GET',
            url: `/api/qr.svg?data=${encodeURIComponent(foreign)}`,
          })
        ).statusCode,
      ).toBe(400);

      const buyer = Keypair.generate();
      await stack.fund(buyer.publicKey.toBase58(), { sol: 1, claim: 1_000 });
      const run = await wallet({ qr: order.transactionRequestUrl!, buyer, order });
      expect(run.error).toBeUndefined();
      expect(run.link).toBe(order.transactionRequestUrl!.slice('solana:'.length));
      expect(run.get).toEqual({
        status: 200,
        cors: '*',
        body: { label: 'Coopers Glass', icon: `${publicUrl}/api/pay/icon.svg` },
      });
      expect(run.icon).toMatchObject({ status: 200, type: 'image/svg+xml' });
      expect(run.signers).toEqual([buyer.publicKey.toBase58()]); // the buyer alone signs: the server holds no key
      expect(run.programs).toEqual([
        'ComputeBudget111111111111111111111111111111',
        'ComputeBudget111111111111111111111111111111',
        TOKEN_PROGRAM,
      ]);
      expect(run.err).toBeNull();
      expect(run.validated).toBe(true);
      const paid = await until('the order to be paid', async () => {
        const o = await orderOf(order.orderId);
        return o.status === 'paid' ? o : undefined;
      });
      expect(paid.signature).toBe(run.signature);
      // Paid: a second scan is refused in words.
      const again = await post(tokenOf(order), { account: buyer.publicKey.toBase58() });
      expect(again.statusCode).toBe(409);
      expect(again.json()).toMatchObject({ error: 'order_already_paid' });
      expect(again.headers['access-control-allow-origin']).toBe('*');
    });

    it('a vendor without a token account is payable by QR: the account is created in the same transaction', async () => {
      const owner = new PublicKey(stack.settings.recipients.gorilla!);
      const ata = getAssociatedTokenAddressSync(new PublicKey(stack.settings.claimMint), owner);
      const { Connection } = await import('@solana/web3.js');
      const connection = new Connection(stack.localnet.rpcUrl, 'confirmed');
      expect(await connection.getAccountInfo(ata)).toBeNull();
      const order = await qrRecord(HONEY); // over HTTPS its quote is not refused
      const buyer = Keypair.generate();
      await stack.fund(buyer.publicKey.toBase58(), { sol: 1, claim: 1_000 });
      const run = await wallet({ qr: order.transactionRequestUrl!, buyer, order });
      expect(run.error).toBeUndefined();
      expect(run.get?.body.label).toBe('Gorilla Pack Genetics');
      expect(run.programs).toEqual([
        'ComputeBudget111111111111111111111111111111',
        'ComputeBudget111111111111111111111111111111',
        ATA_PROGRAM,
        TOKEN_PROGRAM,
      ]);
      expect(run.err).toBeNull();
      // @solana/pay 1.0.16's validateTransfer needs the recipient account's balance before the transaction, which an
      // account created in it has not (the node lists no pre-balance for it): its own checker cannot accept this
      // payment. The store's watcher judges the vendor's balance change (none before = 0) and records it paid.
      expect(run.validated).toBe('missing balance data');
      let seen: OrderPublic | undefined;
      await until(`the order to be paid (${run.signature ?? ''})`, async () => {
        seen = await orderOf(order.orderId);
        return seen.status === 'paid' ? true : undefined;
      }).catch((err: unknown) => {
        throw new Error(`${String(err)}; last seen ${JSON.stringify(seen)}`);
      });
      expect(await connection.getAccountInfo(ata)).not.toBeNull();
    });

    it('refuses in words: unknown token 404, malformed account 400; CORS on these routes only', async () => {
      const order = await qrRecord(EAGLES);
      const token = tokenOf(order);
      const ref = token.split('.')[0]!;
      for (const bad of [
        'nope',
        `${ref}.AAAAAAAAAAAAAAAAAAAAAA`,
        `${Keypair.generate().publicKey.toBase58()}.AAAAAAAAAAAAAAAAAAAAAA`,
      ]) {
        const get = await stack.server.app.inject({ method: 'GET', url: `/api/pay/${bad}` });
        expect(get.statusCode).toBe(404);
        expect(get.json()).toMatchObject({ error: 'payment_request_not_found' });
        expect((await post(bad, { account: Keypair.generate().publicKey.toBase58() })).statusCode).toBe(404);
      }
      for (const body of [{}, { account: 'not-a-wallet' }, { account: 42 }, { account: order.recipient }]) {
        const r = await post(token, body);
        expect(r.statusCode, JSON.stringify(body)).toBe(400);
        expect(r.json()).toMatchObject({ error: 'invalid_account', field: 'account' });
        expect(r.headers['access-control-allow-origin']).toBe('*');
      }
      const preflight = await stack.server.app.inject({ method: 'OPTIONS', url: `/api/pay/${token}` });
      expect(preflight.statusCode).toBe(204);
      expect(preflight.headers['access-control-allow-methods']).toContain('POST');
      const get = await stack.server.app.inject({ method: 'GET', url: `/api/pay/${token}` });
      expect(get.headers['cache-control']).toBe('no-store');
      // The snapshot is refreshed in the background by a request that finds it stale: the first answer after a
      // quiet spell may carry the zero blockhash, a later one the shared recent blockhash.
      let ok = await post(token, { account: Keypair.generate().publicKey.toBase58() });
      for (let i = 0; i < 50 && ok.statusCode === 200; i += 1) {
        const hash = VersionedTransaction.deserialize(
          Buffer.from(ok.json<{ transaction: string }>().transaction, 'base64'),
        ).message.recentBlockhash;
        if (hash !== '11111111111111111111111111111111') break;
        await new Promise((r) => setTimeout(r, 200));
        ok = await post(token, { account: Keypair.generate().publicKey.toBase58() });
      }
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toMatchObject({
        message: expect.stringMatching(/^Pay Coopers Glass \d+\.\d{6} \$CLAIM for order [0-9A-F]{8}\.$/),
      });
      // The shared recent blockhash (refreshed in the background since the first request), not the zero value.
      const built = VersionedTransaction.deserialize(
        Buffer.from(ok.json<{ transaction: string }>().transaction, 'base64'),
      );
      expect(built.message.recentBlockhash).not.toBe('11111111111111111111111111111111');
      expect(built.signatures).toHaveLength(1);
      expect(built.signatures[0]!.every((b) => b === 0)).toBe(true);
      // Other routes do not answer cross-origin.
      const other = await stack.server.app.inject({ method: 'GET', url: `/api/orders/${order.orderId}` });
      expect(other.headers['access-control-allow-origin']).toBeUndefined();
    });

    it('a wallet that lowers the amount is judged underpaid; a scan after the time runs out is 410', async () => {
      const order = await qrRecord(EAGLES);
      const buyer = Keypair.generate();
      await stack.fund(buyer.publicKey.toBase58(), { sol: 1, claim: 1_000 });
      const lowered = BigInt(order.amountBaseUnits) - 1_000n;
      const run = await wallet({ qr: order.transactionRequestUrl!, buyer, order, lowerTo: lowered });
      expect(run.err).toBeNull();
      expect(run.validated).toBe('amount not transferred');
      await until('the short payment to be recorded', async () => {
        const o = await orderOf(order.orderId);
        return o.status === 'awaiting_payment' && o.receivedBaseUnits === String(lowered) ? o : undefined;
      });
      // A second scan in the window asks for what is still owed.
      const rest = await post(tokenOf(order), { account: buyer.publicKey.toBase58() });
      expect(rest.json<{ message: string }>().message).toMatch(/ 0\.001000 \$CLAIM /);
      // The window closes: underpaid, and a scan now is 410 (it never becomes a late payment).
      offsetMs = 16 * 60_000;
      const closed = await until('the order to be underpaid', async () => {
        const o = await orderOf(order.orderId);
        return o.status === 'underpaid' ? o : undefined;
      });
      expect(closed.receivedBaseUnits).toBe(String(lowered));
      const late = await post(tokenOf(order), { account: buyer.publicKey.toBase58() });
      expect(late.statusCode).toBe(410);
      expect(late.json()).toMatchObject({ error: 'quote_expired' });
    });

    it('POST is limited per client like the other costly routes (429 in words, still CORS)', async () => {
      const order = await qrRecord(EAGLES);
      let last = 0;
      let limited: { headers: Record<string, unknown>; body: string } | undefined;
      for (let i = 0; i < PAY_LIMIT + 2 && !limited; i += 1) {
        const r = await post(tokenOf(order), { account: Keypair.generate().publicKey.toBase58() });
        last = r.statusCode;
        if (r.statusCode === 429) limited = r;
      }
      expect(last).toBe(429);
      expect(limited?.headers['access-control-allow-origin']).toBe('*');
      expect(limited?.body).toContain('Too many requests');
    });
  },
);
