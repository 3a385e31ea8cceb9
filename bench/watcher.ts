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
 * Then a flood (`--flood-seconds 180 --flood-rate 2`, 0 to skip), on a fresh network and store with no open
 * orders: dust transfers of 1… base units to a vendor's token account at `--flood-rate` a second from many
 * attacker addresses, and meanwhile a real payment every 10 s whose page polls the order (as the QR and wallet
 * pages do): payment → `paid` p50/p95, the server's RPC requests a minute and 429s, the watcher's backlog
 * (readiness's "behind by N transfers") at its largest and at the end, and whether readiness stayed ok.
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
import { pay, transferIx } from '../test/integration/payments-support';
import { Transaction } from '@solana/web3.js';

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

/**
 * Places an order, pays it from `buyer` over `connection`, and polls its page every `pollMs` until it is paid:
 * the milliseconds from the payment's confirmation to `paid`, or Infinity when not seen within 60 s.
 */
async function payAndTimeToPaid(
  port: number,
  agent: ReturnType<typeof keepAliveAgent>,
  connection: Connection,
  buyer: Keypair,
  mint: PublicKey,
  pollMs: number,
): Promise<number> {
  const o = await placeOrder(port, agent);
  await pay(connection, {
    from: buyer,
    recipientOwner: new PublicKey(o.recipient),
    mint,
    amount: o.amount,
    references: [new PublicKey(o.reference)],
  });
  const at = performance.now();
  for (;;) {
    const r = await httpCall({ port, path: `/api/orders/${o.orderId}`, agent, readBody: true });
    const status = (JSON.parse(r.body) as { status: string }).status;
    if (status === 'paid' || status === 'final') return performance.now() - at;
    if (performance.now() - at > 60_000) return Infinity;
    await new Promise((res) => setTimeout(res, pollMs));
  }
}

async function main(): Promise<void> {
  const counts = (argValue('orders') ?? '0,1000,10000').split(',').map(Number);
  const idleSeconds = num('idle-seconds', 30);
  const upN = num('up', 30);
  const downN = num('down', 10);
  const orderRate = num('order-rate', 200);
  const floodSeconds = num('flood-seconds', 180);
  const floodRate = num('flood-rate', 2);
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
      const payOnce = () => payAndTimeToPaid(server.port, agent, buyerConnection(), buyer, net.mint, 50);
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
  if (floodSeconds > 0) await flood(price.url, floodSeconds, floodRate);
  price.close();
}

/** The flood scenario (see the header). */
async function flood(priceUrl: string, seconds: number, rate: number): Promise<void> {
  const net = await startLocalnetProcess({ publicLimits: true });
  const buyer = Keypair.generate();
  const attacker = Keypair.generate();
  await net.faucet(buyer.publicKey, 100, 10_000_000);
  await net.faucet(attacker.publicKey, 100, 10_000_000);
  const dir = mkdtempSync(join(tmpdir(), 'claim-bench-flood-'));
  const server = await startProductionServer({ rpcUrl: net.rpcUrl, wsUrl: net.wsUrl, priceUrl, dir });
  const agent = keepAliveAgent(64);
  let clients = 0;
  const connection = (name: string) =>
    new Connection(net.rpcUrl, {
      commitment: 'confirmed',
      httpHeaders: { 'x-localnet-client': `${name}-${++clients}` },
    });
  try {
    const first = await placeOrder(server.port, agent);
    const vendor = new PublicKey(first.recipient);
    const s0 = await server.stats();
    const t0 = Date.now();
    let flooding = true;
    let sent = 0;
    // The flood: `rate` transfers a second, each from the next attacker address (20 addresses in turn).
    const attackers = Array.from({ length: 20 }, () => connection('attacker'));
    const floodLoop = (async () => {
      let blockhash = await attackers[0]!.getLatestBlockhash('confirmed');
      let at = Date.now();
      while (flooding) {
        if (sent % 50 === 0) blockhash = await attackers[sent % 20]!.getLatestBlockhash('confirmed');
        const tx = new Transaction({ feePayer: attacker.publicKey, ...blockhash }).add(
          transferIx({
            from: attacker,
            recipientOwner: vendor,
            mint: net.mint,
            amount: BigInt(++sent),
            references: [],
          }),
        );
        tx.sign(attacker);
        void attackers[sent % 20]!.sendRawTransaction(tx.serialize(), { skipPreflight: true }).catch(
          () => undefined,
        );
        at += 1000 / rate;
        await new Promise((r) => setTimeout(r, Math.max(0, at - Date.now())));
      }
    })();
    // The dependency report every second: the backlog it reports and whether the watcher part stayed out of
    // 'failing' (readiness no longer depends on the watcher: GET /api/health/deps reports it).
    let maxBehind = 0;
    let lastBehind = 0;
    let notReady = 0;
    let probes = 0;
    const readiness = (async () => {
      while (flooding) {
        const r = await httpCall({ port: server.port, path: '/api/health/deps', agent, readBody: true });
        probes++;
        const watcher = (
          JSON.parse(r.body) as { parts?: { watcher?: { status?: string; behindTransfers?: number | null } } }
        ).parts?.watcher;
        if (r.status !== 200 || watcher?.status === 'failing') notReady++;
        lastBehind = watcher?.behindTransfers ?? 0;
        maxBehind = Math.max(maxBehind, lastBehind);
        await new Promise((res) => setTimeout(res, 1000));
      }
    })();
    // A real payment every 10 s, its page polling.
    const seen: number[] = [];
    while (Date.now() - t0 < seconds * 1000) {
      const next = Date.now() + 10_000;
      seen.push(await payAndTimeToPaid(server.port, agent, connection('buyer'), buyer, net.mint, 250));
      await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
    }
    flooding = false;
    await floodLoop;
    await readiness;
    const elapsed = (Date.now() - t0) / 1000;
    const s1 = await server.stats();
    seen.sort((a, b) => a - b);
    const f = (x: number) => (Number.isFinite(x) ? `${(x / 1000).toFixed(2)} s` : 'not seen in 60 s');
    console.log(
      `\nflood: ${sent} dust transfers in ${elapsed.toFixed(0)} s (${rate}/s), ${seen.length} payments`,
    );
    console.log(
      `  payment → paid: p50 ${f(percentile(seen, 50))}, p95 ${f(percentile(seen, 95))}, max ${f(seen[seen.length - 1] ?? NaN)}`,
    );
    console.log(
      `  server RPC: ${(((s1.requests - s0.requests) / elapsed) * 60).toFixed(0)} requests/min, ${s1.throttled - s0.throttled} × 429, ${s1.shed - s0.shed} shed, ${s1.deferred - s0.deferred} deferred; backlog max ${maxBehind}, at the end ${lastBehind}; watcher failing in ${notReady} of ${probes} dependency reports`,
    );
  } finally {
    agent.destroy();
    await server.stop();
    await net.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
