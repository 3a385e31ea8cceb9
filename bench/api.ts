/**
 * API benchmarks against the design's quality bars: `npm run bench:api [-- options]`.
 *
 * The server is the real composition (startServer: store, order routes, price service on the demo feed, security
 * headers, rate limit set out of reach) in a child process; the load is generated here over loopback.
 *
 * (a) reads: GET /api/catalog and GET /api/price, closed loop (`--connections`, default 32) for `--seconds`
 *     (default 10) after a warm-up: throughput and p50/p99. Bar: ≥ 10k req/s, p99 ≤ 10 ms.
 * (b) orders: POST /api/quotes then POST /api/orders (fresh Idempotency-Key each, valid shipping) started at a
 *     fixed arrival rate (`--rate`, default 200/s) for `--order-seconds` (default 10) against a SQLite file with
 *     durable commits (WAL fsynced before the answer: src/server/store/durable-sqlite.ts); p50/p95/p99 of the
 *     order call and of the whole quote+order pair, errors. Bar: order p99 ≤ 25 ms. Repeated against PostgreSQL when TEST_DATABASE_URL is set (a
 *     fresh schema, dropped afterwards).
 *
 * Options: --only reads|orders, --seconds, --warmup, --connections, --rate, --order-seconds, --profile DIR (V8
 * CPU profile of the server), --db-dir DIR (where the SQLite file lives; default the OS temp dir).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  closedLoop,
  cliNumber,
  httpCall,
  keepAliveAgent,
  openLoop,
  percentile,
  startServerProcess,
  summarize,
  type RunStats,
} from './lib/load';
import { INTERNATIONAL_SHIPPING } from '../test/support/fixtures';

const args = process.argv.slice(2);
const opt = (name: string, fallback: number, max: number): number => cliNumber(args, name, fallback, max);
const argValue = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};

/** --profile DIR: the server child writes a V8 CPU profile there (open it in Chrome DevTools). */
const profileDir = argValue('profile');
const nodeArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];

const SHIPPING = INTERNATIONAL_SHIPPING;
const PRODUCT = 'lilac-tiptop'; // a wallet product of the demo catalogue

async function serve(): Promise<void> {
  const { startServer } = await import('../src/server/server');
  const { loadSettings } = await import('../src/server/settings');
  const { demoKeys } = await import('../src/localnet/demo-keys');
  const keys = demoKeys();
  const dir = mkdtempSync(join(argValue('db-dir') ?? tmpdir(), 'claim-bench-'));
  const db = argValue('db') ?? 'sqlite';
  const settings = loadSettings(
    {
      PORT: '0',
      DATABASE_URL: join(dir, 'store.sqlite'),
      MAIL_TRANSPORT: 'file',
      MAIL_DIR: join(dir, 'mail'),
      // Far out of reach: the bench measures the API, not the limiter.
      RATE_LIMIT_ORDERS_PER_MINUTE: '1000000',
    },
    {
      claimMint: keys.mint.toBase58(),
      recipients: {
        coopersglass: keys.recipients.coopersglass.toBase58(),
        gorilla: keys.recipients.gorilla.toBase58(),
      },
    },
  );
  const pgUrl = argValue('pg-url');
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const server = await startServer(settings, {
    ...(db === 'postgres' && pgUrl ? { store: { kind: 'postgres', url: pgUrl, schema } } : {}),
    expireEveryMs: 0,
  });
  // Every order reserves its unit: give the bench's (one of a kind) product enough stock for the whole run.
  await server.stock.set({ productId: PRODUCT }, 1_000_000, 'bench', new Date().toISOString());
  const port = Number(new URL(server.url).port);
  process.send?.({ port });
  process.on('disconnect', () => {
    void (async () => {
      if (db === 'postgres')
        await server.store.db.schema
          .dropSchema(schema)
          .ifExists()
          .cascade()
          .execute()
          .catch(() => undefined);
      await server.close();
      rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    })();
  });
}

function print(title: string, stats: RunStats, pcts?: number[]): void {
  console.log(title);
  for (const line of summarize(stats, pcts)) console.log(line);
}

async function reads(): Promise<void> {
  const seconds = opt('seconds', 10, 60);
  const warmup = opt('warmup', 2, 10);
  const connections = Math.floor(opt('connections', 32, 512));
  const server = await startServerProcess(fileURLToPath(import.meta.url), [], nodeArgs);
  const agent = keepAliveAgent(connections);
  try {
    for (const path of ['/api/catalog', '/api/price']) {
      const call = async () =>
        (await httpCall({ port: server.port, path, agent, headers: { 'accept-encoding': 'identity' } }))
          .status;
      await closedLoop({ connections, ms: warmup * 1000, call });
      const stats = await closedLoop({ connections, ms: seconds * 1000, call });
      print(`GET ${path}: ${connections} connections, ${seconds} s (after ${warmup} s warm-up)`, stats);
    }
  } finally {
    agent.destroy();
    await server.stop();
  }
}

async function orders(db: 'sqlite' | 'postgres', pgUrl?: string): Promise<void> {
  const rate = opt('rate', 200, 5_000);
  const seconds = opt('order-seconds', 10, 60);
  const dbDir = argValue('db-dir');
  const server = await startServerProcess(
    fileURLToPath(import.meta.url),
    ['--db', db, ...(pgUrl ? ['--pg-url', pgUrl] : []), ...(dbDir ? ['--db-dir', dbDir] : [])],
    nodeArgs,
  );
  const agent = keepAliveAgent(256);
  const orderLat: number[] = [];
  const orderStatuses = new Map<number, number>();
  let failures = 0;
  const firstFailures: string[] = [];
  const json = { 'content-type': 'application/json' };
  const one = async (): Promise<number> => {
    const q = await httpCall({
      port: server.port,
      path: '/api/quotes',
      method: 'POST',
      headers: { ...json, 'idempotency-key': randomUUID() },
      body: JSON.stringify({ items: [{ productId: PRODUCT, quantity: 1 }] }),
      agent,
      readBody: true,
    });
    if (q.status !== 200) {
      failures++;
      if (firstFailures.length < 3) firstFailures.push(`quote ${q.status} ${q.body.slice(0, 200)}`);
      return q.status;
    }
    const { quote } = JSON.parse(q.body) as { quote: string };
    const t0 = performance.now();
    const o = await httpCall({
      port: server.port,
      path: '/api/orders',
      method: 'POST',
      headers: { ...json, 'idempotency-key': randomUUID() },
      body: JSON.stringify({ quote, shipping: SHIPPING, paymentMethod: 'wallet' }),
      agent,
      readBody: true,
    });
    orderLat.push(performance.now() - t0);
    orderStatuses.set(o.status, (orderStatuses.get(o.status) ?? 0) + 1);
    if (o.status !== 201) {
      failures++;
      if (firstFailures.length < 3) firstFailures.push(`order ${o.status} ${o.body.slice(0, 200)}`);
    }
    return o.status;
  };
  try {
    // Warm-up: JIT, the connection pool, the store's page cache.
    await openLoop({ ratePerS: Math.min(rate, 100), ms: 1_000, call: one });
    orderLat.length = 0;
    orderStatuses.clear();
    failures = 0;
    const pair = await openLoop({ ratePerS: rate, ms: seconds * 1000, call: one });
    orderLat.sort((a, b) => a - b);
    const durable =
      db === 'sqlite'
        ? 'SQLite file, WAL, durable commits (fsync of the WAL before each answer)'
        : 'PostgreSQL';
    console.log(`POST /api/orders (each after POST /api/quotes) at ${rate}/s for ${seconds} s, ${durable}`);
    const p = (x: number) => `p${x} ${percentile(orderLat, x).toFixed(2)} ms`;
    console.log(
      `  order call: ${orderLat.length} answered, ${[50, 95, 99].map(p).join(', ')}, max ${(orderLat.at(-1) ?? NaN).toFixed(2)} ms`,
    );
    console.log(
      `  order statuses ${JSON.stringify(Object.fromEntries(orderStatuses))}, failed pairs ${failures}, transport errors ${pair.errors}`,
    );
    print('  quote+order pair from its scheduled start:', pair, [50, 95, 99]);
    for (const f of firstFailures) console.log(`  e.g. ${f}`);
  } finally {
    agent.destroy();
    await server.stop();
  }
}

async function main(): Promise<void> {
  const only = argValue('only');
  if (only !== 'orders') await reads();
  if (only !== 'reads') {
    await orders('sqlite');
    const pgUrl = process.env.TEST_DATABASE_URL;
    if (pgUrl) await orders('postgres', pgUrl);
    else console.log('PostgreSQL: skipped (set TEST_DATABASE_URL to run the order benchmark against it)');
  }
}

if (args.includes('--server')) await serve();
else await main();
