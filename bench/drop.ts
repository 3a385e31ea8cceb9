/**
 * The drop (issue 32): `npm run bench:drop [-- --buyers 1000 --units 20 --only spread|burst --instances 2]`.
 * Needs TEST_DATABASE_URL (PostgreSQL).
 *
 * Two production instances (bench/lib/production-server.ts: request logging, every limit, the payment watcher,
 * TRUST_PROXY=1) on one PostgreSQL schema, against the local network with the public endpoint's limits, sell a drop
 * of `--units` (20) one-of-a-kind pieces (held 1 minute) to `--buyers` (1,000) distinct buyers: each has its own
 * client address (X-Forwarded-For, one proxy hop), its own funded wallet and signs the hold message, and does what
 * Buy Now does at its arrival time, open loop: POST /api/quotes then POST /api/orders (alternating instances).
 * Arrivals are spread evenly over 10 s from the start, then (a fresh drop) all within its first second. Meanwhile
 * GET /api/catalog, /api/stock and /api/price are read at 40/s (open loop) on both instances.
 *
 * Checked after each run, in the store: orders holding stock, `on_hand`/`reserved` of the line, the stock log's
 * reserves and its last row agree; every refusal is a 409 in words (its code counted); 5xx and transport errors.
 *
 * Then (first run only) the 20 holders settle: 15 pay on the localnet (the watcher sells), 5 do not. Every refused
 * buyer keeps the page open (POST /api/drops/:id/line at the page's own pace, core/drop.ts pollMs) and clicks Buy
 * Now once let through: the 5 lapsed pieces go to the next 5 in line. Printed: when each was held again after its
 * hold's deadline, and who (their arrival number).
 *
 * The same is printed for one instance as the baseline (`--instances 1` alone).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { cliArg, cliNumber, httpCall, keepAliveAgent } from './lib/load';
import {
  startLocalnetProcess,
  startPriceFeed,
  startProductionServer,
  type LocalnetProcess,
  type ProductionServer,
} from './lib/production';
import { buyNow, call, fmt, RunStats, sleep, type Buyer } from './lib/drop-buyers';
import { poolTimeouts, storeFacts } from './lib/drop-store';
import { settle } from './lib/drop-settle';

const args = process.argv.slice(2);
const BUYERS = Math.floor(cliNumber(args, 'buyers', 1000, 5000));
const UNITS = Math.floor(cliNumber(args, 'units', 20, 1000));
const READS_PER_S = 40;
const HOLD_MINUTES = 1;
const pgUrl = process.env.TEST_DATABASE_URL;

const ipOf = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

async function fund(net: LocalnetProcess, wallets: Keypair[]): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < wallets.length) {
        const w = wallets[next++]!;
        await net.faucet(w.publicKey, 1, 100_000);
      }
    }),
  );
}

/** Reads at a fixed rate on every instance until `until()`; latencies per path. */
async function readsMeanwhile(
  servers: ProductionServer[],
  agent: ReturnType<typeof keepAliveAgent>,
  stop: { done: boolean },
): Promise<Map<string, number[]>> {
  const paths = ['/api/catalog', '/api/stock', '/api/price'];
  const out = new Map(paths.map((p) => [p, [] as number[]]));
  const pending: Promise<void>[] = [];
  const t0 = performance.now();
  for (let i = 0; !stop.done; i++) {
    const at = t0 + (i * 1000) / READS_PER_S;
    await sleep(at - performance.now());
    const path = paths[i % paths.length]!;
    const server = servers[i % servers.length]!;
    pending.push(
      (async () => {
        const s = performance.now();
        const r = await httpCall({
          port: server.port,
          path,
          agent,
          headers: { 'accept-encoding': 'identity' },
        });
        if (r.status === 200) out.get(path)!.push(performance.now() - at);
        else out.get(path)!.push(Number.POSITIVE_INFINITY);
        void s;
      })().catch(() => void out.get(path)!.push(Number.POSITIVE_INFINITY)),
    );
  }
  await Promise.all(pending);
  return out;
}

async function run(
  net: LocalnetProcess,
  priceUrl: string,
  wallets: Keypair[],
  opts: { instances: number; spreadMs: number; settle: boolean },
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'claim-drop-'));
  const schema = `bench_drop_${randomUUID().slice(0, 8)}`;
  // The start: far enough ahead for the instances to start and warm up.
  const start = new Date(Date.now() + 25_000 * opts.instances);
  start.setMilliseconds(0);
  const servers: ProductionServer[] = [];
  const logs: string[] = [];
  try {
    for (let k = 0; k < opts.instances; k++) {
      logs.push(`server-${k}.log`);
      servers.push(
        await startProductionServer({
          rpcUrl: net.rpcUrl,
          wsUrl: net.wsUrl,
          priceUrl,
          dir,
          pgUrl: pgUrl ?? '',
          schema,
          logName: `server-${k}.log`,
          extraArgs: [
            '--drop-start',
            start.toISOString(),
            '--drop-units',
            String(UNITS),
            '--drop-hold-minutes',
            String(HOLD_MINUTES),
            '--trust-proxy',
            '1',
          ],
        }),
      );
    }
    const agent = keepAliveAgent(512);
    // Warm-up: JIT, pools (reads and a quote of another product), then wait for the start.
    for (let k = 0; k < 60; k++) {
      const s = servers[k % servers.length]!;
      await call(s, agent, '192.0.2.1', 'GET', '/api/stock');
      await call(s, agent, '192.0.2.1', 'GET', '/api/catalog');
      await call(s, agent, `192.0.2.${k + 2}`, 'POST', '/api/quotes', {
        items: [{ productId: 'lilac-tiptop', quantity: 1 }],
      });
    }
    const wait = start.getTime() - Date.now();
    if (wait < 0) console.log(`  (the instances started ${-wait} ms after the drop's start)`);
    await sleep(wait);

    const buyers: Buyer[] = wallets.slice(0, BUYERS).map((wallet, i) => ({
      i,
      ip: ipOf(i + 1),
      wallet,
      server: servers[i % servers.length]!,
    }));
    const stats = new RunStats();
    const stop = { done: false };
    const reads = readsMeanwhile(servers, agent, stop);
    const t0 = performance.now();
    await Promise.all(
      buyers.map(async (b) => {
        await sleep(t0 + (b.i * opts.spreadMs) / BUYERS - performance.now());
        await buyNow(b, agent, stats).catch(stats.fail);
        // Let through, but the wallet's $CLAIM could not be checked just now: Buy Now again, as the words say.
        for (let k = 0; k < 10 && b.refused === 'drop_needs_hold'; k++) {
          await sleep(1_000);
          await buyNow(b, agent, stats).catch(stats.fail);
        }
      }),
    );
    stop.done = true;
    const readLat = await reads;
    const facts = await storeFacts(pgUrl ?? '', schema);
    const held = buyers.filter((b) => b.order);
    const title = `(load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores as it ended) ${opts.instances} instance${opts.instances > 1 ? 's' : ''} on one PostgreSQL, ${BUYERS} buyers for ${UNITS} pieces, arrivals ${opts.spreadMs === 1000 ? 'all in the first second' : `spread over ${opts.spreadMs / 1000} s`}`;
    console.log(title);
    console.log(
      `  held ${held.length}, refused ${BUYERS - held.length}; refusals by code (a buyer let through whose balance could not be read tries again) (${[...stats.codes].map(([k, v]) => `${k}: ${v}`).join(', ')}), 5xx ${stats.fiveHundreds}, transport errors ${stats.transportErrors}, pool timeouts in the logs ${poolTimeouts(dir, logs)}`,
    );
    const agree =
      facts.onHand === UNITS &&
      facts.reserved === held.length &&
      (facts.states.held ?? 0) === held.length &&
      facts.reserves === held.length &&
      Number(facts.last?.reserved_after) === held.length &&
      facts.orders === held.length;
    console.log(
      `  store: on_hand ${facts.onHand}, reserved ${facts.reserved}, reservations ${JSON.stringify(facts.states)}, stock log reserves ${facts.reserves} (last row reserved_after ${facts.last?.reserved_after}), orders ${facts.orders}: ${agree ? 'agree' : 'DISAGREE'}; oversold ${Math.max(0, facts.reserved - UNITS)}, unsold while buyers waited ${UNITS - facts.reserved}`,
    );
    for (const [k, m] of stats.samples) console.log(`    ${k}: "${m}"`);
    for (const e of stats.errors) console.log(`    transport error, e.g. ${e}`);
    console.log(`  Buy Now (quote → order, from its scheduled start): ${fmt(stats.attempts)}`);
    console.log(`  order call: ${fmt(stats.orderCalls)}`);
    console.log(`  refusals (each refused call): ${fmt(stats.refusals)}`);
    for (const [path, xs] of readLat)
      console.log(`  GET ${path} during the drop (${READS_PER_S}/s in all): ${fmt(xs)}`);

    if (opts.settle) await settle(net, buyers, agent, pgUrl ?? '', schema);
    agent.destroy();
  } finally {
    for (const s of servers.reverse()) await s.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  if (!pgUrl) {
    console.log('bench:drop needs PostgreSQL: set TEST_DATABASE_URL');
    process.exitCode = 1;
    return;
  }
  const only = cliArg(args, 'only');
  const instancesOnly = cliArg(args, 'instances');
  console.log(
    `bench:drop ${new Date().toISOString()} — production composition (request logging, limits, payment watcher), localnet with public limits, load generator on the same cores`,
  );
  const net = await startLocalnetProcess({ publicLimits: true });
  const price = await startPriceFeed();
  try {
    const wallets = Array.from({ length: BUYERS }, () => Keypair.generate());
    const t = performance.now();
    await fund(net, wallets);
    console.log(`(${BUYERS} buyer wallets funded in ${((performance.now() - t) / 1000).toFixed(1)} s)`);
    for (const instances of instancesOnly ? [Number(instancesOnly)] : [2, 1])
      for (const spreadMs of only === 'burst' ? [1000] : only === 'spread' ? [10_000] : [10_000, 1000])
        await run(net, price.url, wallets, {
          instances,
          spreadMs,
          settle: instances === 2 && spreadMs === 10_000 && !args.includes('--no-settle'),
        });
  } finally {
    price.close();
    await net.close();
  }
}

await main();
