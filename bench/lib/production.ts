/**
 * What the chain-facing benchmarks share: the local network (public RPC limits) in its own process, a
 * DexScreener-shaped price feed, the store in the production composition in another process
 * (./production-server.ts), open orders seeded as copies of a real one, and a buyer placing orders over HTTP.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Agent } from 'node:http';
import { Keypair, PublicKey } from '@solana/web3.js';
import { httpCall } from './load';
import { INTERNATIONAL_SHIPPING } from '../../test/support/fixtures';
import type { StoreConfig } from '../../src/server/store/store';

export const BENCH_PAIR = 'Bv1G7m4nQ7XXxz8v7K2o2Jm1cU6vGk5y9V4K3Qn8ZbQ1';
/** A wallet product of the demo catalogue; the server child stocks it for the whole run. */
export const BENCH_PRODUCT = 'lilac-tiptop';
/** bench:drop's drop (./production-server.ts --drop-start): a copy of the bench product with its own pieces. */
export const BENCH_DROP = 'bench-drop';

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(t);
      resolve();
    });
    child.disconnect();
  });
}

function request<T>(child: ChildProcess, msg: object, pick: (m: Record<string, unknown>) => T | undefined) {
  return new Promise<T>((resolve) => {
    const on = (m: Record<string, unknown>) => {
      const v = pick(m);
      if (v === undefined) return;
      child.off('message', on);
      resolve(v);
    };
    child.on('message', on);
    child.send(msg);
  });
}

export interface LocalnetProcess {
  rpcUrl: string;
  wsUrl: string;
  mint: PublicKey;
  pid: number;
  subscriptionCount(): Promise<number>;
  setWebSocketDown(down: boolean): Promise<void>;
  faucet(address: PublicKey, sol: number, claim: number): Promise<void>;
  close(): Promise<void>;
}

/** A fresh local network (400 ms slots) in its own process; `publicLimits` = the public endpoint's limits. */
export async function startLocalnetProcess(opts: { publicLimits: boolean }): Promise<LocalnetProcess> {
  const child = fork(here('./localnet-child.ts'), opts.publicLimits ? ['--public-limits'] : [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const ready = await new Promise<{ rpcUrl: string; wsUrl: string; mint: string }>((resolve, reject) => {
    child.once('message', (m: { ready?: { rpcUrl: string; wsUrl: string; mint: string } }) =>
      m.ready ? resolve(m.ready) : reject(new Error('localnet sent no address')),
    );
    child.once('exit', (code) => reject(new Error(`localnet exited (${code})`)));
  });
  let id = 0;
  return {
    rpcUrl: ready.rpcUrl,
    wsUrl: ready.wsUrl,
    mint: new PublicKey(ready.mint),
    pid: child.pid ?? 0,
    subscriptionCount: () => {
      const n = ++id;
      return request(child, { id: n, subs: true }, (m) => (m.id === n ? (m.subs as number) : undefined));
    },
    setWebSocketDown: async (down) => {
      const n = ++id;
      await request(child, { id: n, wsDown: down }, (m) => (m.id === n ? true : undefined));
    },
    faucet: async (address, sol, claim) => {
      const res = await fetch(`${ready.rpcUrl}/faucet`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-localnet-client': 'bench-faucet' },
        body: JSON.stringify({ address: address.toBase58(), sol, claim }),
      });
      if (!res.ok) throw new Error(`faucet ${res.status}: ${await res.text()}`);
    },
    close: () => stopChild(child),
  };
}

/** A DexScreener-shaped price feed on 127.0.0.1 (the demo feed's answer, always fresh). */
export async function startPriceFeed(): Promise<{ url: string; close(): void }> {
  const { demoPairsResponse } = await import('../../src/server/price/demo-feed');
  const price = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(demoPairsResponse(BENCH_PAIR, Date.now())));
  });
  await new Promise<void>((r) => price.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(price.address() as AddressInfo).port}`, close: () => price.close() };
}

export interface RpcStats {
  requests: number;
  throttled: number;
  errors: number;
  shed: number;
  /** The watcher's judging asked again later (not lost). */
  deferred: number;
}

export interface ProductionServer {
  port: number;
  pid: number;
  /** Where its data lives (to seed open orders). */
  store: StoreConfig;
  stats(): Promise<RpcStats>;
  stop(): Promise<void>;
}

/** The production composition in its own process; its log (request logging on) goes to `dir/server.log`. */
export async function startProductionServer(opts: {
  rpcUrl: string;
  wsUrl: string;
  priceUrl: string;
  dir: string;
  pgUrl?: string;
  /** The PostgreSQL schema (default a fresh one): instances given the same one share the store. */
  schema?: string;
  nodeArgs?: string[];
  /** More arguments for ./production-server.ts (e.g. a drop: --drop-start, --drop-units, --trust-proxy). */
  extraArgs?: string[];
  /** Its log file's name in `dir` (default server.log). */
  logName?: string;
}): Promise<ProductionServer> {
  const log = join(opts.dir, opts.logName ?? 'server.log');
  const out = openSync(log, 'a');
  const schema = opts.schema ?? `bench_${randomBytes(4).toString('hex')}`;
  const child = fork(
    here('./production-server.ts'),
    [
      '--rpc',
      opts.rpcUrl,
      '--ws',
      opts.wsUrl,
      '--price',
      opts.priceUrl,
      '--dir',
      opts.dir,
      ...(opts.pgUrl ? ['--pg-url', opts.pgUrl, '--schema', schema] : []),
      ...(opts.extraArgs ?? []),
    ],
    { execArgv: ['--import', 'tsx', ...(opts.nodeArgs ?? [])], stdio: ['ignore', out, out, 'ipc'] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { port?: number }) =>
      m.port ? resolve(m.port) : reject(new Error('no port')),
    );
    child.once('exit', (code) => reject(new Error(`server exited (${code}); see ${log}`)));
  });
  return {
    port,
    pid: child.pid ?? 0,
    store: opts.pgUrl
      ? { kind: 'postgres', url: opts.pgUrl, schema }
      : { kind: 'sqlite', file: join(opts.dir, 'store.sqlite') },
    stats: () => request(child, { stats: true }, (m) => m.rpc as RpcStats | undefined),
    stop: () => stopChild(child),
  };
}

export interface PlacedOrder {
  orderId: string;
  reference: string;
  amount: bigint;
  recipient: string;
}

const JSON_HEADERS = { 'content-type': 'application/json' };

/** POST /api/quotes for one unit of the bench product; the signed quote. */
export async function quote(port: number, agent: Agent): Promise<string> {
  const q = await httpCall({
    port,
    path: '/api/quotes',
    method: 'POST',
    headers: { ...JSON_HEADERS, 'idempotency-key': randomUUID() },
    body: JSON.stringify({ items: [{ productId: BENCH_PRODUCT, quantity: 1 }] }),
    agent,
    readBody: true,
  });
  if (q.status !== 200) throw new Error(`quote ${q.status}: ${q.body.slice(0, 200)}`);
  return (JSON.parse(q.body) as { quote: string }).quote;
}

/** POST /api/orders on a signed quote (a fresh Idempotency-Key, valid shipping). */
export function postOrder(port: number, agent: Agent, signedQuote: string) {
  return httpCall({
    port,
    path: '/api/orders',
    method: 'POST',
    headers: { ...JSON_HEADERS, 'idempotency-key': randomUUID() },
    body: JSON.stringify({ quote: signedQuote, shipping: INTERNATIONAL_SHIPPING, paymentMethod: 'wallet' }),
    agent,
    readBody: true,
  });
}

/** Quote + order, as the wallet checkout does. */
export async function placeOrder(port: number, agent: Agent): Promise<PlacedOrder> {
  const o = await postOrder(port, agent, await quote(port, agent));
  if (o.status !== 201) throw new Error(`order ${o.status}: ${o.body.slice(0, 200)}`);
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
}

/**
 * `n` open orders awaiting payment: copies of a real one placed through the API, each with its own reference
 * (and order page token), written straight into the store in batches.
 */
export async function seedOpenOrders(server: ProductionServer, agent: Agent, n: number): Promise<void> {
  if (n <= 0) return;
  const first = await placeOrder(server.port, agent);
  const { openStore } = await import('../../src/server/store/store');
  const store = await openStore(server.store);
  try {
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
  } finally {
    await store.close();
  }
}
