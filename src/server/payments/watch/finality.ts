/**
 * Finality: the ledger's own unfinalized signatures, up to 256 in one getSignatureStatuses per round, each
 * backing off ×1.5 (up to 60 s) and given up after `finalityGiveUpMs`; once finalized each is reported again with
 * `finalized: true` (the order service moves paid → final when every counting transfer is).
 */
import { withTimeout } from '../rpc';
import { describeRefusal, type WatchContext } from './context';

export class FinalityTracker {
  private readonly backoff = new Map<string, { firstAt: number; nextAt: number; delay: number }>();

  constructor(private readonly ctx: WatchContext) {}

  async check(): Promise<void> {
    const { ctx } = this;
    const nowMs = Date.now();
    const pending = await ctx.orders.unfinalizedPayments(1000);
    const live = new Set(pending.map((p) => p.signature));
    for (const s of this.backoff.keys()) if (!live.has(s)) this.backoff.delete(s);
    const due = pending
      .filter((p) => {
        let f = this.backoff.get(p.signature);
        if (!f) {
          f = { firstAt: nowMs, nextAt: nowMs, delay: ctx.o.finalityIntervalMs };
          this.backoff.set(p.signature, f);
        }
        return f.nextAt <= nowMs && nowMs - f.firstAt <= ctx.o.finalityGiveUpMs;
      })
      .slice(0, 256);
    if (!due.length) return;
    // One request for up to 256 signatures, whatever the number of orders.
    const statuses = await withTimeout('getSignatureStatuses', ctx.timeoutMs, () =>
      ctx.rpc.getSignatureStatuses(due.map((d) => d.signature)),
    );
    for (const [i, p] of due.entries()) {
      const s = statuses[i];
      const f = this.backoff.get(p.signature);
      if (!s || s.confirmationStatus !== 'finalized' || (s.err !== null && s.err !== undefined)) {
        if (f) {
          f.delay = Math.min(Math.round(f.delay * 1.5), 60_000);
          f.nextAt = Date.now() + f.delay;
        }
        continue;
      }
      // The same signature again, now finalized: the order service marks it and moves paid → final when every
      // payment counting toward the amount is finalized (paid_late stays).
      const result = await ctx.recordLock.run(() =>
        ctx.orders.recordPayment(
          { orderId: p.orderId },
          {
            signature: p.signature,
            receivedBaseUnits: p.receivedBaseUnits,
            finalized: true,
            blockTime: null,
          },
        ),
      );
      this.backoff.delete(p.signature);
      if (result.ok) ctx.emit({ type: 'final', orderId: p.orderId, signature: p.signature });
      else
        ctx.emit({
          type: 'error',
          where: `finalize ${p.orderId}`,
          error: new Error(describeRefusal(result)),
        });
    }
  }
}
