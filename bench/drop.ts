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
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection, Keypair, PublicKey, Transaction } from '@solana/web3.js';
import { createTransferCheckedInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { cliArg, cliNumber, httpCall, keepAliveAgent, percentile } from './lib/load';
import {
  BENCH_DROP,
  startLocalnetProcess,
  startPriceFeed,
  startProductionServer,
  type LocalnetProcess,
  type ProductionServer,
} from './lib/production';
import { INTERNATIONAL_SHIPPING } from '../test/support/fixtures';
import { proofOf } from '../test/support/hold-proof';
import { pollMs } from '../src/core/drop';
import type { DropLineResponse, OrderCreated, QuoteResponse } from '../src/core/api';

const args = process.argv.slice(2);
const BUYERS = Math.floor(cliNumber(args, 'buyers', 1000, 5000));
const UNITS = Math.floor(cliNumber(args, 'units', 20, 1000));
const PAYERS_WHO_DO_NOT_PAY = 5;
const READS_PER_S = 40;
const HOLD_MINUTES = 1;
const pgUrl = process.env.TEST_DATABASE_URL;

const JSON_HEADERS = { 'content-type': 'application/json' };
const ipOf = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

interface Call {
  status: number;
  code?: string;
  ms: number;
  body: string;
}

interface Buyer {
  i: number;
  ip: string;
  wallet: Keypair;
  server: ProductionServer;
  order?: OrderCreated;
  /** What the last refusal said (its error code). */
  refused?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
const pct = (xs: number[], p: number) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    p,
  );
const fmt = (xs: number[]) =>
  xs.length === 0
    ? 'none'
    : `n ${xs.length}, p50 ${pct(xs, 50).toFixed(1)} ms, p99 ${pct(xs, 99).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms`;

async function call(
  server: ProductionServer,
  agent: ReturnType<typeof keepAliveAgent>,
  ip: string,
  method: 'GET' | 'POST',
  path: string,
  body?: object,
  headers: Record<string, string> = {},
): Promise<Call> {
  const t0 = performance.now();
  const r = await httpCall({
    port: server.port,
    path,
    method,
    headers: { ...(body ? JSON_HEADERS : {}), 'x-forwarded-for': ip, ...headers },
    ...(body ? { body: JSON.stringify(body) } : {}),
    agent,
    readBody: true,
  });
  const ms = performance.now() - t0;
  let code: string | undefined;
  if (r.status >= 400)
    try {
      code = (JSON.parse(r.body) as { error?: string }).error;
    } catch {
      code = undefined;
    }
  return { status: r.status, ms, body: r.body, ...(code ? { code } : {}) };
}

/** Buy Now: a quote, then an order with the wallet's proof. */
async function buyNow(b: Buyer, agent: ReturnType<typeof keepAliveAgent>, stats: RunStats): Promise<void> {
  const t0 = performance.now();
  const q = await call(b.server, agent, b.ip, 'POST', '/api/quotes', {
    items: [{ productId: BENCH_DROP, quantity: 1 }],
  });
  stats.note(q);
  if (q.status !== 200) {
    b.refused = q.code;
    stats.attempts.push(performance.now() - t0);
    return;
  }
  const quote = JSON.parse(q.body) as QuoteResponse;
  const o = await call(
    b.server,
    agent,
    b.ip,
    'POST',
    '/api/orders',
    {
      quote: quote.quote,
      shipping: INTERNATIONAL_SHIPPING,
      paymentMethod: 'wallet',
      payer: proofOf(b.wallet, quote.reference),
    },
    { 'idempotency-key': randomUUID() },
  );
  stats.note(o);
  stats.orderCalls.push(o.ms);
  stats.attempts.push(performance.now() - t0);
  if (o.status === 201) {
    b.order = JSON.parse(o.body) as OrderCreated;
    b.refused = undefined;
  } else b.refused = o.code;
}

class RunStats {
  attempts: number[] = [];
  orderCalls: number[] = [];
  refusals: number[] = [];
  codes = new Map<string, number>();
  /** The first answer of each refusal code, in words. */
  samples = new Map<string, string>();
  fiveHundreds = 0;
  transportErrors = 0;
  errors: string[] = [];
  fail = (e: unknown) => {
    this.transportErrors++;
    if (this.errors.length < 3) this.errors.push(e instanceof Error ? `${e.name}: ${e.message}` : String(e));
  };
  note(c: Call) {
    if (c.status >= 500) this.fiveHundreds++;
    if (c.status >= 400 && c.status < 500) {
      this.refusals.push(c.ms);
      const k = `${c.status} ${c.code ?? '?'}`;
      this.codes.set(k, (this.codes.get(k) ?? 0) + 1);
      if (!this.samples.has(k)) {
        let message = c.body.slice(0, 160);
        try {
          message = (JSON.parse(c.body) as { message?: string }).message ?? message;
        } catch {
          /* not JSON */
        }
        this.samples.set(k, message);
      }
    }
  }
}

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

async function storeFacts(schema: string) {
  const { openStore } = await import('../src/server/store/store');
  const store = await openStore({ kind: 'postgres', url: pgUrl ?? '', schema });
  try {
    const line = await store.db
      .selectFrom('stock')
      .select(['on_hand', 'reserved'])
      .where('product_id', '=', BENCH_DROP)
      .executeTakeFirstOrThrow();
    const res = await store.db
      .selectFrom('reservations')
      .select(['state', (eb) => eb.fn.countAll<number>().as('n')])
      .where('product_id', '=', BENCH_DROP)
      .groupBy('state')
      .execute();
    const log = await store.db
      .selectFrom('stock_changes')
      .select(['kind', 'on_hand_after', 'reserved_after', 'seq'])
      .where('product_id', '=', BENCH_DROP)
      .orderBy('seq')
      .execute();
    const orders = await store.db
      .selectFrom('orders')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('items_json', 'like', `%${BENCH_DROP}%`)
      .executeTakeFirstOrThrow();
    const states = Object.fromEntries(res.map((r) => [r.state, Number(r.n)]));
    return {
      onHand: Number(line.on_hand),
      reserved: Number(line.reserved),
      states,
      reserves: log.filter((l) => l.kind === 'reserve').length,
      last: log.at(-1),
      orders: Number(orders.n),
    };
  } finally {
    await store.close();
  }
}

function poolTimeouts(dir: string, names: string[]): number {
  let n = 0;
  for (const name of names) {
    try {
      n += readFileSync(join(dir, name), 'utf8')
        .split('\n')
        .filter((l) =>
          /timeout exceeded when trying to connect|pool.*timeout|Connection terminated/i.test(l),
        ).length;
    } catch {
      /* no log */
    }
  }
  return n;
}

async function pay(net: LocalnetProcess, b: Buyer): Promise<void> {
  const order = b.order!;
  const connection = new Connection(net.rpcUrl, 'confirmed');
  const mint = new PublicKey(order.mint);
  const ix = createTransferCheckedInstruction(
    getAssociatedTokenAddressSync(mint, b.wallet.publicKey),
    mint,
    getAssociatedTokenAddressSync(mint, new PublicKey(order.recipient), true),
    b.wallet.publicKey,
    BigInt(order.amountBaseUnits ?? '0'),
    6,
  );
  ix.keys.push({ pubkey: new PublicKey(order.reference), isSigner: false, isWritable: false });
  const latest = await connection.getLatestBlockhash('confirmed');
  const tx = new Transaction({ feePayer: b.wallet.publicKey, ...latest }).add(ix);
  tx.sign(b.wallet);
  await connection.sendRawTransaction(tx.serialize());
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
    const facts = await storeFacts(schema);
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

    if (opts.settle) await settle(net, buyers, agent, schema);
    agent.destroy();
  } finally {
    for (const s of servers.reverse()) await s.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The holders settle: 15 pay, 5 do not; those waiting keep the page open and buy once let through. */
async function settle(
  net: LocalnetProcess,
  buyers: Buyer[],
  agent: ReturnType<typeof keepAliveAgent>,
  schema: string,
): Promise<void> {
  const holders = buyers.filter((b) => b.order);
  const payers = holders.slice(PAYERS_WHO_DO_NOT_PAY);
  const lapsing = holders.slice(0, PAYERS_WHO_DO_NOT_PAY);
  for (const b of payers) await pay(net, b);
  const deadline = Math.max(...lapsing.map((b) => Date.parse(b.order!.expiresAt)));
  const waiting = buyers.filter((b) => !b.order);
  const secondWave: { b: Buyer; at: number; ahead: number }[] = [];
  const stats = new RunStats();
  let polls = 0;
  const stopAt = deadline + 75_000; // the hold's deadline, the 30 s release sweep, the pages' next asks
  await Promise.all(
    waiting.map(async (b) => {
      let ahead = 0;
      while (Date.now() < stopAt && secondWave.length < lapsing.length) {
        await sleep(pollMs(ahead) * (0.5 + Math.random() / 2));
        const r = await call(b.server, agent, b.ip, 'POST', `/api/drops/${BENCH_DROP}/line`).catch(
          () => undefined,
        );
        polls++;
        if (!r || r.status !== 200) continue;
        const place = (JSON.parse(r.body) as DropLineResponse).place;
        if (place.state === 'waiting') ahead = place.ahead;
        if (place.state === 'done') return;
        if (place.state !== 'through') continue;
        await buyNow(b, agent, stats).catch(() => undefined);
        for (let k = 0; k < 10 && b.refused === 'drop_needs_hold'; k++) {
          await sleep(1_000);
          await buyNow(b, agent, stats).catch(() => undefined);
        }
        if (b.order) return void secondWave.push({ b, at: Date.now(), ahead });
      }
    }),
  );
  // The payers' orders: paid?
  const statuses = new Map<string, number>();
  for (const b of payers) {
    const r = await call(b.server, agent, b.ip, 'GET', `/api/orders/${b.order!.orderId}`);
    const st = r.status === 200 ? (JSON.parse(r.body) as { status: string }).status : `HTTP ${r.status}`;
    statuses.set(st, (statuses.get(st) ?? 0) + 1);
  }
  const facts = await storeFacts(schema);
  console.log(
    `  then: ${payers.length} holders paid on the localnet (their orders now: ${JSON.stringify(Object.fromEntries(statuses))}), ${lapsing.length} did not; their holds lapsed at ${new Date(deadline).toISOString().slice(11, 19)} UTC`,
  );
  console.log(
    `  the waiting pages asked ${polls} times; ${secondWave.length} let through and held (their place when last seen waiting: ${secondWave
      .map((x) => `${x.ahead} ahead`)
      .join(
        ', ',
      )}), ${secondWave.map((x) => ((x.at - deadline) / 1000).toFixed(1)).join(' s, ')} s after the holds' deadline (the release sweep runs every 30 s)`,
  );
  console.log(
    `  store: on_hand ${facts.onHand}, reserved ${facts.reserved}, reservations ${JSON.stringify(facts.states)}, orders ${facts.orders}`,
  );
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
