/**
 * Unmatched transfers: a vendor transfer naming no order yet (a QR buyer may pay before the order is recorded)
 * is kept by its keys; every `refreshIntervalMs` a join on orders.reference finds the ones that now have an
 * order, judged again for it. Rows older than the quote lifetime plus the late window are pruned.
 */
import { withTimeout, type PaymentTransaction } from '../rpc';
import type { WatchContext } from './context';
import type { Judge, JudgedSignatures } from './judge';

export class UnmatchedTransfers {
  private lastPrune = 0;

  constructor(
    private readonly ctx: WatchContext,
    private readonly judged: JudgedSignatures,
    private readonly judge: () => Judge,
  ) {}

  /** Keeps a vendor transfer that names no order (yet). */
  async keep(signature: string, tx: PaymentTransaction): Promise<void> {
    await this.ctx.store.addUnmatched(signature, tx.accountKeys, this.ctx.now());
  }

  /** Unmatched vendor transfers whose key is now an order's reference: judged again for that order. */
  async match(): Promise<void> {
    const { ctx } = this;
    const nowMs = ctx.now().getTime();
    if (nowMs - this.lastPrune > 60_000) {
      this.lastPrune = nowMs;
      await ctx.store.pruneUnmatched(new Date(nowMs - ctx.o.quoteTtlMs - ctx.o.lateWindowMs));
    }
    const found = await ctx.store.matchedUnmatched();
    for (const { signature, orderId } of found) {
      const order = await ctx.orders.findOrder({ orderId });
      if (order) {
        const tx = await this.judge().fetch(signature);
        if (!tx) continue;
        const [status] = await withTimeout('getSignatureStatuses', ctx.timeoutMs, () =>
          ctx.rpc.getSignatureStatuses([signature]),
        );
        const verdict = await this.judge().judgeFor(
          order,
          tx,
          {
            signature,
            confirmationStatus: status?.confirmationStatus === 'finalized' ? 'finalized' : 'confirmed',
          },
          'match',
        );
        await this.judged.mark(signature, verdict);
      }
      await ctx.store.dropUnmatched(signature);
    }
  }
}
