import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  budgetedFetch,
  budgetRetryInMs,
  retryAfterMs,
  RpcBudget,
  RpcBudgetExhaustedError,
  rpcBackground,
  rpcPriority,
} from './budget';
import { PaymentRpcError } from './rpc';

function maxInAnyWindow(times: number[], windowMs: number): number {
  let max = 0;
  for (let i = 0; i < times.length; i++) {
    const start = times[i] ?? 0;
    max = Math.max(max, times.filter((t) => t >= start && t < start + windowMs).length);
  }
  return max;
}

describe('RpcBudget', () => {
  it('never lets more than perWindow requests (nor perMethod of one method) out in any window', async () => {
    // A fake clock: the times read after each grant are the grant's own, however loaded the machine is (on the
    // wall clock a grant's callback can run a few ms late and seem to share a window with the next ones).
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    const budget = new RpcBudget({ perWindow: 6, windowMs: 300, perMethod: 4 });
    const at: { t: number; m: string }[] = [];
    const all = Promise.all(
      Array.from({ length: 14 }, (_, i) => {
        const m = i % 3 === 0 ? 'getSignatureStatuses' : 'getTransaction';
        return budget.acquire([m]).then(() => at.push({ t: Date.now(), m }));
      }),
    );
    await vi.runAllTimersAsync();
    await all;
    vi.useRealTimers();
    expect(at).toHaveLength(14);
    const times = at.map((a) => a.t).sort((a, b) => a - b);
    expect(maxInAnyWindow(times, 300)).toBeLessThanOrEqual(6);
    const tx = at
      .filter((a) => a.m === 'getTransaction')
      .map((a) => a.t)
      .sort((a, b) => a - b);
    expect(maxInAnyWindow(tx, 300)).toBeLessThanOrEqual(4);
    expect(budget.stats()).toMatchObject({ requests: 14, waiting: 0, perWindow: 6 });
  });

  it('refuses at once a request that cannot get a slot before its deadline, and counts it', async () => {
    const budget = new RpcBudget({ perWindow: 2, windowMs: 10_000 });
    await budget.acquire(['a']);
    await budget.acquire(['b']);
    await expect(budget.acquire(['c'], Date.now() + 100)).rejects.toBeInstanceOf(RpcBudgetExhaustedError);
    expect(budget.stats()).toMatchObject({ requests: 2, shed: 1, inWindow: 2 });
  });

  it('holds the reserved slots for priority requests: others are refused with the time until a slot frees', async () => {
    const budget = new RpcBudget({ perWindow: 10, perMethod: 4, windowMs: 10_000 });
    budget.reserveForPriority({ total: 2, perMethod: 2 });
    await budget.acquire(['getTransaction']);
    await budget.acquire(['getTransaction']);
    const refused = await budget.acquire(['getTransaction'], Date.now() + 100).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RpcBudgetExhaustedError);
    expect((refused as RpcBudgetExhaustedError).retryInMs).toBeGreaterThan(9_000);
    // Another method still has its own share.
    await budget.acquire(['getSignaturesForAddress'], Date.now() + 100);
    // The reserve is the priority requests'; past it they are refused too.
    const first = () => rpcPriority.run(true, () => budget.acquire(['getTransaction'], Date.now() + 100));
    await first();
    await first();
    await expect(first()).rejects.toBeInstanceOf(RpcBudgetExhaustedError);
    expect(budget.stats()).toMatchObject({ requests: 5, shed: 2 });
  });

  it('a waiting priority request takes the next free slot of its method before a request that came first', async () => {
    const budget = new RpcBudget({ perWindow: 10, perMethod: 1, windowMs: 300 });
    await budget.acquire(['getTransaction']);
    const order: string[] = [];
    const normal = budget.acquire(['getTransaction']).then(() => order.push('normal'));
    await new Promise((r) => setTimeout(r, 20));
    const priority = rpcPriority
      .run(true, () => budget.acquire(['getTransaction']))
      .then(() => order.push('priority'));
    await Promise.all([normal, priority]);
    expect(order).toEqual(['priority', 'normal']);
  });

  it('a background request never waits in the queue: refused at once, so the requests behind it go first', async () => {
    const budget = new RpcBudget({ perWindow: 10, perMethod: 1, windowMs: 1_000 });
    await budget.acquire(['getTransaction']);
    const t0 = Date.now();
    const refused = await rpcBackground
      .run(true, () => budget.acquire(['getTransaction'], Date.now() + 5_000))
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RpcBudgetExhaustedError);
    expect((refused as RpcBudgetExhaustedError).retryInMs).toBeGreaterThan(900);
    // Another method's request is not held up behind it.
    await budget.acquire(['getSlot'], Date.now() + 100);
    expect(Date.now() - t0).toBeLessThan(100);
    // A slot free now is taken as usual.
    await rpcBackground.run(true, () => budget.acquire(['getBalance']));
    expect(budget.stats()).toMatchObject({ requests: 3, shed: 0, deferred: 1 });
  });

  it('finds a budget refusal through the errors wrapping it', () => {
    const refusal = new RpcBudgetExhaustedError('no slot', 1234);
    expect(budgetRetryInMs(refusal)).toBe(1234);
    expect(budgetRetryInMs(new PaymentRpcError('getTransaction', 'no slot', { cause: refusal }))).toBe(1234);
    expect(budgetRetryInMs(new PaymentRpcError('getTransaction', 'timeout'))).toBeUndefined();
    expect(budgetRetryInMs('no slot')).toBeUndefined();
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs(new Date(Date.now() + 5000).toUTCString())).toBeGreaterThan(3000);
    expect(retryAfterMs(null)).toBeUndefined();
    expect(retryAfterMs('soon')).toBeUndefined();
  });
});

describe('budgetedFetch', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  async function serve(answers: { status: number; retryAfter?: string }[]): Promise<{
    url: string;
    hits: number[];
  }> {
    const hits: number[] = [];
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        hits.push(Date.now());
        const a = answers[Math.min(hits.length - 1, answers.length - 1)] ?? { status: 200 };
        res.writeHead(a.status, {
          'content-type': 'application/json',
          ...(a.retryAfter ? { 'retry-after': a.retryAfter } : {}),
        });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: a.status }));
      });
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', () => resolve()));
    return { url: `http://127.0.0.1:${(server?.address() as AddressInfo).port}`, hits };
  }

  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSlot', params: [] });

  it('honours 429 Retry-After (the whole budget waits), then succeeds; counts the 429', async () => {
    const { url, hits } = await serve([{ status: 429, retryAfter: '1' }, { status: 200 }]);
    const budget = new RpcBudget({ perWindow: 10 });
    const f = budgetedFetch(budget, { deadlineMs: 5_000 });
    const res = await f(url, { method: 'POST', body });
    expect(res.status).toBe(200);
    expect(hits).toHaveLength(2);
    expect((hits[1] ?? 0) - (hits[0] ?? 0)).toBeGreaterThanOrEqual(950);
    expect(budget.stats()).toMatchObject({ requests: 2, throttled: 1, errors: 0 });
  });

  it('backs off 5xx with jitter, gives up after its attempts, and counts every error', async () => {
    const { url, hits } = await serve([{ status: 503 }]);
    const budget = new RpcBudget({ perWindow: 10 });
    const f = budgetedFetch(budget, { attempts: 3, backoffMs: 100, deadlineMs: 5_000 });
    const res = await f(url, { method: 'POST', body });
    expect(res.status).toBe(503);
    expect(hits).toHaveLength(3);
    // Backoff 100 then 200 ms, each ± 50 %: never a tight loop.
    expect((hits[1] ?? 0) - (hits[0] ?? 0)).toBeGreaterThanOrEqual(45);
    expect((hits[2] ?? 0) - (hits[1] ?? 0)).toBeGreaterThanOrEqual(95);
    expect(budget.stats()).toMatchObject({ requests: 3, errors: 3, throttled: 0 });
  });

  it('does not retry a 429 past its deadline', async () => {
    const { url, hits } = await serve([{ status: 429, retryAfter: '30' }]);
    const budget = new RpcBudget({ perWindow: 10 });
    const f = budgetedFetch(budget, { deadlineMs: 2_000 });
    const res = await f(url, { method: 'POST', body });
    expect(res.status).toBe(429);
    expect(hits).toHaveLength(1);
    // The budget stays paused: the next request is refused locally rather than sent into the provider's limit.
    await expect(f(url, { method: 'POST', body })).rejects.toBeInstanceOf(RpcBudgetExhaustedError);
    expect(hits).toHaveLength(1);
  });
});
