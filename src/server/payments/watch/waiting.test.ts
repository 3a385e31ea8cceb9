import { describe, expect, it } from 'vitest';
import { expiryCutoff } from '../../orders/ledger';
import { WaitingOrders } from './waiting';

const ids = (w: WaitingOrders) => w.due().map((d) => d.orderId);

describe('WaitingOrders: who jumps the payment queue', () => {
  it('one client polling 1,000 free records takes two places, not a thousand', () => {
    const w = new WaitingOrders();
    for (let i = 0; i < 1000; i++) w.note(`spam-${i}`, { client: 'attacker', stake: 'free' });
    w.note('buyer', { client: 'buyer', stake: 'free' });
    expect(w.size).toBe(3);
    // The attacker's two most recent polls are kept; the clients take turns, the buyer's single order in the
    // first turn.
    expect(ids(w)).toEqual(['spam-998', 'buyer', 'spam-999']);
  });

  it('clients take turns: the one served longest ago first; within a client, its order checked longest ago', () => {
    const w = new WaitingOrders();
    w.note('a1', { client: 'a', stake: 'free' });
    w.note('a2', { client: 'a', stake: 'free' });
    w.note('b1', { client: 'b', stake: 'free' });
    w.note('c1', { client: 'c', stake: 'free' });
    const seen: string[] = [];
    for (let round = 0; round < 8; round++) {
      const first = ids(w)[0]!;
      seen.push(first);
      w.checked(first);
    }
    // One check a round: every client's turn comes every third round, and client a alternates its two orders.
    expect(seen).toEqual(['a1', 'b1', 'c1', 'a2', 'b1', 'c1', 'a1', 'b1']);
  });

  it('money at stake comes before free records, whatever the number of free clients', () => {
    const w = new WaitingOrders();
    for (let i = 0; i < 50; i++) w.note(`free-${i}`, { client: `attacker-${i}`, stake: 'free' });
    w.note('wallet', { client: 'buyer-1', stake: 'money' });
    w.note('qr-with-details', { client: 'buyer-2', stake: 'money' });
    expect(w.moneyWaiting()).toBe(2);
    const due = w.due();
    expect(due.slice(0, 2).map((d) => d.stake)).toEqual(['money', 'money']);
    expect(
      due
        .slice(0, 2)
        .map((d) => d.orderId)
        .sort(),
    ).toEqual(['qr-with-details', 'wallet']);
    expect(due).toHaveLength(52);
    expect(w.stakeOf('free-3')).toBe('free');
  });

  it('an order polled again moves to its latest client; polls older than forMs are forgotten', () => {
    let now = 0;
    const w = new WaitingOrders({ now: () => now, forMs: 30_000 });
    w.note('o1', { client: 'laptop', stake: 'free' });
    w.note('o1', { client: 'phone', stake: 'money' });
    expect(w.size).toBe(1);
    expect(w.stakeOf('o1')).toBe('money');
    now = 20_000;
    w.note('o2', { client: 'phone', stake: 'free' });
    now = 40_000;
    w.prune();
    expect(w.orderIds()).toEqual(['o2']);
    w.forget('o2');
    expect(w.size).toBe(0);
  });

  it('remembers at most maxClients clients: the least recent go, with their orders', () => {
    const w = new WaitingOrders({ maxClients: 3 });
    for (let i = 0; i < 5; i++) w.note(`o${i}`, { client: `c${i}`, stake: 'free' });
    expect(w.orderIds().sort()).toEqual(['o2', 'o3', 'o4']);
  });
});

describe('expiryCutoff: expiry waits on the watcher, but not for ever', () => {
  const now = new Date('2026-11-26T02:00:00Z');
  const wait = 5 * 60_000;
  it('without a watcher, the wall clock', () => {
    expect(expiryCutoff(now, undefined, wait)).toEqual(now);
  });
  it("the watcher's judged time while it is within the wait, never ahead of the wall clock", () => {
    const judged = new Date(now.getTime() - 60_000);
    expect(expiryCutoff(now, judged, wait)).toEqual(judged);
    expect(expiryCutoff(now, new Date(now.getTime() + 60_000), wait)).toEqual(now);
  });
  it('a watcher further behind (or that has judged nothing yet) holds expiry back by the wait at most', () => {
    const floor = new Date(now.getTime() - wait);
    expect(expiryCutoff(now, new Date(now.getTime() - 3_600_000), wait)).toEqual(floor);
    expect(expiryCutoff(now, null, wait)).toEqual(floor);
  });
});
