/**
 * Judging a signature, once: one getTransaction; its account keys are matched against orders.reference in one
 * indexed lookup; each matched order's transfer (the vendor's token delta for the mint) is recorded; a vendor
 * transfer naming no order yet is kept as unmatched. The signature is then remembered as judged (database, with
 * a bounded memory in front), never fetched again.
 */
import { budgetRetryInMs, rpcBackground } from '../budget';
import { withTimeout, type PaymentTransaction } from '../rpc';
import type { JudgedVerdict } from '../scan-store';
import { classifyTransaction, type LandedPayment } from '../verify';
import { isFollowed, type Seen, type Via, type WatchContext, type WatchedOrder } from './context';
import { BoundedSet, sleepWhile } from './loops';
import { recordTransfer } from './record';
import { signatureFault, type ReadPlace, type UnreadableTransactions } from './unreadable';

const JUDGED_MEMORY = 50_000;
/** Sweeps that may find a listed transaction missing before it is given up. */
const MAX_MISSING = 5;

/** Signatures judged: the store, with a bounded memory in front. */
export class JudgedSignatures {
  private readonly memory = new BoundedSet(JUDGED_MEMORY);

  constructor(private readonly ctx: WatchContext) {}

  known(signature: string): boolean {
    return this.memory.has(signature);
  }

  async among(signatures: string[]): Promise<Set<string>> {
    const out = new Set(signatures.filter((s) => this.memory.has(s)));
    const rest = signatures.filter((s) => !out.has(s));
    if (rest.length) for (const s of await this.ctx.store.judged(rest)) out.add(s);
    return out;
  }

  async has(signature: string): Promise<boolean> {
    return (await this.among([signature])).has(signature);
  }

  /** Already judged by the store (another instance, an earlier life): remembered without a write. */
  remember(signature: string): void {
    this.memory.add(signature);
  }

  async mark(signature: string, verdict: JudgedVerdict): Promise<void> {
    await this.ctx.store.markJudged(signature, verdict, this.ctx.now());
    this.memory.add(signature);
  }
}

/** A queued fetch dropped because the watch ended (stop, or the lease went to another instance). */
export class WatchEndedError extends Error {
  override name = 'WatchEndedError';
  constructor() {
    super('the payment watch ended before this transaction was fetched');
  }
}

export class Judge {
  private readonly running = new Map<string, Promise<void>>();
  /** Listed signatures whose transaction the node did not return, with how many times. */
  private readonly missing = new Map<string, number>();

  constructor(
    private readonly ctx: WatchContext,
    private readonly judged: JudgedSignatures,
    /** Keeps a vendor transfer that names no order yet (unmatched transfers). */
    private readonly keepUnmatched: (signature: string, tx: PaymentTransaction) => Promise<void>,
    /** Sets aside what we cannot read after its tries. */
    private readonly unreadable: () => UnreadableTransactions,
  ) {}

  /**
   * Signatures waiting to be judged or being judged now (the vendor feed's backlog): every signature the feed
   * or a sweep handed over and not judged yet, including those waiting for the RPC budget.
   */
  backlog(): number {
    return this.running.size;
  }

  /**
   * Fetches one transaction through the shared limiter. While watching, a request the RPC budget refuses (its
   * method's share is used up: a backlog) waits until the budget says a slot frees and asks again, keeping its
   * place in the backlog, rather than failing and waiting for the next sweep to list it again. It waits out of
   * the budget's queue (`rpcBackground`), so the backlog never holds up other requests.
   */
  fetch(signature: string): Promise<PaymentTransaction | null> {
    return this.ctx.limiter.run(async () => {
      // The watch ended while this waited its turn (a backlog of thousands): nothing more is fetched, so stopping
      // never waits for the backlog to drain through the budget (the next watcher's sweep lists it again).
      if (!this.ctx.watching()) throw new WatchEndedError();
      for (;;) {
        try {
          return await withTimeout('getTransaction', this.ctx.timeoutMs, () =>
            rpcBackground.run(this.ctx.watching(), () => this.ctx.rpc.getTransaction(signature)),
          );
        } catch (err) {
          const retryInMs = budgetRetryInMs(err);
          if (retryInMs === undefined || !this.ctx.watching()) throw err;
          if (!(await sleepWhile(retryInMs, () => this.ctx.watching()))) throw err;
        }
      }
    });
  }

  /**
   * Fetches with the tries of a transaction we cannot read (unreadable.ts): the transaction, null when the node
   * does not have it, or 'set_aside' once it is set aside. Failures that are not the signature's own propagate.
   */
  async read(signature: string, place: ReadPlace = {}): Promise<PaymentTransaction | null | 'set_aside'> {
    let wait = this.ctx.o.unreadableBackoffMs;
    for (;;) {
      try {
        return await this.fetch(signature);
      } catch (err) {
        if (signatureFault(err) === undefined) throw err;
        if (await this.unreadable().failed(signature, err, place)) return 'set_aside';
        if (!(await sleepWhile(wait, () => this.ctx.running()))) throw err;
        wait *= 2;
      }
    }
  }

  /**
   * Judges one vendor-account signature once (concurrent requests coalesce). Returns false when the node does
   * not have the transaction yet (the next sweep tries again); a transaction we cannot read is set aside after
   * its tries (true: judged); other errors propagate.
   */
  judge(seen: Seen, via: Via, account?: string): Promise<boolean> {
    if (this.judged.known(seen.signature)) return Promise.resolve(true);
    const running = this.running.get(seen.signature);
    if (running) return running.then(() => this.judged.known(seen.signature));
    const p = (async () => {
      try {
        if (await this.judged.has(seen.signature)) {
          this.judged.remember(seen.signature);
          return;
        }
        const tx = await this.read(seen.signature, account ? { account } : {});
        if (tx === 'set_aside') return;
        if (!tx) {
          // Listed but not served (yet): tried again by the next sweeps, then given up (hard cap) so the cursor
          // moves on and nothing is fetched for ever.
          const misses = (this.missing.get(seen.signature) ?? 0) + 1;
          this.missing.set(seen.signature, misses);
          if (misses >= MAX_MISSING) {
            this.missing.delete(seen.signature);
            this.ctx.emit({
              type: 'error',
              where: `judge ${seen.signature}`,
              error: new Error(`getTransaction returned nothing ${misses} times: given up`),
            });
            await this.judged.mark(seen.signature, 'unknown');
          }
          return;
        }
        this.missing.delete(seen.signature);
        const verdict = await this.judgeTransaction(tx, seen, via);
        await this.judged.mark(seen.signature, verdict);
      } finally {
        this.running.delete(seen.signature);
      }
    })();
    this.running.set(seen.signature, p);
    return p.then(() => this.judged.known(seen.signature));
  }

  /** Matches the transaction's keys against orders.reference (one lookup) and records each matched transfer. */
  private async judgeTransaction(tx: PaymentTransaction, seen: Seen, via: Via): Promise<JudgedVerdict> {
    if (tx.err !== null && tx.err !== undefined) return 'failed';
    const matched = await this.ctx.orders.ordersByReferences(tx.accountKeys);
    if (!matched.length) {
      const toVendor = this.ctx.recipients.some(
        (r) => classifyTransaction(tx, { recipientOwner: r, mint: this.ctx.mint }).kind === 'Transfer',
      );
      if (!toVendor) return 'no_transfer';
      // Maybe an order not recorded yet (QR: pay first, then "Send Order Confirmation"): kept by its keys.
      await this.keepUnmatched(seen.signature, tx);
      return 'no_order';
    }
    let verdict: JudgedVerdict = 'no_transfer';
    for (const order of matched) {
      const v = await this.judgeFor(order, tx, seen, via);
      if (v === 'recorded' || verdict === 'no_transfer') verdict = v;
    }
    return verdict;
  }

  /** Judges the transaction for one order and records its transfer. */
  async judgeFor(order: WatchedOrder, tx: PaymentTransaction, seen: Seen, via: Via): Promise<JudgedVerdict> {
    const verdict = classifyTransaction(tx, { recipientOwner: order.recipient, mint: order.mint });
    switch (verdict.kind) {
      case 'Failed':
        return 'failed';
      case 'NoTransfer':
        return 'no_transfer';
      case 'WrongMint':
      case 'WrongRecipient':
        this.ctx.emit({
          type: 'rejected',
          orderId: order.orderId,
          outcome: { kind: verdict.kind, signature: seen.signature },
        });
        return 'refused';
      case 'Transfer': {
        if (!isFollowed(this.ctx, order)) return 'not_followed';
        const landed: LandedPayment = {
          signature: seen.signature,
          receivedBaseUnits: verdict.receivedBaseUnits,
          slot: tx.slot,
          blockTime: tx.blockTime,
          confirmationStatus: seen.confirmationStatus,
        };
        return (await recordTransfer(this.ctx, order, landed, via)) ? 'recorded' : 'refused';
      }
    }
  }
}
