/**
 * bench:drop's buyers (../drop.ts): one call with its client address, Buy Now (a quote, then an order with the
 * wallet's proof), and the counts and latencies of a run.
 */
import { randomUUID } from 'node:crypto';
import type { Keypair } from '@solana/web3.js';
import { httpCall, keepAliveAgent, percentile } from './load';
import { BENCH_DROP, type ProductionServer } from './production';
import { INTERNATIONAL_SHIPPING } from '../../test/support/fixtures';
import { proofOf } from '../../test/support/hold-proof';
import type { OrderCreated, QuoteResponse } from '../../src/core/api';

const JSON_HEADERS = { 'content-type': 'application/json' };

export interface Call {
  status: number;
  code?: string;
  ms: number;
  body: string;
}

export interface Buyer {
  i: number;
  ip: string;
  wallet: Keypair;
  server: ProductionServer;
  order?: OrderCreated;
  /** What the last refusal said (its error code). */
  refused?: string;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
export const pct = (xs: number[], p: number) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    p,
  );
export const fmt = (xs: number[]) =>
  xs.length === 0
    ? 'none'
    : `n ${xs.length}, p50 ${pct(xs, 50).toFixed(1)} ms, p99 ${pct(xs, 99).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms`;

export async function call(
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

/** A refusal's code (409 `reserved`…), or `HTTP 5xx` when the shop failed rather than refused. */
const refusal = (c: Call) => (c.status < 500 && c.code ? c.code : `HTTP ${c.status}`);

/** Buy Now: a quote, then an order with the wallet's proof. */
export async function buyNow(
  b: Buyer,
  agent: ReturnType<typeof keepAliveAgent>,
  stats: RunStats,
): Promise<void> {
  const t0 = performance.now();
  // The connected wallet goes with the quote, as Buy Now sends it.
  const q = await call(b.server, agent, b.ip, 'POST', '/api/quotes', {
    items: [{ productId: BENCH_DROP, quantity: 1 }],
    wallet: b.wallet.publicKey.toBase58(),
  });
  stats.note(q);
  if (q.status !== 200) {
    b.refused = refusal(q);
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
  } else b.refused = refusal(o);
}

/**
 * Warm-up (`--warm-orders`): one order of another product (not the drop) through the whole order path, as a shop
 * that has sold before the drop would have run it. `wallet` is the same unfunded wallet for all of an instance's
 * warm-up orders (its balance is read once, then cached, so the warm-up spends no more of the RPC budget than one
 * read): the orders hold nothing. A quote refused while the instance's price is not read yet is asked again.
 */
export async function warmOrder(
  server: ProductionServer,
  agent: ReturnType<typeof keepAliveAgent>,
  ip: string,
  wallet: Keypair,
  productId: string,
): Promise<void> {
  const ask = () =>
    call(server, agent, ip, 'POST', '/api/quotes', {
      items: [{ productId, quantity: 1 }],
      wallet: wallet.publicKey.toBase58(),
    });
  let q = await ask();
  for (let k = 0; k < 40 && q.status === 503; k++) {
    await sleep(250);
    q = await ask();
  }
  if (q.status !== 200) throw new Error(`warm-up quote: HTTP ${q.status} ${q.body.slice(0, 160)}`);
  const quote = JSON.parse(q.body) as QuoteResponse;
  const o = await call(
    server,
    agent,
    ip,
    'POST',
    '/api/orders',
    {
      quote: quote.quote,
      shipping: INTERNATIONAL_SHIPPING,
      paymentMethod: 'wallet',
      payer: proofOf(wallet, quote.reference),
    },
    { 'idempotency-key': randomUUID() },
  );
  if (o.status !== 201) throw new Error(`warm-up order: HTTP ${o.status} ${o.body.slice(0, 160)}`);
}

export class RunStats {
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
