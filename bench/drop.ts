/**
 * The drop (issue 32, docs/decisions/drops.md): `npm run bench:drop`, a few minutes. Needs TEST_DATABASE_URL
 * (PostgreSQL). Options: `--buyers 1000 --units 20` (the drop), `--only spread|burst` (one arrival pattern),
 * `--instances 2|1` (one composition), `--no-settle`, `--lead-s 20` (from starting the instances to the start),
 * `--pool 64` (the load balancer's kept-alive connections to each instance, opened a second before the start),
 * `--warm-orders 40` (orders of another product made across the instances before the start: their order path warm,
 * as in a shop that has sold before the drop; `--warm-orders 0`: none, the 20 winners are each instance's first
 * orders, as when instances are started just before the drop).
 *
 * One run prints, in order:
 *   (a) 2 production instances, arrivals spread over 10 s;
 *   (b) 2 instances, all arrivals in the first second (a fresh drop);
 *   (c) after (a), the holders settle: all but 5 pay on the localnet, 5 do not and their pieces go to the next in line;
 *   (d) (a) and (b) on 1 instance, the baseline;
 * then a closing table, one line per run.
 *
 * Production instances (bench/lib/production-server.ts: request logging, every limit, the payment watcher,
 * TRUST_PROXY=1) on one PostgreSQL schema, against the local network with the public endpoint's limits, sell a drop
 * of `--units` (20) one-of-a-kind pieces, held 1 minute (the shortest hold the catalogue allows: whole minutes), to
 * `--buyers` (1,000) distinct buyers: each has its own client address (X-Forwarded-For, one proxy hop), its own
 * funded wallet and signs the hold message, and does what Buy Now does at its arrival time, open loop: POST
 * /api/quotes then POST /api/orders (alternating instances). Meanwhile GET /api/catalog, /api/stock and /api/price are
 * read at 40/s (open loop) across the instances.
 *
 * Printed for each run: held; refused, by what the shop last told each buyer (409 in words: `reserved`,
 * `drop_in_line`…), and every refused call by code; 5xx; transport errors; pool timeouts (the instances' logs);
 * the store (`on_hand`/`reserved` of the line, reservations by state, the stock log by kind and its last row, the
 * orders: they must agree); p50/p99/max of order attempts (quote → order), order calls, refusals, and the reads.
 *
 * (c): the payers' transfers on the localnet (each with its order's reference), then every refused buyer keeps the
 * page open (POST /api/drops/:id/line at the page's own pace, core/drop.ts pollMs) and clicks Buy Now once let
 * through. Checked: the payments confirmed on the localnet and the vendor's $CLAIM account up by exactly what the
 * orders asked, the payers' orders paid, and the store (sold = payers, released = 5, held = the next in line,
 * `on_hand`, `reserved`, the stock log's reserves, sales and releases and its last row). Printed: when each of the
 * next in line held their piece after the lapsed holds' deadline (a waiting buyer's read gives a lapsed hold back at
 * once; before, the release sweep every 30 s did).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
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
import { buyNow, call, fmt, pct, RunStats, sleep, warmOrder, type Buyer } from './lib/drop-buyers';
import { poolTimeouts, storeFacts, vacuumWithoutAutovacuum } from './lib/drop-store';
import { settle, type Settled } from './lib/drop-settle';
import { openStore } from '../src/server/store/store';

const args = process.argv.slice(2);
const BUYERS = Math.floor(cliNumber(args, 'buyers', 1000, 5000));
const UNITS = Math.floor(cliNumber(args, 'units', 20, 1000));
const READS_PER_S = 40;
/** The drop's hold: the shortest the catalogue allows (whole minutes, 1–15), so the lapsed holds come back soon. */
const HOLD_MINUTES = 1;
/** Seconds from forking the instances to the drop's start (they start together, then warm up). */
const LEAD_S = cliNumber(args, 'lead-s', 20, 600);
/**
 * Orders of another product made before the start, across the instances: 40 by default, as a shop that has sold
 * before the drop has run its order path; `--warm-orders 0`: none (instances started just before the drop).
 */
const WARM_ORDERS =
  cliArg(args, 'warm-orders') === '0' ? 0 : Math.floor(cliNumber(args, 'warm-orders', 40, 200));
/** Kept-alive connections the load balancer holds to each instance (opened before the start). */
const POOL = Math.floor(cliNumber(args, 'pool', 64, 1024));
const pgUrl = process.env.TEST_DATABASE_URL;

/** One line of the closing table per run. */
interface RunSummary {
  run: string;
  held: number;
  /** Buyers refused with a 4xx in words (their last answer), not by a 5xx or a transport error. */
  inWords: number;
  fiveHundreds: number;
  transport: number;
  pool: number;
  agree: boolean;
  attempts: number[];
  refusals: number[];
  catalogue: number[];
  price: number[];
}
const summary: RunSummary[] = [];
const settled: Settled[] = [];

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
  if (await vacuumWithoutAutovacuum(pgUrl ?? ''))
    console.log(
      '(autovacuum is off on this PostgreSQL: the database was vacuumed before this run, as autovacuum keeps it)',
    );
  const dir = mkdtempSync(join(tmpdir(), 'claim-drop-'));
  const schema = `bench_drop_${randomUUID().slice(0, 8)}`;
  // The start: far enough ahead for the instances to start (together) and warm up.
  const start = new Date(Date.now() + LEAD_S * 1000);
  start.setMilliseconds(0);
  const servers: ProductionServer[] = [];
  const logs = Array.from({ length: opts.instances }, (_, k) => `server-${k}.log`);
  try {
    // The release step once (`npm run migrate`), before the instances start: two instances migrating a new schema at
    // the same moment could both create it, and one of them exited (now and then, at the bench's start).
    await (await openStore({ kind: 'postgres', url: pgUrl ?? '', schema })).close();
    const started = await Promise.allSettled(
      logs.map((logName) =>
        startProductionServer({
          rpcUrl: net.rpcUrl,
          wsUrl: net.wsUrl,
          priceUrl,
          dir,
          pgUrl: pgUrl ?? '',
          schema,
          logName,
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
      ),
    );
    for (const r of started) if (r.status === 'fulfilled') servers.push(r.value);
    for (const r of started) if (r.status === 'rejected') throw r.reason;
    // The buyers come through the load balancer (one proxy hop, X-Forwarded-For), which keeps a pool of kept-alive
    // connections to each instance (`--pool`, 64 by default; nginx's `keepalive`, a cloud load balancer's
    // connection reuse) rather than opening one per buyer; opened just before the start (below).
    const agent = keepAliveAgent(POOL);
    // Warm-up: JIT, pools (reads and a quote of another product), then wait for the start.
    for (let k = 0; k < 60; k++) {
      const s = servers[k % servers.length]!;
      await call(s, agent, '192.0.2.1', 'GET', '/api/stock');
      await call(s, agent, '192.0.2.1', 'GET', '/api/catalog');
      await call(s, agent, `192.0.2.${k + 2}`, 'POST', '/api/quotes', {
        items: [{ productId: 'lilac-tiptop', quantity: 1 }],
      });
    }
    // --warm-orders: the order path warm too (one unfunded wallet per instance: one balance read each, no hold).
    const warmWallets = servers.map(() => Keypair.generate());
    for (let k = 0; k < WARM_ORDERS; k++)
      await warmOrder(
        servers[k % servers.length]!,
        agent,
        `192.0.3.${k + 2}`,
        warmWallets[k % servers.length]!,
        'lilac-tiptop',
      );
    // The balancer's connections, open (the instances close a kept-alive connection idle for 5 s): a second before.
    await sleep(start.getTime() - Date.now() - 1_000);
    if (POOL > 0)
      await Promise.all(
        servers.flatMap((s) =>
          Array.from({ length: POOL }, () => call(s, agent, '192.0.2.1', 'GET', '/api/catalog')),
        ),
      );
    const wait = start.getTime() - Date.now();
    if (wait < 0)
      console.log(
        `  (the instances were ready ${-wait} ms after the drop's start: give them more, --lead-s)`,
      );
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
    // The load generator's own event-loop delay: what it adds to every latency it measures.
    const lag = monitorEventLoopDelay({ resolution: 5 });
    lag.enable();
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
    lag.disable();
    const readLat = await reads;
    const facts = await storeFacts(pgUrl ?? '', schema);
    const held = buyers.filter((b) => b.order);
    const label = `${opts.instances} instance${opts.instances > 1 ? 's' : ''}, ${opts.spreadMs === 1000 ? 'all in the first second' : `spread over ${opts.spreadMs / 1000} s`}`;
    console.log(
      `${label}${WARM_ORDERS > 0 ? `, after ${WARM_ORDERS} warm-up orders` : ''} (load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores as it ended): ${opts.instances} production instance${opts.instances > 1 ? 's' : ''} on one PostgreSQL, ${BUYERS} buyers for ${UNITS} pieces`,
    );
    // Each refused buyer by the last thing the shop told them (a transport error: no answer).
    const byReason = new Map<string, number>();
    for (const b of buyers)
      if (!b.order) byReason.set(b.refused ?? 'no answer', (byReason.get(b.refused ?? 'no answer') ?? 0) + 1);
    const pool = poolTimeouts(dir, logs);
    console.log(
      `  held ${held.length}, refused ${BUYERS - held.length} (${[...byReason].map(([k, v]) => `${k} ${v}`).join(', ')}); 5xx ${stats.fiveHundreds}, transport errors ${stats.transportErrors}, pool timeouts in the logs ${pool}`,
    );
    console.log(
      `  refused calls by code (a buyer let through whose balance could not be read is told to click again, and does): ${[...stats.codes].map(([k, v]) => `${k}: ${v}`).join(', ')}`,
    );
    const agree =
      facts.onHand === UNITS &&
      facts.reserved === held.length &&
      (facts.states.held ?? 0) === held.length &&
      facts.reserves === held.length &&
      facts.last?.onHand === facts.onHand &&
      facts.last?.reserved === facts.reserved &&
      facts.orders === held.length;
    console.log(
      `  store: on_hand ${facts.onHand}, reserved ${facts.reserved}, reservations ${JSON.stringify(facts.states)}, stock log ${JSON.stringify(facts.kinds)} (last row on_hand ${facts.last?.onHand}, reserved ${facts.last?.reserved}), orders ${facts.orders}: ${agree ? 'agree' : 'DISAGREE'}; oversold ${Math.max(0, facts.reserved - UNITS)}, unsold while buyers waited ${UNITS - facts.reserved}`,
    );
    for (const [k, m] of stats.samples) console.log(`    ${k}: "${m}"`);
    for (const e of stats.errors) console.log(`    transport error, e.g. ${e}`);
    console.log(
      `  order attempts (Buy Now: quote → order, from its scheduled start): ${fmt(stats.attempts)}`,
    );
    console.log(`  order calls (POST /api/orders): ${fmt(stats.orderCalls)}`);
    console.log(`  refusals (each refused call): ${fmt(stats.refusals)}`);
    for (const [path, xs] of readLat)
      console.log(`  GET ${path} during the drop (${READS_PER_S}/s in all): ${fmt(xs)}`);
    console.log(
      `  the load generator's event-loop delay during the drop: p50 ${(lag.percentile(50) / 1e6).toFixed(1)} ms, p99 ${(lag.percentile(99) / 1e6).toFixed(1)} ms, max ${(lag.max / 1e6).toFixed(1)} ms`,
    );
    summary.push({
      run: label,
      held: held.length,
      inWords: buyers.filter((b) => !b.order && b.refused && !b.refused.startsWith('HTTP')).length,
      fiveHundreds: stats.fiveHundreds,
      transport: stats.transportErrors,
      pool,
      agree,
      attempts: stats.attempts,
      refusals: stats.refusals,
      catalogue: readLat.get('/api/catalog') ?? [],
      price: readLat.get('/api/price') ?? [],
    });

    if (opts.settle) settled.push(await settle(net, buyers, agent, pgUrl ?? '', schema));
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
    printSummary();
  } finally {
    price.close();
    await net.close();
  }
}

/** The closing table: one line per run (p50 / p99 / max in ms), then the settling. */
function printSummary(): void {
  const ms = (xs: number[]) =>
    xs.length === 0
      ? '-'
      : `${pct(xs, 50).toFixed(0)} / ${pct(xs, 99).toFixed(0)} / ${Math.max(...xs).toFixed(0)}`;
  console.log('\nSummary (p50 / p99 / max, ms)');
  console.log(
    '| run | held | refused in words | 5xx | transport errors | pool timeouts | store agrees | order attempts | refusals | catalogue reads | price reads |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const r of summary)
    console.log(
      `| ${r.run} | ${r.held} | ${r.inWords} | ${r.fiveHundreds} | ${r.transport} | ${r.pool} | ${r.agree ? 'yes' : 'NO'} | ${ms(r.attempts)} | ${ms(r.refusals)} | ${ms(r.catalogue)} | ${ms(r.price)} |`,
    );
  for (const s of settled)
    console.log(
      `then (2 instances, spread): ${s.paid} paid (${s.confirmedOnChain} confirmed on the localnet, received/due ${s.receivedOverDue} base units), ${s.lapsed} lapsed and went to ${s.nextInLine} buyers next in line ${s.afterDeadlineS.map((x) => x.toFixed(1)).join(', ')} s after the holds' deadline; store ${s.agree ? 'agrees' : 'DISAGREES'}`,
    );
}

await main();
