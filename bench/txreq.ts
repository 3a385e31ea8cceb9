/**
 * Solana Pay transaction requests: `npm run bench:txreq [-- --rate 50 --seconds 10]`.
 *
 * The production composition (bench/lib/production-server.ts: request logging, every limit, the payment watcher)
 * in a child process, against the local network with the public endpoint's limits in another; between the server
 * and the network a JSON-RPC counter (here) that forwards every request and counts it by method. QR records are
 * made through the API; their pay tokens are the server's (orders/pay-requests.ts, the bench's QUOTE_SECRET).
 *
 * GET /api/pay/:token and POST /api/pay/:token {account} (a fresh wallet address each) at a fixed arrival rate
 * (`--rate`, default 50/s) for `--seconds` (default 10) each, after a warm-up; latency from each request's
 * scheduled start (no coordinated omission): p50/p99, statuses. Bars: GET p99 ≤ 10 ms, POST p99 ≤ 25 ms. The RPC
 * requests the server sent during the POST run, by method: the shared snapshot's refresh (getLatestBlockhash +
 * getRecentPrioritizationFees, at most once per 20 s) and the watcher's own background reads; none per POST.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Keypair } from '@solana/web3.js';
import { payTokenOf } from '../src/server/orders/pay-requests';
import { cliNumber, httpCall, keepAliveAgent, openLoop, summarize, type RunStats } from './lib/load';
import { startLocalnetProcess, startPriceFeed, startProductionServer } from './lib/production';

const args = process.argv.slice(2);
const rate = cliNumber(args, 'rate', 50, 5_000);
const seconds = cliNumber(args, 'seconds', 10, 120);
/** production-server.ts's QUOTE_SECRET (the pay token is its HMAC). */
const SECRET = 'bench-secret-0123456789-0123456789-abcdef';
const QR_PRODUCT = 'eagles-xl-joystick-cropal-stick';
const RECORDS = 20;

/** Forwards JSON-RPC to `target` and counts requests by method (batch entries one each). */
function rpcCounter(target: string): Promise<{ url: string; counts: Map<string, number>; close(): void }> {
  const counts = new Map<string, number>();
  const to = new URL(target);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      try {
        const parsed = JSON.parse(body.toString('utf8')) as { method?: string } | { method?: string }[];
        for (const m of Array.isArray(parsed) ? parsed : [parsed])
          counts.set(m.method ?? '?', (counts.get(m.method ?? '?') ?? 0) + 1);
      } catch {
        // not JSON: forwarded as is
      }
      const up = request(
        { host: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers },
        (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        },
      );
      up.on('error', () => res.destroy());
      up.end(body);
    });
  });
  return new Promise((ok) =>
    server.listen(0, '127.0.0.1', () =>
      ok({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        counts,
        close: () => server.close(),
      }),
    ),
  );
}

function print(title: string, stats: RunStats, bar: number): void {
  console.log(title);
  for (const line of summarize(stats, [50, 99])) console.log(line);
  const p99 =
    stats.latencies[Math.min(stats.latencies.length - 1, Math.ceil(0.99 * stats.latencies.length) - 1)];
  console.log(`  bar p99 ≤ ${bar} ms: ${p99 !== undefined && p99 <= bar ? 'met' : 'NOT met'}`);
}

async function main(): Promise<void> {
  console.log(
    `bench:txreq ${new Date().toISOString()} — production composition against the localnet with public limits, ${rate}/s for ${seconds} s each`,
  );
  const net = await startLocalnetProcess({ publicLimits: true });
  const counter = await rpcCounter(net.rpcUrl);
  const price = await startPriceFeed();
  const dir = mkdtempSync(join(tmpdir(), 'claim-bench-txreq-'));
  const agent = keepAliveAgent(256);
  try {
    const server = await startProductionServer({
      rpcUrl: counter.url,
      wsUrl: net.wsUrl,
      priceUrl: price.url,
      dir,
    });
    try {
      const json = { 'content-type': 'application/json' };
      const tokens: string[] = [];
      for (let i = 0; i < RECORDS; i++) {
        const q = await httpCall({
          port: server.port,
          path: '/api/quotes',
          method: 'POST',
          headers: json,
          body: JSON.stringify({ items: [{ productId: QR_PRODUCT, quantity: 1 }] }),
          agent,
          readBody: true,
        });
        if (q.status !== 200) throw new Error(`quote ${q.status}: ${q.body.slice(0, 200)}`);
        const o = await httpCall({
          port: server.port,
          path: '/api/orders',
          method: 'POST',
          headers: { ...json, 'idempotency-key': randomUUID() },
          body: JSON.stringify({
            quote: (JSON.parse(q.body) as { quote: string }).quote,
            paymentMethod: 'qr',
          }),
          agent,
          readBody: true,
        });
        if (o.status !== 201) throw new Error(`order ${o.status}: ${o.body.slice(0, 200)}`);
        tokens.push(payTokenOf(SECRET, (JSON.parse(o.body) as { reference: string }).reference));
      }
      const accounts = Array.from({ length: 200 }, () => Keypair.generate().publicKey.toBase58());
      const get = (i: number) =>
        httpCall({ port: server.port, path: `/api/pay/${tokens[i % tokens.length]}`, agent }).then(
          (r) => r.status,
        );
      const post = (i: number) =>
        httpCall({
          port: server.port,
          path: `/api/pay/${tokens[i % tokens.length]}`,
          method: 'POST',
          headers: json,
          body: JSON.stringify({ account: accounts[i % accounts.length] }),
          agent,
        }).then((r) => r.status);

      // Warm-up: JIT, the connection pool, the shared snapshot's first refresh.
      await openLoop({ ratePerS: rate, ms: 2_000, call: get });
      await openLoop({ ratePerS: rate, ms: 2_000, call: post });

      print(
        `GET /api/pay/:token at ${rate}/s for ${seconds} s`,
        await openLoop({ ratePerS: rate, ms: seconds * 1000, call: get }),
        10,
      );

      const before = new Map(counter.counts);
      const posts = await openLoop({ ratePerS: rate, ms: seconds * 1000, call: post });
      print(`POST /api/pay/:token {account} at ${rate}/s for ${seconds} s`, posts, 25);
      const during: Record<string, number> = {};
      for (const [m, n] of counter.counts)
        if (n - (before.get(m) ?? 0) > 0) during[m] = n - (before.get(m) ?? 0);
      const refresh = (during.getLatestBlockhash ?? 0) + (during.getRecentPrioritizationFees ?? 0);
      const total = Object.values(during).reduce((a, b) => a + b, 0);
      console.log(`  RPC requests the server sent during the POST run, by method: ${JSON.stringify(during)}`);
      console.log(
        `  snapshot refresh ${refresh}, the watcher's background reads ${total - refresh}; per POST beyond the refresh: ${(
          (total - refresh) /
          Math.max(1, posts.latencies.length)
        ).toFixed(3)} (the watcher's reads run whether or not anyone scans)`,
      );
    } finally {
      await server.stop();
    }
  } finally {
    agent.destroy();
    counter.close();
    price.close();
    await net.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
