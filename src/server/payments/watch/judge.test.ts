import { describe, expect, it } from 'vitest';
import { RpcBudgetExhaustedError } from '../budget';
import { PaymentRpcError, type PaymentRpc, type PaymentTransaction } from '../rpc';
import { memoryScanStore } from '../scan-store';
import { tuningOf, type WatchContext } from './context';
import { Judge, JudgedSignatures } from './judge';
import { Background, Semaphore } from './loops';

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
    const judge = new Judge(ctx, new JudgedSignatures(ctx), () => Promise.resolve());
    const t0 = Date.now();
    await expect(judge.fetch('sig')).resolves.toBeNull();
    expect(calls).toBe(3);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(110);
  });

  it('fails at once when not watching, and on any other error', async () => {
    let watching = false;
    let error: unknown = refused(10_000);
    const ctx = contextWith({ getTransaction: () => Promise.reject(error) }, () => watching);
    const judge = new Judge(ctx, new JudgedSignatures(ctx), () => Promise.resolve());
    const t0 = Date.now();
    await expect(judge.fetch('sig')).rejects.toThrow('no slot');
    watching = true;
    error = new PaymentRpcError('getTransaction', 'node down');
    await expect(judge.fetch('sig')).rejects.toThrow('node down');
    expect(Date.now() - t0).toBeLessThan(1_000);
  });

  it('stops waiting when the watch ends', async () => {
    let watching = true;
    const ctx = contextWith({ getTransaction: () => Promise.reject(refused(10_000)) }, () => watching);
    const judge = new Judge(ctx, new JudgedSignatures(ctx), () => Promise.resolve());
    const t0 = Date.now();
    const fetching = judge.fetch('sig');
    setTimeout(() => (watching = false), 100);
    await expect(fetching).rejects.toThrow('no slot');
    expect(Date.now() - t0).toBeLessThan(2_000);
  });
});
