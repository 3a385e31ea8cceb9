/**
 * API benchmarks against the design's quality bars: `npm run bench:api [-- options]`.
 *
 * The server is the production composition (bench/lib/production-server.ts: as src/server/main.ts runs it, request
 * logging, every rate limit and the payment watcher on, SOLANA_RPC_URL set) in a child process, against the local
 * network with the public endpoint's limits in another (bench/lib/localnet-child.ts); the load is generated here
 * over loopback.
 *
 * (a) reads: GET /api/catalog and GET /api/price, closed loop (`--connections`, default 32) for `--seconds`
 *     (default 10) after a warm-up: throughput and p50/p99. Bar: ≥ 10k req/s, p99 ≤ 10 ms.
 * (b) orders: POST /api/quotes then POST /api/orders (fresh Idempotency-Key each, valid shipping) started at a
 *     fixed arrival rate (`--rate`, default 200/s) for `--order-seconds` (default 10), with 0 and then 10,000
 *     orders awaiting payment (`--open`, comma-separated), on a SQLite file with durable commits (WAL fsynced
 *     before the answer: src/server/store/durable-sqlite.ts); p50/p95/p99 of the order call and of the whole
 *     quote+order pair, errors. Bar: order p99 ≤ 25 ms. Repeated against PostgreSQL when TEST_DATABASE_URL is set
 *     (a fresh schema, dropped afterwards).
 *
 * Options: --only reads|orders, --seconds, --warmup, --connections, --rate, --order-seconds, --open, --profile DIR
 * (V8 CPU profile of the server), --db-dir DIR (where the SQLite file lives; default the OS temp dir).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  closedLoop,
  cliArg,
  cliNumber,
  httpCall,
  keepAliveAgent,
  openLoop,
  percentile,
  summarize,
  type RunStats,
} from './lib/load';
import {
  postOrder,
  quote,
  seedOpenOrders,
  startLocalnetProcess,
  startPriceFeed,
  startProductionServer,
  type ProductionServer,
} from './lib/production';

const args = process.argv.slice(2);
const opt = (name: string, fallback: number, max: number): number => cliNumber(args, name, fallback, max);
const argValue = (name: string): string | undefined => cliArg(args, name);

/** --profile DIR: the server child writes a V8 CPU profile there (open it in Chrome DevTools). */
const profileDir = argValue('profile');
const nodeArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];

function print(title: string, stats: RunStats, pcts?: number[]): void {
  console.log(title);
  for (const line of summarize(stats, pcts)) console.log(line);
}

/** The production composition on a fresh local network, price feed and store; `run` measures, then all stop. */
async function withServer(
  db: { pgUrl?: string },
  run: (server: ProductionServer) => Promise<void>,
): Promise<void> {
  const net = await startLocalnetProcess({ publicLimits: true });
  const price = await startPriceFeed();
  const dir = mkdtempSync(join(argValue('db-dir') ?? tmpdir(), 'claim-bench-'));
  try {
    const server = await startProductionServer({
      rpcUrl: net.rpcUrl,
      wsUrl: net.wsUrl,
      priceUrl: price.url,
      dir,
      ...(db.pgUrl ? { pgUrl: db.pgUrl } : {}),
      nodeArgs,
    });
    try {
      await run(server);
    } finally {
      await server.stop();
    }
  } finally {
    price.close();
    await net.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function reads(): Promise<void> {
  const seconds = opt('seconds', 10, 60);
  const warmup = opt('warmup', 2, 10);
  const connections = Math.floor(opt('connections', 32, 512));
  await withServer({}, async (server) => {
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
    }
  });
}

async function orders(db: 'sqlite' | 'postgres', open: number, pgUrl?: string): Promise<void> {
  const rate = opt('rate', 200, 5_000);
  const seconds = opt('order-seconds', 10, 60);
  await withServer(pgUrl ? { pgUrl } : {}, async (server) => {
    const agent = keepAliveAgent(256);
    const orderLat: number[] = [];
    const orderStatuses = new Map<number, number>();
    let failures = 0;
    const firstFailures: string[] = [];
    const one = async (): Promise<number> => {
      let signed: string;
      try {
        signed = await quote(server.port, agent);
      } catch (e) {
        failures++;
        if (firstFailures.length < 3) firstFailures.push((e as Error).message);
        return 0;
      }
      const t0 = performance.now();
      const o = await postOrder(server.port, agent, signed);
      orderLat.push(performance.now() - t0);
      orderStatuses.set(o.status, (orderStatuses.get(o.status) ?? 0) + 1);
      if (o.status !== 201) {
        failures++;
        if (firstFailures.length < 3) firstFailures.push(`order ${o.status} ${o.body.slice(0, 200)}`);
      }
      return o.status;
    };
    try {
      await seedOpenOrders(server, agent, open);
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
      console.log(
        `POST /api/orders (each after POST /api/quotes) at ${rate}/s for ${seconds} s, ${open} orders awaiting payment, ${durable}`,
      );
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
    }
  });
}

async function main(): Promise<void> {
  const only = argValue('only');
  const opens = (argValue('open') ?? '0,10000').split(',').map(Number);
  console.log(
    `bench:api ${new Date().toISOString()} — production composition (request logging, limits, payment watcher) against the localnet with public limits`,
  );
  if (only !== 'orders') await reads();
  if (only !== 'reads') {
    for (const n of opens) await orders('sqlite', n);
    const pgUrl = process.env.TEST_DATABASE_URL;
    if (pgUrl) for (const n of opens) await orders('postgres', n, pgUrl);
    else console.log('PostgreSQL: skipped (set TEST_DATABASE_URL to run the order benchmark against it)');
  }
}

await main();
