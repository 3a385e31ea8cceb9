/**
 * Payments first: while the vendor feed has a backlog (a dust flood, a catch-up), the orders someone is waiting
 * on are checked directly by their reference (`getSignaturesForAddress(reference)`, newest first, then
 * `getTransaction` of what is not judged yet), within the priority lane's share of the RPC budget. Their payment
 * is judged and recorded as soon as it is found, ahead of the dust queued on the vendor accounts; the same
 * signature met later by the sweep is already judged.
 *
 * Who jumps the queue is bounded (waiting.ts): an order page polled with its page token waits for the poller's
 * client, at most 2 orders per client, the clients taking turns, orders with money at stake before free records,
 * part of the lane kept for those. After them, orders with a recent hint, then orders whose quote expires within
 * minutes (or has passed while the watcher is behind); within each, the one checked longest ago first. A round
 * spends about its share of the lane (the lane's requests per interval), so the checks are spread evenly over
 * the lane's window instead of spending it in the first seconds and waiting out the rest.
 */
import { rpcPriority } from '../budget';
import { withTimeout } from '../rpc';
import type { Seen, WatchContext } from './context';
import type { Judge, JudgedSignatures } from './judge';
import type { Lane } from './lanes';
import { signatureFault, type UnreadableTransactions } from './unreadable';
import { WaitingOrders, type Waiter } from './waiting';

/** An order counts as awaited this long after its page last polled. */
const AWAITED_FOR_MS = 30_000;
/** An order counts as awaited this long after its last hint. */
const HINTED_FOR_MS = 120_000;
/** Orders whose quote expires within this long count as awaited (while behind). */
const EXPIRING_WITHIN_MS = 5 * 60_000;
/** Expiring orders read per round at most. */
const EXPIRING_PER_ROUND = 20;
/** Hinted orders remembered at most (the most recent hints win). */
const MAX_HINTED = 1_000;
/** Newest signatures read per reference check. */
const SIGNATURES_PER_CHECK = 10;
/** Share of the lane kept for orders with money at stake while any waits: free records never take it. */
const MONEY_RESERVE_SHARE = 0.5;

/**
 * The order in which awaited orders are checked: waiting pages (already in their order: waiting.ts), then hinted
 * orders, then expiring ones (each order once, at its first place); within hinted and expiring, the one checked
 * longest ago (never: 0) first.
 */
export function dueOrders(
  pages: Iterable<string>,
  hinted: Iterable<string>,
  expiring: Iterable<string>,
  lastChecked: (orderId: string) => number,
): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const id of pages)
    if (!seen.has(id)) {
      seen.add(id);
      out.push(id);
    }
  for (const kind of [hinted, expiring]) {
    const ids = [...new Set(kind)].filter((id) => !seen.has(id));
    ids.sort((a, b) => lastChecked(a) - lastChecked(b));
    for (const id of ids) {
      seen.add(id);
      out.push(id);
    }
  }
  return out;
}

export class AwaitedOrders {
  /** Order pages polled lately, per client (waiting.ts). */
  private readonly waiting = new WaitingOrders({ forMs: AWAITED_FOR_MS });
  /** orderId → when it was last hinted (insertion order = least recent first). */
  private readonly hinted = new Map<string, number>();
  /** Round-robin position: orders checked longest ago go first. */
  private readonly lastChecked = new Map<string, number>();
  /** When a priority round last ran to its end (the health check's "payments still on time"). */
  lastRoundAt: number | undefined;

  constructor(
    private readonly ctx: WatchContext,
    private readonly judged: JudgedSignatures,
    private readonly judge: Judge,
    private readonly lane: Lane,
    private readonly unreadable: UnreadableTransactions,
  ) {}

  /** The orders someone waits on now: pages polling (most recent first), then hinted ones. */
  orderIds(): string[] {
    return [...new Set([...this.waiting.orderIds(), ...[...this.hinted.keys()].reverse()])];
  }

  /** Someone polls the order's page with its page token. */
  note(orderId: string, waiter: Waiter): void {
    this.waiting.note(orderId, waiter);
  }

  /** The order's payment was hinted (its wallet reported a signature). */
  noteHint(orderId: string): void {
    this.hinted.delete(orderId);
    this.hinted.set(orderId, Date.now());
    if (this.hinted.size > MAX_HINTED) {
      const oldest = this.hinted.keys().next().value;
      if (oldest !== undefined) this.hinted.delete(oldest);
    }
  }

  /**
   * Payments are still seen on time: a round ran within `withinMs` and, while behind, every waiting order with
   * money at stake was checked by reference within `withinMs` (the lane had room for all of them).
   */
  onTime(withinMs: number): boolean {
    const nowMs = Date.now();
    if (this.lastRoundAt === undefined || nowMs - this.lastRoundAt > withinMs) return false;
    if (!this.behind()) return true;
    // Orders with money at stake only: many clients each polling free records stretch the free records' turns
    // (payments.md), and must not turn every instance not ready by doing so.
    for (const id of this.waiting.orderIds())
      if (this.waiting.stakeOf(id) === 'money' && nowMs - (this.lastChecked.get(id) ?? 0) > withinMs)
        return false;
    return true;
  }

  /** The vendor feed is behind: signatures are waiting to be judged. */
  behind(): boolean {
    return this.judge.backlog() > this.ctx.o.concurrency;
  }

  /** One round: while behind, checks the awaited orders its share of the lane pays for (see the top). */
  async round(): Promise<void> {
    const nowMs = Date.now();
    this.waiting.prune();
    for (const [id, at] of this.hinted) if (nowMs - at > HINTED_FOR_MS) this.hinted.delete(id);
    if (!this.behind()) {
      this.lastChecked.clear();
      this.lastRoundAt = nowMs;
      return;
    }
    const { lane } = this;
    // Expiring orders are read only when the lane has room beyond the pages and hints.
    const expiring =
      lane.available() >= 2 * (this.waiting.size + this.hinted.size + 1)
        ? await this.ctx.store.expiringSoon(
            new Date(this.ctx.now().getTime() + EXPIRING_WITHIN_MS),
            EXPIRING_PER_ROUND,
          )
        : [];
    const checkedAt = (id: string) => this.lastChecked.get(id) ?? 0;
    const due = dueOrders(
      this.waiting.due().map((w) => w.orderId),
      this.hinted.keys(),
      expiring,
      checkedAt,
    );
    // Only the orders due now keep their turn (the map stays as small as the round).
    const dueNow = new Set(due);
    for (const id of this.lastChecked.keys()) if (!dueNow.has(id)) this.lastChecked.delete(id);
    // This round's share of the lane (at least one check), and the part kept for money while any waits.
    const share = Math.max(1, Math.floor((lane.perWindow * this.ctx.o.priorityIntervalMs) / lane.windowMs));
    const reserve = this.waiting.moneyWaiting() > 0 ? Math.ceil(lane.perWindow * MONEY_RESERVE_SHARE) : 0;
    const startedWith = lane.available();
    for (const orderId of due) {
      // A check costs one listing plus a transaction or two: stop when the lane has no room for that, or this
      // round spent its share.
      const available = lane.available();
      if (available < 2 || startedWith - available >= share) break;
      // Free records (and everything after the pages) leave the money's part of the lane alone.
      if (this.waiting.stakeOf(orderId) !== 'money' && available - 2 < reserve) continue;
      this.lastChecked.set(orderId, Date.now());
      this.waiting.checked(orderId);
      // Its requests take the next free budget slot, ahead of the dust queued on the vendor accounts.
      await this.ctx.background.guard(`priority ${orderId}`, () =>
        rpcPriority.run(true, () => this.check(orderId)),
      );
    }
    this.lastRoundAt = Date.now();
  }

  private async check(orderId: string): Promise<void> {
    const { ctx } = this;
    const order = await ctx.orders.findOrder({ orderId });
    if (order?.status !== 'awaiting_payment') {
      this.waiting.forget(orderId);
      this.hinted.delete(orderId);
      return;
    }
    if (!this.lane.tryTake()) return;
    const listed = await withTimeout('getSignaturesForAddress', ctx.timeoutMs, () =>
      ctx.rpc.getSignaturesForAddress(order.reference, { limit: SIGNATURES_PER_CHECK }),
    );
    const known = new Set(order.payments.map((p) => p.signature));
    const fresh = listed.filter(
      (s) =>
        (s.err === null || s.err === undefined) &&
        (s.confirmationStatus === 'confirmed' || s.confirmationStatus === 'finalized') &&
        !known.has(s.signature),
    );
    if (!fresh.length) return;
    const judged = await this.judged.among(fresh.map((s) => s.signature));
    // One listed under this order's reference was set aside unreadable (by a sweep that did not know the order):
    // the order says so.
    const setAside = await ctx.store.setAsideAmong(
      fresh.map((s) => s.signature).filter((s) => judged.has(s)),
    );
    for (const [signature, reason] of setAside)
      await ctx.orders.noteUnreadablePayment(order.orderId, { signature, reason });
    // Newest first: the buyer's payment is usually the latest transaction naming its reference.
    for (const s of fresh) {
      if (judged.has(s.signature)) continue;
      if (!this.lane.tryTake()) return;
      let tx;
      try {
        tx = await withTimeout('getTransaction', ctx.timeoutMs, () => ctx.rpc.getTransaction(s.signature));
      } catch (err) {
        // Listed under this order's reference but unreadable: counted (set aside after its tries, the order
        // told); the others listed are still checked.
        if (signatureFault(err) === undefined) throw err;
        await this.unreadable.failed(s.signature, err, { orderId: order.orderId });
        continue;
      }
      if (!tx) continue;
      const seen: Seen = {
        signature: s.signature,
        confirmationStatus: s.confirmationStatus === 'finalized' ? 'finalized' : 'confirmed',
      };
      // Judged for this order only; the vendor feed's turn judges the signature as usual later (recording is
      // idempotent per signature, so it finds this order's transfer already recorded).
      if ((await this.judge.judgeFor(order, tx, seen, 'priority')) === 'recorded') return;
    }
  }
}
