/**
 * `npm run bench:watcher [-- --orders 0,1000,10000 --idle-seconds 30 --up 30 --down 10 --order-rate 200]`
 *
 * The payment watcher at scale, in the production composition (as src/server/main.ts runs it: startServer with
 * request logging, startPayments with the store; production settings with SOLANA_RPC_URL set) in a child
 * process, against the localnet with the public endpoint's limits (100 requests / 10 s per IP, 40 per method,
 * 429 above) in this process. For each number of open orders (copies of a real order, awaiting payment):
 *
 * - idle: the server's RPC requests per minute, 429s, WebSocket subscriptions, server CPU % (of one core) and RSS,
 *   GET /api/health p99 (20 requests a second during the idle window);
 * - payment → `paid` (signature confirmed at the buyer → the order reads paid) p50/p95 over `--up` payments with the
 *   WebSocket up and `--down` with it refused by the localnet;
 * - POST /api/orders (after POST /api/quotes) at `--order-rate`/s for 10 s: p50/p99 of the order call.
 *
 * The buyer's wallet traffic names itself to the localnet (another IP on the real network).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Connection, Keypair, PublicKey } from '@solana/web3.js';
import { httpCall, keepAliveAgent, openLoop, percentile } from './lib/load';
import { INTERNATIONAL_SHIPPING } from '../test/support/fixtures';

const args = process.argv.slice(2);
const argValue = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const num = (name: string, fallback: number): number => {
  const v = Number(argValue(name));
  return Number.isFinite(v) && v >= 0 ? v : fallback;
};
const PAIR = 'Bv1G7m4nQ7XXxz8v7K2o2Jm1cU6vGk5y9V4K3Qn8ZbQ1';

/** Child: the production composition of main.ts on the given URLs and database. */
async function serve(): Promise<void> {
  const { startServer } = await import('../src/server/server');
  const { startPayments } = await import('../src/server/payments/index');
  const { loadSettings } = await import('../src/server/settings');
  const { demoKeys } = await import('../src/localnet/demo-keys');
  const keys = demoKeys();
  const settings = loadSettings({
    PORT: '0',
    SOLANA_RPC_URL: argValue('rpc'),
    SOLANA_WS_URL: argValue('ws'),
    SOLANA_CLUSTER: 'localnet',
    PRICE_API_URL: argValue('price'),
    PRICE_PAIR_ADDRESS: PAIR,
    CLAIM_MINT: keys.mint.toBase58(),
    RECIPIENT_COOPERSGLASS: keys.recipients.coopersglass.toBase58(),
    RECIPIENT_GORILLA: keys.recipients.gorilla.toBase58(),
    QUOTE_SECRET: 'bench-secret-0123456789-0123456789-abcdef',
    SELLER_EMAIL: 'seller@shop.test',
    MAIL_TRANSPORT: 'file',
    MAIL_DIR: join(argValue('dir') ?? tmpdir(), 'mail'),
    DATABASE_URL: join(argValue('dir') ?? tmpdir(), 'store.sqlite'),
    RATE_LIMIT_ORDERS_PER_MINUTE: '1000000',
  });
  let payments: Awaited<ReturnType<typeof startPayments>> | undefined;
  const server = await startServer(settings, {
    logger: true,
    services: [
      async (ctx) => {
        payments = await startPayments({
          settings: ctx.settings,
          orders: ctx.orders,
          store: ctx.store,
          now: ctx.now,
        });
        return payments;
      },
    ],
  });
  process.send?.({ port: Number(new URL(server.url).port) });
  process.on('message', (m: { stats?: boolean }) => {
    if (m.stats) process.send?.({ rpc: payments?.rpcStats() });
  });
  process.on('disconnect', () => {
    void server.close().then(() => process.exit(0));
  });
}

interface Child {
  port: number;
  child: ChildProcess;
  stats(): Promise<{ requests: number; throttled: number; errors: number; shed: number }>;
  stop(): Promise<void>;
}

async function startChild(extra: string[], logFile: string): Promise<Child> {
  const out = openSync(logFile, 'a');
  const child = fork(fileURLToPath(import.meta.url), ['--server', ...extra], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', out, out, 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { port?: number }) =>
      m.port ? resolve(m.port) : reject(new Error('no port')),
    );
    child.once('exit', (code) => reject(new Error(`server exited (${code}); see ${logFile}`)));
  });
  return {
    port,
    child,
    stats: () =>
      new Promise((resolve) => {
        const on = (m: { rpc?: { requests: number; throttled: number; errors: number; shed: number } }) => {
          if (!m.rpc) return;
          child.off('message', on);
          resolve(m.rpc);
        };
        child.on('message', on);
        child.send({ stats: true });
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const t = setTimeout(() => child.kill('SIGKILL'), 5_000);
        child.once('exit', () => {
          clearTimeout(t);
          resolve();
        });
        child.disconnect();
      }),
  };
}

function cpuTicks(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return Number(rest[11]) + Number(rest[12]); // utime + stime (clock ticks, 100/s)
}
function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function main(): Promise<void> {
  const { startLocalnet } = await import('../src/localnet/index');
  const { openStore } = await import('../src/server/store/store');
  const { faucet, pay } = await import('../test/integration/payments-support');
  const counts = (argValue('orders') ?? '0,1000,10000').split(',').map(Number);
  const idleSeconds = num('idle-seconds', 30);
  const upN = num('up', 30);
  const downN = num('down', 10);
  const orderRate = num('order-rate', 200);

  const net = await startLocalnet({ port: 0, publicLimits: true });
  const { demoPairsResponse } = await import('../src/server/price/demo-feed');
  const price = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(demoPairsResponse(PAIR, Date.now())));
  });
  await new Promise<void>((r) => price.listen(0, '127.0.0.1', () => r()));
  const priceUrl = `http://127.0.0.1:${(price.address() as AddressInfo).port}`;
  const buyer = Keypair.generate();
  await faucet(net, buyer.publicKey, 100, 10_000_000);
  const buyerConn = new Connection(net.rpcUrl, {
    commitment: 'confirmed',
    httpHeaders: { 'x-localnet-client': 'buyer' },
  });
  console.log(
    `bench:watcher ${new Date().toISOString()} — localnet with public limits (400 ms slots), production composition with request logging`,
  );

  for (const n of counts) {
    const dir = mkdtempSync(join(tmpdir(), 'claim-bench-watcher-'));
    const log = join(dir, 'server.log');
    const server = await startChild(
      ['--rpc', net.rpcUrl, '--ws', net.wsUrl, '--price', priceUrl, '--dir', dir],
      log,
    );
    const agent = keepAliveAgent(64);
    const json = { 'content-type': 'application/json' };
    const newOrder = async (): Promise<{
      orderId: string;
      reference: string;
      amount: bigint;
      recipient: string;
    }> => {
      const q = await httpCall({
        port: server.port,
        path: '/api/quotes',
        method: 'POST',
        headers: { ...json, 'idempotency-key': randomUUID() },
        body: JSON.stringify({ items: [{ productId: 'lilac-tiptop', quantity: 1 }] }),
        agent,
        readBody: true,
      });
      const { quote } = JSON.parse(q.body) as { quote: string };
      const o = await httpCall({
        port: server.port,
        path: '/api/orders',
        method: 'POST',
        headers: { ...json, 'idempotency-key': randomUUID() },
        body: JSON.stringify({ quote, shipping: INTERNATIONAL_SHIPPING, paymentMethod: 'wallet' }),
        agent,
        readBody: true,
      });
      const b = JSON.parse(o.body) as {
        orderId: string;
        reference: string;
        amountBaseUnits: string;
        recipient: string;
      };
      return {
        orderId: b.orderId,
        reference: b.reference,
        amount: BigInt(b.amountBaseUnits),
        recipient: b.recipient,
      };
    };
    try {
      // n open orders: copies of a real one, each with its own reference.
      const first = await newOrder();
      const store = await openStore({ kind: 'sqlite', file: join(dir, 'store.sqlite') });
      const row = await store.db
        .selectFrom('orders')
        .selectAll()
        .where('id', '=', first.orderId)
        .executeTakeFirstOrThrow();
      for (let i = 0; i < n - 1; i += 500) {
        const rows = Array.from({ length: Math.min(500, n - 1 - i) }, () => ({
          ...row,
          id: randomUUID(),
          reference: Keypair.generate().publicKey.toBase58(),
          public_token: row.public_token === null ? null : randomBytes(24).toString('base64url'),
        }));
        await store.db.insertInto('orders').values(rows).execute();
      }
      await store.close();

      // Idle.
      await new Promise((r) => setTimeout(r, 3_000));
      const s0 = await server.stats();
      const pid = server.child.pid ?? 0;
      const c0 = cpuTicks(pid);
      const t0 = Date.now();
      const health: number[] = [];
      while (Date.now() - t0 < idleSeconds * 1000) {
        const h0 = performance.now();
        await httpCall({ port: server.port, path: '/api/health', agent });
        health.push(performance.now() - h0);
        await new Promise((r) => setTimeout(r, 50));
      }
      const elapsed = (Date.now() - t0) / 1000;
      const s1 = await server.stats();
      const cpu = ((cpuTicks(pid) - c0) / 100 / elapsed) * 100;
      health.sort((a, b) => a - b);
      const subs = net.subscriptionCount();

      // Payments.
      const payOnce = async (): Promise<number> => {
        const o = await newOrder();
        await pay(buyerConn, {
          from: buyer,
          recipientOwner: new PublicKey(o.recipient),
          mint: net.keys!.mint,
          amount: o.amount,
          references: [new PublicKey(o.reference)],
        });
        const at = performance.now();
        for (;;) {
          const r = await httpCall({
            port: server.port,
            path: `/api/orders/${o.orderId}`,
            agent,
            readBody: true,
          });
          const status = (JSON.parse(r.body) as { status: string }).status;
          if (status === 'paid' || status === 'final') return performance.now() - at;
          if (performance.now() - at > 60_000) return Infinity;
          await new Promise((res) => setTimeout(res, 50));
        }
      };
      const up: number[] = [];
      for (let i = 0; i < upN; i++) up.push(await payOnce());
      net.setWebSocketDown(true);
      const down: number[] = [];
      for (let i = 0; i < downN; i++) down.push(await payOnce());
      net.setWebSocketDown(false);
      up.sort((a, b) => a - b);
      down.sort((a, b) => a - b);

      // POST /api/orders at the fixed rate.
      const orderLat: number[] = [];
      await openLoop({
        ratePerS: orderRate,
        ms: 10_000,
        call: async () => {
          const q = await httpCall({
            port: server.port,
            path: '/api/quotes',
            method: 'POST',
            headers: { ...json, 'idempotency-key': randomUUID() },
            body: JSON.stringify({ items: [{ productId: 'lilac-tiptop', quantity: 1 }] }),
            agent,
            readBody: true,
          });
          const { quote } = JSON.parse(q.body) as { quote: string };
          const t = performance.now();
          const o = await httpCall({
            port: server.port,
            path: '/api/orders',
            method: 'POST',
            headers: { ...json, 'idempotency-key': randomUUID() },
            body: JSON.stringify({ quote, shipping: INTERNATIONAL_SHIPPING, paymentMethod: 'wallet' }),
            agent,
          });
          orderLat.push(performance.now() - t);
          return o.status;
        },
      });
      orderLat.sort((a, b) => a - b);
      const s2 = await server.stats();

      const f = (x: number) => (Number.isFinite(x) ? `${Math.round(x)} ms` : 'not seen in 60 s');
      console.log(`\n${n} open orders`);
      console.log(
        `  idle ${elapsed.toFixed(0)} s: ${(((s1.requests - s0.requests) / elapsed) * 60).toFixed(1)} RPC requests/min, WebSocket subscriptions ${subs}, server CPU ${cpu.toFixed(1)} % of a core, RSS ${rssMb(pid).toFixed(0)} MB, /api/health p99 ${percentile(health, 99).toFixed(2)} ms (p50 ${percentile(health, 50).toFixed(2)})`,
      );
      console.log(
        `  payment → paid, WebSocket up (${upN}): p50 ${f(percentile(up, 50))}, p95 ${f(percentile(up, 95))}; WebSocket down (${downN}): p50 ${f(percentile(down, 50))}, p95 ${f(percentile(down, 95))}`,
      );
      console.log(
        `  POST /api/orders at ${orderRate}/s for 10 s: p50 ${percentile(orderLat, 50).toFixed(2)} ms, p99 ${percentile(orderLat, 99).toFixed(2)} ms (${orderLat.length} answered)`,
      );
      console.log(
        `  server RPC totals: ${s2.requests} requests, ${s2.throttled} × 429, ${s2.errors} errors, ${s2.shed} shed by the budget`,
      );
    } finally {
      agent.destroy();
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  price.close();
  await net.close();
}

if (args.includes('--server')) await serve();
else await main();
