import { describe, expect, it } from 'vitest';
import { RpcBudgetExhaustedError } from '../budget';
import {
  PaymentRpcError,
  UnreadableTransactionError,
  type PaymentRpc,
  type PaymentTransaction,
} from '../rpc';
import { memoryScanStore } from '../scan-store';
import { tuningOf, type WatchContext } from './context';
import { Judge, JudgedSignatures } from './judge';
import { Background, Semaphore } from './loops';
import { UnreadableTransactions } from './unreadable';

function judgeOf(ctx: WatchContext): Judge {
  const judged = new JudgedSignatures(ctx);
  const unreadable = new UnreadableTransactions(ctx, judged, () => []);
  return new Judge(
    ctx,
    judged,
    () => Promise.resolve(),
    () => unreadable,
  );
}

/** A watcher context around `rpc` (nothing else is used by fetching). */
function contextWith(rpc: Partial<PaymentRpc>, watching: () => boolean): WatchContext {
  const o = tuningOf({} as Parameters<typeof tuningOf>[0]);
  return {
    rpc: rpc as PaymentRpc,
    orders: {} as WatchContext['orders'],
    store: memoryScanStore(() => Promise.resolve(undefined)),
    now: () => new Date(),
    o,
    verifyOptions: {},
    timeoutMs: 1_000,
    emit: () => undefined,
    recipients: [],
    mint: '',
    limiter: new Semaphore(o.concurrency),
    recordLock: new Semaphore(1),
    background: new Background(() => undefined),
    running: watching,
    watching,
  };
}

const refused = (retryInMs: number) =>
  new PaymentRpcError('getTransaction', 'no slot', {
    cause: new RpcBudgetExhaustedError('no slot', retryInMs),
  });

describe('Judge.fetch under a used-up RPC budget', () => {
  it('waits for the slot the budget names and asks again, keeping the signature in the backlog', async () => {
    let calls = 0;
    const ctx = contextWith(
      {
        getTransaction: () => {
          calls++;
          return calls <= 2
            ? Promise.reject(refused(60))
            : Promise.resolve(null as PaymentTransaction | null);
        },
      },
      () => true,
    );
    const judge = judgeOf(ctx);
    const t0 = Date.now();
    await expect(judge.fetch('sig')).resolves.toBeNull();
    expect(calls).toBe(3);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(110);
  });

  it('fails at once when not watching (nothing asked: a stopped watch never drains its backlog), and on any other error', async () => {
    let watching = false;
    let calls = 0;
    let error: unknown = refused(10_000);
    const ctx = contextWith(
      {
        getTransaction: () => {
          calls++;
          return Promise.reject(error);
        },
      },
      () => watching,
    );
    const judge = judgeOf(ctx);
    const t0 = Date.now();
    await expect(judge.fetch('sig')).rejects.toThrow('watch ended');
    expect(calls).toBe(0);
    watching = true;
    error = new PaymentRpcError('getTransaction', 'node down');
    await expect(judge.fetch('sig')).rejects.toThrow('node down');
    expect(Date.now() - t0).toBeLessThan(1_000);
  });

  it('stops waiting when the watch ends', async () => {
    let watching = true;
    const ctx = contextWith({ getTransaction: () => Promise.reject(refused(10_000)) }, () => watching);
    const judge = judgeOf(ctx);
    const t0 = Date.now();
    const fetching = judge.fetch('sig');
    setTimeout(() => (watching = false), 100);
    await expect(fetching).rejects.toThrow('no slot');
    expect(Date.now() - t0).toBeLessThan(2_000);
  });
});

describe('a transaction we cannot read is set aside after its tries', () => {
  function setup(getTransaction: PaymentRpc['getTransaction']) {
    const ctx = contextWith({ getTransaction }, () => true);
    ctx.o = { ...ctx.o, unreadableAttempts: 3, unreadableBackoffMs: 5 };
    const notes: { orderId: string; signature: string; reason: string }[] = [];
    const events: unknown[] = [];
    ctx.emit = (e) => void events.push(e);
    ctx.orders = {
      ordersByReferences: (keys: string[]) =>
        Promise.resolve(
          keys.includes('REF') ? [{ orderId: 'o1', status: 'awaiting_payment', expiresAt: new Date() }] : [],
        ),
      noteUnreadablePayment: (orderId: string, note: { signature: string; reason: string }) => {
        notes.push({ orderId, ...note });
        return Promise.resolve(true);
      },
      findOrder: () => Promise.resolve(undefined),
    } as unknown as WatchContext['orders'];
    return { ctx, judge: judgeOf(ctx), notes, events };
  }
  const seen = { signature: 'sig', confirmationStatus: 'confirmed' as const };

  it('-32015 every time: tried 3 times, set aside (judged, the cursor may pass), the order its keys name told', async () => {
    let calls = 0;
    const { ctx, judge, notes, events } = setup(() => {
      calls++;
      return Promise.reject(new UnreadableTransactionError('unsupported_version', 'version 2', ['REF', 'X']));
    });
    await expect(judge.judge(seen, 'sweep', 'vendorAta')).resolves.toBe(true);
    expect(calls).toBe(3);
    expect(await ctx.store.judged(['sig'])).toEqual(new Set(['sig']));
    expect(await ctx.store.setAsideAmong(['sig'])).toEqual(new Map([['sig', 'unsupported_version']]));
    expect((await ctx.store.unreadableSummary()).count).toBe(1);
    expect(notes).toEqual([{ orderId: 'o1', signature: 'sig', reason: 'unsupported_version' }]);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'unreadable', signature: 'sig', orderIds: ['o1'] }),
    );
    // Never fetched again.
    await expect(judge.judge(seen, 'sweep')).resolves.toBe(true);
    expect(calls).toBe(3);
  });

  it('garbage twice, then a readable answer: judged as usual, nothing set aside', async () => {
    let calls = 0;
    const { ctx, judge } = setup(() =>
      ++calls <= 2
        ? Promise.reject(new UnreadableTransactionError('malformed', 'malformed answer: not JSON'))
        : Promise.resolve(null),
    );
    await expect(judge.judge(seen, 'sweep')).resolves.toBe(false);
    expect(calls).toBe(3);
    expect((await ctx.store.unreadableSummary()).count).toBe(0);
  });

  it('a node that fails (no code, or "node is behind") sets nothing aside: the error propagates', async () => {
    for (const error of [
      new PaymentRpcError('getTransaction', 'fetch failed'),
      new PaymentRpcError('getTransaction', '-32005: Node is behind', { code: -32005 }),
    ]) {
      const { ctx, judge } = setup(() => Promise.reject(error));
      await expect(judge.judge(seen, 'sweep')).rejects.toBe(error);
      expect((await ctx.store.unreadableSummary()).count).toBe(0);
      expect(await ctx.store.judged(['sig'])).toEqual(new Set());
    }
  });

  it('a node error about this signature that repeats is set aside as rpc_error', async () => {
    const { ctx, judge } = setup(() =>
      Promise.reject(new PaymentRpcError('getTransaction', '-32602: Invalid param', { code: -32602 })),
    );
    await expect(judge.judge(seen, 'sweep')).resolves.toBe(true);
    expect(await ctx.store.setAsideAmong(['sig'])).toEqual(new Map([['sig', 'rpc_error']]));
  });
});
