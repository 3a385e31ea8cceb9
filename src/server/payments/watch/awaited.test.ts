import { describe, expect, it } from 'vitest';
import type { PaymentRpc } from '../rpc';
import { memoryScanStore } from '../scan-store';
import { AwaitedOrders, dueOrders } from './awaited';
import { tuningOf, type WatchContext } from './context';
import { JudgedSignatures, type Judge } from './judge';
import { Lane } from './lanes';
import { Background, Semaphore } from './loops';
import { UnreadableTransactions } from './unreadable';

describe('dueOrders: which awaited order is checked by reference first', () => {
  it('waiting pages in their own order (waiting.ts), then hinted orders, then expiring ones; each order once', () => {
    const due = dueOrders(
      ['page-2', 'page-1'],
      ['hint-1', 'page-1'],
      ['soon-1', 'hint-1', 'soon-2'],
      () => 0,
    );
    expect(due).toEqual(['page-2', 'page-1', 'hint-1', 'soon-1', 'soon-2']);
  });

  it('within hinted and expiring, the one checked longest ago (or never) first; expiring ones keep their expiry order on a tie', () => {
    const checked = new Map([
      ['hint-a', 300],
      ['hint-b', 100],
      ['soon-1', 50],
    ]);
    const due = dueOrders(
      [],
      ['hint-a', 'hint-b', 'hint-c'],
      ['soon-1', 'soon-2', 'soon-3'],
      (id) => checked.get(id) ?? 0,
    );
    expect(due).toEqual(['hint-c', 'hint-b', 'hint-a', 'soon-2', 'soon-3', 'soon-1']);
  });
});

describe('AwaitedOrders.round under a backlog: free records cannot buy the lane', () => {
  /** A watcher under a backlog whose RPC lists nothing for any reference; `listed` names each reference asked. */
  function lane(perWindow = 12) {
    const listed: string[] = [];
    const o = tuningOf({} as Parameters<typeof tuningOf>[0]);
    const ctx: WatchContext = {
      rpc: {
        getSignaturesForAddress: (reference: string) => {
          listed.push(reference);
          return Promise.resolve([]);
        },
      } as unknown as PaymentRpc,
      orders: {
        // Every order awaits payment; its reference is its id.
        findOrder: ({ orderId }: { orderId: string }) =>
          Promise.resolve({ orderId, status: 'awaiting_payment', reference: orderId, payments: [] }),
      } as unknown as WatchContext['orders'],
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
      running: () => true,
      watching: () => true,
    };
    const judged = new JudgedSignatures(ctx);
    const unreadable = new UnreadableTransactions(ctx, judged, () => []);
    // A backlog of 1,500 dust transfers.
    const judge = { backlog: () => 1500 } as unknown as Judge;
    const awaited = new AwaitedOrders(ctx, judged, judge, new Lane('priority', perWindow), unreadable);
    return { awaited, listed };
  }

  it('1,000 free records polled by one client: the buyer is checked every other round', async () => {
    const { awaited, listed } = lane();
    for (let i = 0; i < 1000; i++) awaited.note(`spam-${i}`, { client: 'attacker', stake: 'free' });
    awaited.note('buyer', { client: 'buyer', stake: 'free' });
    for (let round = 0; round < 8; round++) await awaited.round();
    // One check a round (the lane's share), the two clients taking turns; the attacker's 998 older records never.
    expect(listed).toHaveLength(8);
    expect(listed.filter((r) => r === 'buyer')).toHaveLength(4);
    expect(
      listed.filter((r) => r.startsWith('spam-')).every((r) => r === 'spam-998' || r === 'spam-999'),
    ).toBe(true);
  });

  it('an order with money at stake goes first, and free records leave it half the lane', async () => {
    const { awaited, listed } = lane();
    for (let c = 0; c < 20; c++) awaited.note(`spam-${c}`, { client: `attacker-${c}`, stake: 'free' });
    awaited.note('wallet', { client: 'buyer', stake: 'money' });
    for (let round = 0; round < 12; round++) await awaited.round();
    // The money order every round while the lane has room; free records only above the reserved half (6 of 12).
    expect(listed[0]).toBe('wallet');
    expect(listed.filter((r) => r === 'wallet').length).toBeGreaterThanOrEqual(listed.length - 6);
    expect(listed.filter((r) => r.startsWith('spam-')).length).toBeLessThanOrEqual(6);
    expect(awaited.onTime(20_000)).toBe(true);
  });
});
