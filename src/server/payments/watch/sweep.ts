/**
 * Feed and sweeps: the catch-up over the vendors' token accounts. `getSignaturesForAddress` paged back to a
 * cursor stored in the database (survives restarts, shared by instances); every signature not judged yet is
 * judged; the cursor moves to the newest signature before which everything is judged. A pass that listed every
 * account to its head and judged all it found is the watcher's progress (lag, readiness).
 */
import type { SignatureInfo } from '../rpc';
import { listSignatures } from '../verify';
import type { Via, WatchContext } from './context';
import type { Judge, JudgedSignatures } from './judge';

export class Sweeper {
  private sweeping: Promise<void> | null = null;
  private again = false;
  /** Start of the last sweep pass that listed every vendor account to its head and judged all it found. */
  caughtUpAt: Date | undefined;
  /** Listed signatures not judged yet (the pass in progress), with their block times (epoch ms). */
  private readonly pending = new Map<string, number>();
  /** When a pass last moved (listed an account, judged a signature): epoch ms. */
  lastProgressMs: number | undefined;

  constructor(
    private readonly ctx: WatchContext,
    private readonly tokenAccounts: string[],
    private readonly instanceId: string,
    private readonly judged: JudgedSignatures,
    private readonly judge: Judge,
  ) {}

  /**
   * The block time (epoch ms) of the oldest signature a pass listed and has not judged yet: everything before it
   * is judged. Undefined when nothing listed waits.
   */
  oldestPendingMs(): number | undefined {
    let oldest: number | undefined;
    for (const at of this.pending.values()) if (oldest === undefined || at < oldest) oldest = at;
    return oldest;
  }

  /** Sweeps coalesce: one at a time, a request during one runs once more after it. */
  sweep(via: Via): Promise<void> {
    if (this.sweeping) {
      this.again = true;
      return this.sweeping;
    }
    const run = (async () => {
      try {
        do {
          this.again = false;
          const startedAt = this.ctx.now();
          let complete = true;
          for (const account of this.tokenAccounts) {
            // A failed account does not stop the others; the pass then does not count as caught up.
            try {
              if (!(await this.sweepAccount(account, via))) complete = false;
            } catch (error) {
              complete = false;
              this.ctx.emit({ type: 'error', where: `sweep ${account}`, error });
            }
          }
          if (complete && this.ctx.watching()) {
            this.caughtUpAt = startedAt;
            await this.ctx.store.setProgress('payments', this.instanceId, startedAt);
          }
        } while (this.again && this.ctx.running());
      } finally {
        this.sweeping = null;
      }
    })();
    this.sweeping = run;
    return run;
  }

  /**
   * Reads the account's signatures newer than its stored cursor (oldest first), judges the ones not judged yet,
   * and moves the cursor to the newest signature before which everything is judged (crash safe: a signature is
   * judged, at worst, once more — recording is idempotent). True when everything listed was judged.
   */
  private async sweepAccount(account: string, via: Via): Promise<boolean> {
    const { ctx } = this;
    const cursor = await ctx.store.cursor(account);
    const sigs: SignatureInfo[] = await listSignatures(ctx.rpc, account, {
      ...ctx.verifyOptions,
      until: cursor?.signature,
      maxSignatures: cursor ? ctx.o.maxCatchUp : 1000,
    });
    this.lastProgressMs = Date.now();
    if (!sigs.length) return true;
    const judged = await this.judged.among(sigs.map((s) => s.signature));
    const listedAt = ctx.now().getTime();
    for (const s of sigs)
      if (!judged.has(s.signature))
        this.pending.set(s.signature, s.blockTime !== null ? s.blockTime * 1000 : listedAt);
    const results = await Promise.allSettled(
      sigs.map(async (s) => {
        try {
          await this.judgeListed(s, judged, via, account);
        } finally {
          this.pending.delete(s.signature);
          this.lastProgressMs = Date.now();
        }
      }),
    );
    let last: SignatureInfo | undefined;
    let complete = true;
    for (const [i, r] of results.entries()) {
      if (r.status === 'rejected') {
        ctx.emit({ type: 'error', where: `sweep ${account}`, error: r.reason });
        complete = false;
        break;
      }
      last = sigs[i];
    }
    if (last) await ctx.store.setCursor(account, { signature: last.signature, slot: last.slot }, ctx.now());
    return complete;
  }

  /** Judges one listed signature (nothing when already judged); throws when its transaction is not served yet. */
  private async judgeListed(s: SignatureInfo, judged: Set<string>, via: Via, account: string): Promise<void> {
    if (judged.has(s.signature)) return;
    if (s.err !== null && s.err !== undefined) {
      await this.judged.mark(s.signature, 'failed');
      return;
    }
    const done = await this.judge.judge(
      {
        signature: s.signature,
        confirmationStatus: s.confirmationStatus === 'finalized' ? 'finalized' : 'confirmed',
      },
      via,
      account,
    );
    if (!done) throw new Error(`transaction ${s.signature} not available yet`);
  }
}
