/**
 * Purchase → verified `order.paid` at the vendor's receiver: `npm run bench:webhooks [-- --n 20 --slot-ms 400]`.
 *
 * In one process: the localnet (`--slot-ms` per slot, default 400 like mainnet), the real server (SQLite file,
 * payment watcher as main.ts runs it, webhook sender) and a real HTTPS receiver on loopback (test certificate
 * made now, trusted through the sender's explicit test-only CA) that verifies each delivery with
 * `standardwebhooks`. For each of `--n` wallet purchases (default 20): quote, order, a transferChecked with the
 * order's reference, the wallet page's payment hint; latency = from the node accepting the transaction to the
 * receiver holding a verified `order.paid` for that order. Bar (issue 35): p95 ≤ 2 s.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection, Keypair, PublicKey, Transaction } from '@solana/web3.js';
import { createTransferCheckedInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import type { OrderCreated, QuoteResponse } from '../src/core/api';
import { startLocalnet } from '../test/support/localnet';
import { paymentsService } from '../src/server/payments/index';
import { createSealer } from '../src/server/privacy/seal';
import { startServer } from '../src/server/server';
import { loadSettings } from '../src/server/settings';
import { createEndpoint } from '../src/server/webhooks/endpoints';
import { startReceiver } from '../test/support/webhook-receiver';
import { testResolver } from '../test/support/webhook-resolver';
import { percentile } from './lib/load';

const args = process.argv.slice(2);
const num = (name: string, fallback: number): number => {
  const i = args.indexOf(`--${name}`);
  const v = i >= 0 ? Number(args[i + 1]) : fallback;
  if (!Number.isFinite(v) || v < 0) throw new Error(`--${name} must be a non-negative number`);
  return v;
};
const N = num('n', 20);
const SLOT_MS = num('slot-ms', 400);

async function json<T>(url: string, init?: RequestInit): Promise<T> {
  const res = await fetch(url, init);
  const text = await res.text();
  if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${url}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'claim-bench-webhooks-'));
  const net = await startLocalnet({ port: 0, slotMs: SLOT_MS });
  const keys = net.keys;
  if (!keys) throw new Error('localnet not seeded');
  const receiver = await startReceiver();
  const settings = loadSettings(
    {
      PORT: '0',
      LOCALNET_PORT: String(net.port),
      DATABASE_URL: join(dir, 'store.sqlite'),
      MAIL_DIR: join(dir, 'mail'),
      WEBHOOKS_ALLOW_PRIVATE: '1',
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
    services: [paymentsService()],
    webhooks: { resolve: testResolver(), extraCa: [receiver.ca] },
  });
  const { secret } = await createEndpoint(
    {
      db: server.store.db,
      sealer: createSealer(settings.privacy.dataKeys),
      policy: { allowPrivate: true, resolve: testResolver() },
      now: () => new Date(),
    },
    ['coopersglass'],
    { url: `${receiver.origin}/bench`, events: ['order.paid'] },
  );
  receiver.secrets('/bench', secret);
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
    await fetch(`${server.url}/api/orders/${order.orderId}/payment`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ signature }),
    });
    for (;;) {
      const got = receiver
        .received('/bench')
        .find(
          (r) =>
            r.verified &&
            r.event?.type === 'order.paid' &&
            (r.event.data as { order?: { id?: string } }).order?.id === order.orderId,
        );
      if (got) break;
      if (performance.now() - t0 > 60_000) throw new Error(`no order.paid for ${order.orderId} after 60 s`);
      await new Promise((r) => setTimeout(r, 5));
    }
    latencies.push(performance.now() - t0);
  }

  const sorted = [...latencies].sort((a, b) => a - b);
  const ms = (v: number) => `${Math.round(v)} ms`;
  console.log(`purchase → verified order.paid at the receiver, ${N} wallet purchases, slot ${SLOT_MS} ms`);
  console.log(
    `  p50 ${ms(percentile(sorted, 50))}  p95 ${ms(percentile(sorted, 95))}  max ${ms(sorted[sorted.length - 1] ?? NaN)}`,
  );
  console.log(`  bar p95 ≤ 2000 ms: ${percentile(sorted, 95) <= 2000 ? 'met' : 'NOT met'}`);

  await server.close();
  await receiver.close();
  await net.close();
  rmSync(dir, { recursive: true, force: true });
}

await main();
