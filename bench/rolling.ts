/**
 * A rolling deploy under load: `npm run bench:rolling [-- --rate 100 --settle 10]`.
 *
 * What production runs: the build (`npm run build`) started as `npm run start:prod` does (plain Node on
 * dist/server/main.js, production settings, SOLANA_RPC_URL on a local network with the public endpoint's limits in
 * its own process), two instances on one PostgreSQL database (a fresh one, dropped afterwards) migrated first by
 * the release step (dist/server/migrate.js). In front of them a small round-robin proxy (./lib/load-balancer.ts) that
 * follows readiness as a load balancer does: it asks each instance's `/api/health/ready` every 500 ms and sends
 * requests only to the ready ones (a connection refused is tried on the other: nothing was sent).
 *
 * Load: open loop, `--rate` requests a second (default 100) through the proxy, a third each of GET /api/catalog,
 * POST /api/quotes and POST /api/orders (each on a quote of its own). After `--settle` seconds (default 10) each instance
 * in turn gets SIGTERM, is started again once it has exited, and the next one waits until it is ready and
 * `--settle` more seconds have passed.
 *
 * Printed: requests and their outcome (failed = 5xx answers and connections reset or refused at the proxy's
 * client), per stop: how long the instance took to exit, the payment watcher's handover (SIGTERM → another
 * instance holds the watcher lease; and the time with no watcher: its lease released → taken) with a payment sent
 * while the lease was free and the time until its order read paid, and the outbox rows not yet sent at SIGTERM and
 * when the last of them was sent. Targets (issue 31): 0 failed, handover ≤ 8 s, those rows sent within 15 s.
 */
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, openSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection, Keypair, PublicKey } from '@solana/web3.js';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';
import { catalog } from '../catalog/index';
import { demoKeys } from '../test/support/demo-keypairs';
import { createStockRepository } from '../src/server/stock/repository';
import { openStore } from '../src/server/store/store';
import { INTERNATIONAL_SHIPPING, TEST_DATA_KEYS } from '../test/support/fixtures';
import { pay } from '../test/integration/payments-support';
import { cliNumber, httpCall, keepAliveAgent } from './lib/load';
import { BENCH_PAIR, BENCH_PRODUCT, startLocalnetProcess, startPriceFeed } from './lib/production';
import { freePort, isReady, startLoadBalancer, type Instance } from './lib/load-balancer';

const args = process.argv.slice(2);
const RATE = cliNumber(args, 'rate', 100, 2_000);
const SETTLE_S = cliNumber(args, 'settle', 10, 600);
const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------------- database
const dbName = `bench_rolling_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: PG_URL });
await admin.connect();
await admin.query(`create database ${dbName}`);
const dbUrl = (() => {
  const u = new URL(PG_URL);
  u.pathname = `/${dbName}`;
  return u.toString();
})();
const dir = mkdtempSync(join(tmpdir(), 'claim-rolling-'));
const net = await startLocalnetProcess({ publicLimits: true });
const feed = await startPriceFeed();
const keys = demoKeys();
// A mail server that takes 1.5 s per message, so e-mails are still on their way when an instance stops.
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS', 'AUTH'],
  logger: false,
  onData(stream, _session, callback) {
    stream.resume();
    stream.on('end', () => setTimeout(() => callback(), 1_500));
  },
});
await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', () => r()));
const smtpPort = (smtp.server.address() as AddressInfo).port;

const env: Record<string, string> = {
  ...(process.env as Record<string, string>),
  NODE_ENV: 'production',
  HOST: '127.0.0.1',
  DATABASE_URL: dbUrl,
  // A fleet's instances keep their pools open and warmed (docs/deploy.md).
  DATABASE_POOL_WARM: '1',
  DATA_KEYS: TEST_DATA_KEYS,
  SOLANA_RPC_URL: net.rpcUrl,
  SOLANA_WS_URL: net.wsUrl,
  SOLANA_CLUSTER: 'localnet',
  PRICE_API_URL: feed.url,
  PRICE_PAIR_ADDRESS: BENCH_PAIR,
  CLAIM_MINT: keys.mint.toBase58(),
  RECIPIENT_COOPERSGLASS: keys.recipients.coopersglass.toBase58(),
  RECIPIENT_GORILLA: keys.recipients.gorilla.toBase58(),
  QUOTE_SECRET: 'bench-secret-0123456789-0123456789-abcdef',
  SELLER_EMAIL: 'seller@shop.test',
  MAIL_TRANSPORT: 'smtp',
  SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
  // The whole load comes from one client address (the proxy): the per-IP limits out of reach, as bench:api does.
  RATE_LIMIT_ORDERS_PER_MINUTE: '1000000',
  HOLD_LIMIT_PER_CLIENT: '0',
};
delete env.TEST_DATABASE_URL;

// The release step, then stock for the whole run.
await runToEnd('node', ['dist/server/migrate.js'], 'migrate');
{
  const store = await openStore({ kind: 'postgres', url: dbUrl });
  await createStockRepository(store, catalog).set(
    { productId: BENCH_PRODUCT },
    1_000_000,
    'bench',
    new Date().toISOString(),
  );
  await store.close();
}

function runToEnd(cmd: string, argv: string[], name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const out = openSync(join(dir, `${name}.log`), 'a');
    const child = spawn(cmd, argv, { env, stdio: ['ignore', out, out] });
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${name} exited ${code}`))));
  });
}

// ---------------------------------------------------------------------------------------------------- instances
function start(inst: Instance): void {
  const out = openSync(join(dir, `${inst.name}.log`), 'a');
  const child = spawn('node', ['--enable-source-maps', 'dist/server/main.js'], {
    env: { ...env, PORT: String(inst.port) },
    stdio: ['ignore', out, out],
  });
  inst.child = child;
  inst.exited = new Promise((r) => child.once('exit', (code) => r(code)));
}

const instances: Instance[] = [
  { name: 'a', port: await freePort(), ready: false, fails: 2 },
  { name: 'b', port: await freePort(), ready: false, fails: 2 },
];

// ---------------------------------------------------------------------------------------------------- the proxy
const balancer = await startLoadBalancer(instances);
const proxyPort = balancer.port;

// ---------------------------------------------------------------------------------------------------- load
for (const i of instances) start(i);
const startedAt = Date.now();
while (!instances.every((i) => i.ready)) {
  if (Date.now() - startedAt > 120_000) throw new Error(`instances not ready; see ${dir}`);
  await sleep(200);
}
console.log(`two instances ready in ${((Date.now() - startedAt) / 1000).toFixed(1)} s (logs in ${dir})`);

const clientAgent = keepAliveAgent(256);
const outcome = { sent: 0, ok: 0, failed5xx: 0, resets: 0, other: new Map<string, number>() };
const failures: string[] = [];
/** Quotes not used yet: an order uses each once (a quote buys one order). */
const quotes: string[] = [];
const firstBodies = new Map<string, string>();
const JSON_HEADERS = { 'content-type': 'application/json' };

async function one(i: number): Promise<void> {
  const kind = i % 3;
  const t = Date.now();
  try {
    let r;
    if (kind === 0) r = await httpCall({ port: proxyPort, path: '/api/catalog', agent: clientAgent });
    else if (kind === 1 || quotes.length === 0) {
      r = await httpCall({
        port: proxyPort,
        path: '/api/quotes',
        method: 'POST',
        headers: { ...JSON_HEADERS, 'idempotency-key': randomUUID() },
        body: JSON.stringify({ items: [{ productId: BENCH_PRODUCT, quantity: 1 }] }),
        agent: clientAgent,
        readBody: true,
      });
      if (r.status === 200) quotes.push((JSON.parse(r.body) as { quote: string }).quote);
    } else
      r = await httpCall({
        port: proxyPort,
        path: '/api/orders',
        method: 'POST',
        headers: { ...JSON_HEADERS, 'idempotency-key': randomUUID() },
        body: JSON.stringify({
          quote: quotes.pop(),
          shipping: INTERNATIONAL_SHIPPING,
          paymentMethod: 'wallet',
        }),
        agent: clientAgent,
        readBody: true,
      });
    if (r.status >= 400 && r.status < 500 && !firstBodies.has(`${kind} ${r.status}`))
      firstBodies.set(`${kind} ${r.status}`, r.body.slice(0, 200));
    if (r.status >= 500) {
      outcome.failed5xx++;
      failures.push(`${new Date(t).toISOString()} ${['catalog', 'quote', 'order'][kind]} ${r.status}`);
    } else if (r.status < 300) outcome.ok++;
    else {
      const key = `${['catalog', 'quote', 'order'][kind]} ${r.status}`;
      outcome.other.set(key, (outcome.other.get(key) ?? 0) + 1);
    }
  } catch (err) {
    outcome.resets++;
    failures.push(
      `${new Date(t).toISOString()} ${['catalog', 'quote', 'order'][kind]} ${(err as Error).message}`,
    );
  }
}

let loadOn = true;
const inflight = new Set<Promise<void>>();
const loadLoop = (async () => {
  const t0 = performance.now();
  for (let i = 0; loadOn; i++) {
    const wait = t0 + (i * 1000) / RATE - performance.now();
    if (wait > 1) await sleep(wait);
    outcome.sent++;
    const p = one(i).finally(() => inflight.delete(p));
    inflight.add(p);
  }
})();

// ---------------------------------------------------------------------------------------------------- the roll
const db = new pg.Client({ connectionString: dbUrl });
await db.connect();
const buyer = Keypair.generate();
await net.faucet(buyer.publicKey, 10, 1_000_000);
const buyerConnection = new Connection(net.rpcUrl, {
  commitment: 'confirmed',
  httpHeaders: { 'x-localnet-client': 'bench-buyer' },
});

async function watchLease(): Promise<{ holder: string; expires: number } | undefined> {
  const { rows } = await db.query<{ holder: string; expires_at: string }>(
    `select holder, expires_at from payment_watch_lease where name = 'payments'`,
  );
  const r = rows[0];
  return r ? { holder: r.holder, expires: Date.parse(r.expires_at) } : undefined;
}

async function placeOrder(): Promise<{
  orderId: string;
  reference: string;
  amountBaseUnits: string;
  recipient: string;
}> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await placeOrderOnce();
    } catch (err) {
      if (attempt >= 10) throw err;
      await sleep(500);
    }
  }
}

async function placeOrderOnce() {
  const q = await httpCall({
    port: proxyPort,
    path: '/api/quotes',
    method: 'POST',
    headers: { ...JSON_HEADERS, 'idempotency-key': randomUUID() },
    body: JSON.stringify({ items: [{ productId: BENCH_PRODUCT, quantity: 1 }] }),
    agent: clientAgent,
    readBody: true,
  });
  const o = await httpCall({
    port: proxyPort,
    path: '/api/orders',
    method: 'POST',
    headers: { ...JSON_HEADERS, 'idempotency-key': randomUUID() },
    body: JSON.stringify({
      quote: (JSON.parse(q.body) as { quote: string }).quote,
      shipping: INTERNATIONAL_SHIPPING,
      paymentMethod: 'wallet',
    }),
    agent: clientAgent,
    readBody: true,
  });
  if (o.status !== 201) throw new Error(`order ${o.status}: ${o.body.slice(0, 200)}`);
  return JSON.parse(o.body) as {
    orderId: string;
    reference: string;
    amountBaseUnits: string;
    recipient: string;
  };
}

async function orderStatus(id: string): Promise<string> {
  const { rows } = await db.query<{ status: string }>('select status from orders where id = $1', [id]);
  return rows[0]?.status ?? '';
}

const rolls: string[] = [];
await sleep(SETTLE_S * 1000);
async function payOrder(order: { reference: string; amountBaseUnits: string; recipient: string }) {
  return pay(buyerConnection, {
    from: buyer,
    recipientOwner: new PublicKey(order.recipient),
    mint: net.mint,
    amount: BigInt(order.amountBaseUnits),
    references: [new PublicKey(order.reference)],
  });
}

for (const inst of instances) {
  // An order placed before the stop, paid while the watcher's lease is free.
  const order = await placeOrder();
  // An order paid just before the stop: SIGTERM as soon as its e-mails are queued (the mail server takes 1.5 s
  // per message), so they are still on their way.
  const paidBefore = await placeOrder();
  await payOrder(paidBefore);
  const paidWaitFrom = Date.now();
  while (Date.now() - paidWaitFrom < 60_000) {
    const { rows } = await db.query<{ n: string }>(
      `select count(*) as n from outbox where order_id = $1 and state in ('pending', 'retrying')`,
      [paidBefore.orderId],
    );
    if (Number(rows[0]?.n ?? 0) > 0) break;
    await sleep(50);
  }
  const { rows: unsentRows } = await db.query<{ id: string }>(
    `select id from outbox where state in ('pending', 'retrying')`,
  );
  const unsent = new Set(unsentRows.map((r) => r.id));
  const before = await watchLease();
  const t0 = Date.now();
  inst.child?.kill('SIGTERM');

  // The watcher's lease: released (or run out) → taken by another holder.
  let freedAt: number | undefined;
  let takenAt: number | undefined;
  let paidSentAt: number | undefined;
  let paidSeenAt: number | undefined;
  let exitedAt: number | undefined;
  let lastUnsentAt: number | undefined;
  void inst.exited?.then(() => (exitedAt = Date.now()));
  let paying: Promise<unknown> | undefined;
  while (Date.now() - t0 < 60_000) {
    const now = Date.now();
    const lease = await watchLease();
    if (before && lease && freedAt === undefined && lease.holder === before.holder && lease.expires < now)
      freedAt = now;
    if (before && lease && takenAt === undefined && lease.holder !== before.holder && lease.expires > now) {
      takenAt = now;
      freedAt ??= now;
    }
    if (freedAt !== undefined && !paying) {
      paidSentAt = Date.now();
      paying = payOrder(order).catch((err: unknown) => console.warn('payment failed:', err));
    }
    if (paying && paidSeenAt === undefined && ['paid', 'final'].includes(await orderStatus(order.orderId)))
      paidSeenAt = Date.now();
    if (lastUnsentAt === undefined && unsent.size > 0) {
      const { rows } = await db.query<{ n: string }>(
        `select count(*) as n from outbox where id = any($1) and state in ('pending', 'retrying')`,
        [[...unsent]],
      );
      if (Number(rows[0]?.n ?? 0) === 0) lastUnsentAt = Date.now();
    }
    const watcherDone =
      !before || takenAt !== undefined || (exitedAt !== undefined && now - exitedAt > 3_000);
    const outboxDone = unsent.size === 0 || lastUnsentAt !== undefined;
    if (exitedAt !== undefined && watcherDone && outboxDone && (!paying || paidSeenAt !== undefined)) break;
    await sleep(50);
  }
  // A payment not seen yet: how long it took, up to 3 minutes.
  while (paying && paidSeenAt === undefined && Date.now() - t0 < 180_000) {
    if (['paid', 'final'].includes(await orderStatus(order.orderId))) paidSeenAt = Date.now();
    else await sleep(200);
  }
  const s = (ms: number | undefined) =>
    ms === undefined ? 'not within the wait' : `${(ms / 1000).toFixed(1)} s`;
  const watcherLine =
    takenAt !== undefined
      ? `watcher handed over ${s(takenAt - t0)} after SIGTERM (no watcher for ${s(takenAt - (freedAt ?? takenAt))}); ` +
        `payment sent while the lease was free seen paid ${s(paidSeenAt !== undefined && paidSentAt !== undefined ? paidSeenAt - paidSentAt : undefined)} after sending`
      : 'it did not hold the watcher lease';
  const line =
    `instance ${inst.name} stopped: exited ${s(exitedAt !== undefined ? exitedAt - t0 : undefined)} after SIGTERM; ${watcherLine}; ` +
    `outbox rows unsent at SIGTERM ${unsent.size}` +
    (unsent.size
      ? `, all sent ${s(lastUnsentAt !== undefined ? lastUnsentAt - t0 : undefined)} after SIGTERM`
      : '');
  console.log(line);
  rolls.push(line);
  await paying;

  // Started again; the next one waits for it to be ready and settle.
  await inst.exited;
  start(inst);
  const restartAt = Date.now();
  while (!(await isReady(inst.port))) {
    if (Date.now() - restartAt > 120_000)
      throw new Error(`instance ${inst.name} not ready again; see ${dir}`);
    await sleep(100);
  }
  console.log(
    `instance ${inst.name} ready again ${((Date.now() - restartAt) / 1000).toFixed(1)} s after its start`,
  );
  await sleep(SETTLE_S * 1000);
}

loadOn = false;
await loadLoop;
await Promise.all(inflight);
const seconds = (Date.now() - startedAt) / 1000;
console.log(
  `load: ${outcome.sent} requests at ${RATE}/s through the proxy; ok ${outcome.ok}; ` +
    `failed: ${outcome.failed5xx} × 5xx, ${outcome.resets} reset/refused; other statuses ${JSON.stringify(Object.fromEntries(outcome.other))}; ` +
    `proxy: ${balancer.stats.retriedRefused} refused connections tried on the other instance, ${balancer.stats.retriedReused} sent again after a kept-alive connection closed under them, ${balancer.stats.failOpen} sent with no instance passing its checks`,
);
for (const [k, b] of firstBodies) console.log(`first ${k}: ${b}`);
if (failures.length) console.log(`first failures:\n  ${failures.slice(0, 10).join('\n  ')}`);
console.log(`(${seconds.toFixed(0)} s in all)`);

// ---------------------------------------------------------------------------------------------------- cleanup
for (const i of instances) {
  i.child?.kill('SIGTERM');
  await i.exited;
}
await balancer.close();
clientAgent.destroy();
await db.end();
await net.close();
feed.close();
smtp.close();
await admin.query(`drop database if exists ${dbName} with (force)`);
await admin.end();
if (!process.env.KEEP_BENCH_DIR) rmSync(dir, { recursive: true, force: true });
process.exit(0);
