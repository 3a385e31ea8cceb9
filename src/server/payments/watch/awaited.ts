/**
 * Payments first: while the vendor feed has a backlog (a dust flood, a catch-up), the orders someone is waiting
 * on — an open order page or QR page polling (`GET /api/orders/:id`) — are checked directly by their reference
 * (`getSignaturesForAddress(reference)`, newest first, then `getTransaction` of what is not judged yet), within
 * the priority lane's share of the RPC budget. Their payment is judged and recorded as soon as it is found,
 * ahead of the dust queued on the vendor accounts; the same signature met later by the sweep is already judged.
 */
import { rpcPriority } from '../budget';
import { withTimeout } from '../rpc';
import type { Seen, WatchContext } from './context';
import type { Judge, JudgedSignatures } from './judge';
import type { Lane } from './lanes';

/** An order counts as awaited this long after its page last polled. */
const AWAITED_FOR_MS = 30_000;
/** Orders remembered as awaited at most (the most recent polls win). */
const MAX_AWAITED = 1_000;
/** Newest signatures read per reference check. */
const SIGNATURES_PER_CHECK = 10;

export class AwaitedOrders {
  /** orderId → when its page last polled (insertion order = least recent first). */
  private readonly awaited = new Map<string, number>();
  /** Round-robin position: orders checked longest ago go first. */
  private readonly lastChecked = new Map<string, number>();
  /** When a priority round last ran to its end (the health check's "payments still on time"). */
  lastRoundAt: number | undefined;

  constructor(
    private readonly ctx: WatchContext,
    private readonly judged: JudgedSignatures,
    private readonly judge: Judge,
    private readonly lane: Lane,
  ) {}

  /** Someone polls the order's page. */
  note(orderId: string): void {
    this.awaited.delete(orderId);
    this.awaited.set(orderId, Date.now());
    if (this.awaited.size > MAX_AWAITED) {
      const oldest = this.awaited.keys().next().value;
      if (oldest !== undefined) {
        this.awaited.delete(oldest);
        this.lastChecked.delete(oldest);
      }
    }
  }

  /**
   * Payments are still seen on time: a round ran within `withinMs` and, while behind, every awaited order was
   * checked by reference within `withinMs` (the lane had room for all of them).
   */
  onTime(withinMs: number): boolean {
    const nowMs = Date.now();
    if (this.lastRoundAt === undefined || nowMs - this.lastRoundAt > withinMs) return false;
    if (!this.behind()) return true;
    for (const id of this.awaited.keys())
      if (nowMs - (this.lastChecked.get(id) ?? 0) > withinMs) return false;
    return true;
  }

  /** The vendor feed is behind: signatures are waiting to be judged. */
  behind(): boolean {
    return this.judge.backlog() > this.ctx.o.concurrency;
  }

  /** One round: while behind, checks the awaited orders the lane has room for, least recently checked first. */
  async round(): Promise<void> {
    const nowMs = Date.now();
    for (const [id, at] of this.awaited) {
      if (nowMs - at > AWAITED_FOR_MS) {
        this.awaited.delete(id);
        this.lastChecked.delete(id);
      }
    }
    if (!this.behind() || !this.awaited.size) {
      this.lastRoundAt = nowMs;
      return;
    }
    const due = [...this.awaited.keys()].sort(
      (a, b) => (this.lastChecked.get(a) ?? 0) - (this.lastChecked.get(b) ?? 0),
    );
    for (const orderId of due) {
      // A check costs one listing plus a transaction or two: stop when the lane has no room for that.
      if (this.lane.available() < 2) break;
      this.lastChecked.set(orderId, Date.now());
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
      this.awaited.delete(orderId);
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
    // Newest first: the buyer's payment is usually the latest transaction naming its reference.
    for (const s of fresh) {
      if (judged.has(s.signature)) continue;
      if (!this.lane.tryTake()) return;
      const tx = await withTimeout('getTransaction', ctx.timeoutMs, () =>
        ctx.rpc.getTransaction(s.signature),
      );
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
