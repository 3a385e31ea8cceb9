/**
 * Unmatched transfers: a vendor transfer naming no order yet (a QR buyer may pay before the order is recorded)
 * is kept by its keys; every `refreshIntervalMs` a join on orders.reference finds the ones that now have an
 * order, judged again for it. Rows older than the quote lifetime plus the late window are pruned.
 *
 * Bounded: only keys that can be a Solana Pay reference are kept (read-only non-signers, not a program, a mint or
 * a token account of the transaction), at most MAX_KEYS_PER_TRANSFER per transfer; the table holds at most
 * MAX_UNMATCHED rows (the oldest beyond it are forgotten: an order created for such a transfer later is then not
 * matched automatically; its hint or the seller still finds it). The match reads only orders created since the
 * previous match (the orders' (status, expires_at) index), so its cost does not grow with the table.
 */
import { withTimeout, type PaymentTransaction } from '../rpc';
import type { WatchContext } from './context';
import type { Judge, JudgedSignatures } from './judge';

/** Keys kept per unmatched transfer at most (a Solana Pay transfer names one reference, rarely a few). */
export const MAX_KEYS_PER_TRANSFER = 4;
/** Unmatched rows kept at most. */
export const MAX_UNMATCHED = 100_000;

/** Programs a transfer invokes: never a reference. */
const PROGRAMS = new Set([
  '11111111111111111111111111111111',
  'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
  'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb',
  'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL',
  'ComputeBudget111111111111111111111111111111',
  'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr',
  'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo',
  'SysvarRent111111111111111111111111111111111',
]);

/** The keys of a vendor transfer that can be an order's reference (see above). */
export function referenceLikeKeys(tx: PaymentTransaction): string[] {
  const excluded = new Set<string>(PROGRAMS);
  for (const b of [...tx.preTokenBalances, ...tx.postTokenBalances]) {
    excluded.add(b.mint);
    const account = tx.accountKeys[b.accountIndex];
    if (account) excluded.add(account);
  }
  // The fee payer signs: never a reference.
  if (tx.accountKeys[0]) excluded.add(tx.accountKeys[0]);
  const candidates = (tx.referenceKeys ?? tx.accountKeys).filter((k) => !excluded.has(k));
  return [...new Set(candidates)].slice(0, MAX_KEYS_PER_TRANSFER);
}

export class UnmatchedTransfers {
  private lastPrune = 0;
  /** When the last match started (the next reads only orders created since: see matchedUnmatched). */
  private lastMatchAt: number | undefined;

  constructor(
    private readonly ctx: WatchContext,
    private readonly judged: JudgedSignatures,
    private readonly judge: () => Judge,
  ) {}

  /** Keeps a vendor transfer that names no order (yet). */
  async keep(signature: string, tx: PaymentTransaction): Promise<void> {
    await this.ctx.store.addUnmatched(signature, referenceLikeKeys(tx), this.ctx.now());
  }

  /** Unmatched vendor transfers whose key is now an order's reference: judged again for that order. */
  async match(): Promise<void> {
    const { ctx } = this;
    const nowMs = ctx.now().getTime();
    if (nowMs - this.lastPrune > 60_000) {
      this.lastPrune = nowMs;
      await ctx.store.pruneUnmatched(new Date(nowMs - ctx.o.quoteTtlMs - ctx.o.lateWindowMs));
      await ctx.store.capUnmatched(MAX_UNMATCHED);
    }
    // Orders created since the last match expire after (last match + quote lifetime); a minute of slack covers
    // clock steps and a slow previous round. The first match after start reads every order.
    const since =
      this.lastMatchAt === undefined ? undefined : new Date(this.lastMatchAt + ctx.o.quoteTtlMs - 60_000);
    this.lastMatchAt = nowMs;
    const found = await ctx.store.matchedUnmatched(since);
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
