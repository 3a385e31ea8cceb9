/**
 * Payment signature → order `paid` latency: `npm run bench:payments [-- --n 30 --slot-ms 400 --hint]`.
 *
 * In one process: the localnet (LiteSVM behind JSON-RPC + WebSocket, `--slot-ms` per slot, default 400 like
 * mainnet) and the real server (startServer: SQLite file, order routes) with the payment watcher wired as the
 * composition root does (paymentsService). For each of `--n` payments (default 30): POST /api/quotes, POST
 * /api/orders, a wallet-style transferChecked with the order's reference sent to the localnet, then
 * GET /api/orders/:id every 25 ms until the status is paid. Latency = from the moment the node accepted the
 * transaction (signature known) to the first GET answering `paid`. With `--hint` the wallet page's
 * POST /api/orders/:id/payment is sent too (the wallet path); without it only the watcher finds it (QR path).
 * `--think-ms` waits between creating the order and paying (default 0: pay at once, the worst case for the
 * watcher, which learns of new orders by reloading them every 500 ms). Bar: p95 ≤ 5 s.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection, Keypair, PublicKey, Transaction } from '@solana/web3.js';
import { createTransferCheckedInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import type { OrderCreated, OrderPublic, QuoteResponse } from '../src/core/api';
import { startLocalnet } from '../test/support/localnet';
import { paymentsService } from '../src/server/payments/index';
import { startServer } from '../src/server/server';
import { loadSettings } from '../src/server/settings';
import { percentile } from './lib/load';

const args = process.argv.slice(2);
const num = (name: string, fallback: number): number => {
  const i = args.indexOf(`--${name}`);
  const v = i >= 0 ? Number(args[i + 1]) : fallback;
  if (!Number.isFinite(v) || v < 0) throw new Error(`--${name} must be a non-negative number`);
  return v;
};
const N = num('n', 30);
const SLOT_MS = num('slot-ms', 400);
const HINT = args.includes('--hint');
/** Time between order creation and payment (the buyer in the wallet). Default 0: pay at once (worst case). */
const THINK_MS = num('think-ms', 0);

async function json<T>(url: string, init?: RequestInit): Promise<T> {
  const res = await fetch(url, init);
  const text = await res.text();
  if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${url}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'claim-bench-payments-'));
  const net = await startLocalnet({ port: 0, slotMs: SLOT_MS });
  const keys = net.keys;
  if (!keys) throw new Error('localnet not seeded');
  const settings = loadSettings(
    {
      PORT: '0',
      LOCALNET_PORT: String(net.port),
      DATABASE_URL: join(dir, 'store.sqlite'),
      MAIL_DIR: join(dir, 'mail'),
    },
    {
      claimMint: keys.mint.toBase58(),
      recipients: {
        coopersglass: keys.recipients.coopersglass.toBase58(),
        gorilla: keys.recipients.gorilla.toBase58(),
      },
    },
  );
  const server = await startServer(settings, {
    priceSource: { current: () => ({ priceUsd: '1.00', fetchedAt: new Date() }) },
    startOutbox: false,
    // Wired as main.ts does.
    services: [paymentsService()],
  });
  // Every order reserves its unit of the (one of a kind) product: enough stock for the whole run.
  await server.stock.set({ productId: 'lilac-tiptop' }, 1_000_000, 'bench', new Date().toISOString());
  const connection = new Connection(net.rpcUrl, 'confirmed');
  const buyer = Keypair.generate();
  const fund = await fetch(`${net.rpcUrl}/faucet`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ address: buyer.publicKey.toBase58(), sol: 10, claim: 1_000_000 }),
  });
  if (!fund.ok) throw new Error(`faucet: ${fund.status}`);

  const latencies: number[] = [];
  const confirmLatencies: number[] = [];
  for (let i = 0; i < N; i++) {
    const quote = await json<QuoteResponse>(`${server.url}/api/quotes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ items: [{ productId: 'lilac-tiptop', quantity: 1 }] }),
    });
    const order = await json<OrderCreated>(`${server.url}/api/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify({
        quote: quote.quote,
        paymentMethod: 'wallet',
        shipping: {
          kind: 'international',
          fullName: 'Bench Buyer',
          email: 'bench@example.test',
          address1: '1 Bench Road',
          city: 'Benchville',
          stateProvince: 'BE',
          postalCode: '12345',
          country: 'Benchland',
        },
      }),
    });
    if (THINK_MS > 0) await new Promise((r) => setTimeout(r, THINK_MS));
    const mint = new PublicKey(order.mint);
    const ix = createTransferCheckedInstruction(
      getAssociatedTokenAddressSync(mint, buyer.publicKey),
      mint,
      getAssociatedTokenAddressSync(mint, new PublicKey(order.recipient), true),
      buyer.publicKey,
      BigInt(order.amountBaseUnits),
      6,
    );
    ix.keys.push({ pubkey: new PublicKey(order.reference), isSigner: false, isWritable: false });
    const latest = await connection.getLatestBlockhash('confirmed');
    const tx = new Transaction({ feePayer: buyer.publicKey, ...latest }).add(ix);
    tx.sign(buyer);
    const signature = await connection.sendRawTransaction(tx.serialize());
    const t0 = performance.now();
    const confirmed = (async () => {
      for (;;) {
        const s = (await connection.getSignatureStatuses([signature])).value[0];
        if (s?.confirmationStatus === 'confirmed' || s?.confirmationStatus === 'finalized')
          return confirmLatencies.push(performance.now() - t0);
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    if (HINT) {
      await json<OrderPublic>(`${server.url}/api/orders/${order.orderId}/payment`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ signature }),
      });
    }
    for (;;) {
      const status = await json<OrderPublic>(`${server.url}/api/orders/${order.orderId}`);
      if (status.status === 'paid' || status.status === 'final') break;
      if (performance.now() - t0 > 60_000)
        throw new Error(`order ${order.orderId} not paid after 60 s (status ${status.status})`);
      await new Promise((r) => setTimeout(r, 25));
    }
    latencies.push(performance.now() - t0);
    await confirmed;
  }

  const sorted = [...latencies].sort((a, b) => a - b);
  const conf = [...confirmLatencies].sort((a, b) => a - b);
  const ms = (v: number) => `${Math.round(v)} ms`;
  console.log(
    `payment signature → order paid, ${N} payments, slot ${SLOT_MS} ms, ${HINT ? 'with' : 'without'} the wallet hint, paid ${THINK_MS} ms after the order was created`,
  );
  console.log(
    `  p50 ${ms(percentile(sorted, 50))}  p95 ${ms(percentile(sorted, 95))}  max ${ms(sorted[sorted.length - 1] ?? NaN)}`,
  );
  console.log(
    `  (for scale: send → confirmed at the node p50 ${ms(percentile(conf, 50))}  p95 ${ms(percentile(conf, 95))})`,
  );
  console.log(`  bar p95 ≤ 5000 ms: ${percentile(sorted, 95) <= 5000 ? 'met' : 'NOT met'}`);

  await server.close();
  await net.close();
  rmSync(dir, { recursive: true, force: true });
}

await main();
