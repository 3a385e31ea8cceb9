/**
 * `npm run bench:watcher [-- --orders 0,1000,10000 --idle-seconds 30 --up 30 --down 10 --order-rate 200 --profile DIR]`
 *
 * The payment watcher at scale, in the production composition (as src/server/main.ts runs it: startServer with
 * request logging, startPayments with the store; production settings with SOLANA_RPC_URL set) in a child
 * process (bench/lib/production-server.ts), against the localnet with the public endpoint's limits (100 requests
 * / 10 s per IP, 40 per method, 429 above). For each number of open orders (copies of a real order, awaiting payment):
 *
 * - idle: the server's RPC requests per minute, 429s, WebSocket subscriptions, server CPU % (of one core) and RSS,
 *   GET /api/health p99 (20 requests a second during the idle window);
 * - payment → `paid` (signature confirmed at the buyer → the order reads paid) p50/p95 over `--up` payments with the
 *   WebSocket up and `--down` with it refused by the localnet;
 * - POST /api/orders (after POST /api/quotes) at `--order-rate`/s for 10 s: p50/p99 of the order call.
 *
 * Each payment's wallet traffic names itself to the localnet as its own buyer (another IP on the real network). Each number of open
 * orders gets a fresh local network, in its own process (as a provider is another machine), and a fresh store.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection, Keypair, PublicKey } from '@solana/web3.js';
import { cliArg, httpCall, keepAliveAgent, openLoop, percentile } from './lib/load';
import {
  placeOrder,
  postOrder,
  quote,
  seedOpenOrders,
  startLocalnetProcess,
  startPriceFeed,
  startProductionServer,
} from './lib/production';
import { pay } from '../test/integration/payments-support';

const args = process.argv.slice(2);
const argValue = (name: string): string | undefined => cliArg(args, name);
/** A count option: 0 allowed (`--down 0`), unlike cliNumber. */
const num = (name: string, fallback: number): number => {
  const v = Number(argValue(name));
  return Number.isFinite(v) && v >= 0 ? v : fallback;
};

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
  const counts = (argValue('orders') ?? '0,1000,10000').split(',').map(Number);
  const idleSeconds = num('idle-seconds', 30);
  const upN = num('up', 30);
  const downN = num('down', 10);
  const orderRate = num('order-rate', 200);
  /** --profile DIR: the server child writes a V8 CPU profile there (open it in Chrome DevTools). */
  const profileDir = argValue('profile');
  const price = await startPriceFeed();
  console.log(
    `bench:watcher ${new Date().toISOString()} — localnet with public limits (400 ms slots) in its own process, production composition with request logging`,
  );

  for (const n of counts) {
    const net = await startLocalnetProcess({ publicLimits: true });
    const buyer = Keypair.generate();
    await net.faucet(buyer.publicKey, 100, 10_000_000);
    // Each payment is another buyer (their own IP to the provider's per-IP limits), as on the real network.
    let buyers = 0;
    const buyerConnection = () =>
      new Connection(net.rpcUrl, {
        commitment: 'confirmed',
        httpHeaders: { 'x-localnet-client': `buyer-${++buyers}` },
      });
    const dir = mkdtempSync(join(tmpdir(), 'claim-bench-watcher-'));
    const server = await startProductionServer({
      rpcUrl: net.rpcUrl,
      wsUrl: net.wsUrl,
      priceUrl: price.url,
      dir,
      ...(profileDir ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] } : {}),
    });
    const agent = keepAliveAgent(64);
    try {
      await seedOpenOrders(server, agent, n);

      // Idle.
      await new Promise((r) => setTimeout(r, 3_000));
      const s0 = await server.stats();
      const pid = server.pid;
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
      const subs = await net.subscriptionCount();

      // Payments.
      const payOnce = async (): Promise<number> => {
        const o = await placeOrder(server.port, agent);
        await pay(buyerConnection(), {
          from: buyer,
          recipientOwner: new PublicKey(o.recipient),
          mint: net.mint,
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
      await net.setWebSocketDown(true);
      const down: number[] = [];
      for (let i = 0; i < downN; i++) down.push(await payOnce());
      await net.setWebSocketDown(false);
      up.sort((a, b) => a - b);
      down.sort((a, b) => a - b);

      // POST /api/orders at the fixed rate.
      const orderLat: number[] = [];
      const orderStatuses = new Map<number, number>();
      await openLoop({
        ratePerS: orderRate,
        ms: 10_000,
        call: async () => {
          const q = await quote(server.port, agent);
          const t = performance.now();
          const o = await postOrder(server.port, agent, q);
          orderLat.push(performance.now() - t);
          orderStatuses.set(o.status, (orderStatuses.get(o.status) ?? 0) + 1);
          return o.status;
        },
      });
      orderLat.sort((a, b) => a - b);
      const s2 = await server.stats();

      const f = (x: number) =>
        Number.isNaN(x) ? 'none made' : Number.isFinite(x) ? `${Math.round(x)} ms` : 'not seen in 60 s';
      console.log(`\n${n} open orders`);
      console.log(
        `  idle ${elapsed.toFixed(0)} s: ${(((s1.requests - s0.requests) / elapsed) * 60).toFixed(1)} RPC requests/min, WebSocket subscriptions ${subs}, server CPU ${cpu.toFixed(1)} % of a core, RSS ${rssMb(pid).toFixed(0)} MB, /api/health p99 ${percentile(health, 99).toFixed(2)} ms (p50 ${percentile(health, 50).toFixed(2)})`,
      );
      console.log(
        `  payment → paid, WebSocket up (${upN}): p50 ${f(percentile(up, 50))}, p95 ${f(percentile(up, 95))}; WebSocket down (${downN}): p50 ${f(percentile(down, 50))}, p95 ${f(percentile(down, 95))}`,
      );
      console.log(
        `  POST /api/orders at ${orderRate}/s for 10 s: p50 ${percentile(orderLat, 50).toFixed(2)} ms, p99 ${percentile(orderLat, 99).toFixed(2)} ms (${orderLat.length} answered, statuses ${JSON.stringify(Object.fromEntries(orderStatuses))})`,
      );
      console.log(
        `  server RPC totals: ${s2.requests} requests, ${s2.throttled} × 429, ${s2.errors} errors, ${s2.shed} shed by the budget`,
      );
    } finally {
      agent.destroy();
      await server.stop();
      await net.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  price.close();
}

await main();
