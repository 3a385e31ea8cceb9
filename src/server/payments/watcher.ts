/**
 * The payment watcher, from the vendors' side: every payment lands in a vendor's token account (one per vendor
 * and mint), so the watcher follows those few accounts, not the open orders. Its cost grows with payments, not
 * with open orders.
 *
 * - push: one `logsSubscribe({mentions:[account]})` per vendor token account (ReferenceFeed); a notification names
 *   a signature, which is judged (a notification is a trigger, never proof);
 * - catch-up: `getSignaturesForAddress` on those accounts, paged from a cursor stored in the database (survives
 *   restarts, shared by instances), at start and every `sweepIntervalMs` (every `pollIntervalMs` while the feed
 *   is down or absent);
 * - judging a signature: one `getTransaction`; its account keys are matched against orders.reference in one
 *   indexed lookup; each matched order's transfer (raw token balance change to the vendor for the mint) goes to
 *   the order service's recordPayment. The signature is then remembered as judged (database), never fetched again;
 * - a vendor transfer naming no order yet (a QR buyer may pay before the order is recorded) is kept by its keys
 *   and matched when an order with one of them as reference appears (checked every `refreshIntervalMs`, a join);
 * - finality: the ledger's own unfinalized signatures, one getSignatureStatuses per round, with backoff per
 *   signature and a hard cap; once finalized each is reported again with `finalized: true`;
 * - hints: `onPaymentHint(order, signature)` (POST /api/orders/:id/payment) re-reads that one transaction; at most
 *   one retry loop per order, a few signatures per order, the same time window as the watcher.
 *
 * Followed orders: every priced order, whatever its status, until `lateWindowMs` (24 h) after its quote expiry.
 * Lateness, roles (partial, payment, top_up, extra) and one-signature-one-order are the order service's call
 * (recordPayment, idempotent per signature, UNIQUE in the store).
 */
import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { PublicKey } from '@solana/web3.js';
import type { OrderStatus, PaymentRole } from '../../core/api';
import type { OrderService, RecordPaymentResult, WatchedOrder } from '../orders/service';
import type { ReferenceFeed } from './feed';
import type { PaymentRpc, PaymentTransaction, SignatureInfo } from './rpc';
import { withTimeout } from './rpc';
import { memoryScanStore, type JudgedVerdict, type ScanStore } from './scan-store';
import {
  classifyTransaction,
  isSignature,
  listSignatures,
  verifyHint,
  type ExpectedPayment,
  type LandedPayment,
  type PaymentOutcome,
  type VerifyOptions,
} from './verify';

export type { WatchedOrder };

export type RecordablePayment = Extract<PaymentOutcome, { kind: 'Paid' | 'Underpaid' }>;

/**
 * The order service as the watcher sees it (src/server/orders/service.ts): orders by reference (one indexed
 * lookup), the ledger's unfinalized transfers, the one-signature-one-order check, and recordPayment, which
 * persists the transition and enqueues the e-mails in one transaction.
 */
export type PaymentOrders = Pick<
  OrderService,
  'findOrder' | 'ordersByReferences' | 'unfinalizedPayments' | 'isSignatureUsed' | 'recordPayment'
>;

export type WatcherEvent =
  /**
   * A transfer was recorded in the order's ledger. `outcome.kind` judges the transfer alone against the amount
   * (Paid: at least the amount); `role` is its place in the ledger, `status` the order's status after it.
   */
  | {
      type: 'recorded';
      orderId: string;
      outcome: RecordablePayment;
      role: PaymentRole;
      status: OrderStatus;
      via: Via;
    }
  | { type: 'rejected'; orderId: string; outcome: PaymentOutcome }
  /** A partial sum while the quote is still open: recorded (role partial), the order stays awaiting_payment. */
  | { type: 'partial'; orderId: string; outcome: Extract<PaymentOutcome, { kind: 'Underpaid' }> }
  /** A recorded transfer reached finalized commitment. */
  | { type: 'final'; orderId: string; signature: string }
  | { type: 'error'; where: string; error: unknown };

export interface PaymentWatcherOptions {
  rpc: PaymentRpc;
  orders: PaymentOrders;
  /** The vendors' wallets: their token accounts for `mint` are where payments land. */
  recipients: string[];
  /** The $CLAIM mint. */
  mint: string;
  /** Push notifications (WsLogsFeed) on the vendors' token accounts. Without one the watcher sweeps. */
  feed?: ReferenceFeed;
  /** Cursors, judged signatures, unmatched transfers (database). Default: in memory. */
  scanStore?: ScanStore;
  now?: () => Date;
  /** Match remembered unmatched vendor transfers against new orders. Default 1000 ms. */
  refreshIntervalMs?: number;
  /** Sweep the vendors' token accounts while the feed is unhealthy or absent. Default 2000 ms. */
  pollIntervalMs?: number;
  /** Sweep the vendors' token accounts while the feed is healthy (safety net). Default 15 s. */
  sweepIntervalMs?: number;
  /** Poll the ledger's unfinalized signatures. Default 3000 ms (each signature backs off from there). */
  finalityIntervalMs?: number;
  /** Give up polling one signature's finality after this long. Default 1 h. */
  finalityGiveUpMs?: number;
  /** References stay followed this long after the quote expires. Default 24 h. */
  lateWindowMs?: number;
  /**
   * Who this watcher is in the stored progress (payment_watch_progress.holder: the lease holder on PostgreSQL).
   * Default 'local'.
   */
  instanceId?: string;
  /** Quote lifetime (unmatched transfers are kept for it plus the late window). Default 15 min. */
  quoteTtlMs?: number;
  /** Transactions fetched at once. Default 4. */
  concurrency?: number;
  /** How long a hint whose transaction is not yet confirmed keeps being retried. Default 15 s. */
  hintRetryMs?: number;
  /** Signatures one order's hint loop follows at most. Default 3. */
  hintsPerOrder?: number;
  /** Signatures read per account per sweep at most (first run without a cursor: 1000). Default 10000. */
  maxCatchUp?: number;
  verify?: VerifyOptions;
  onEvent?: (event: WatcherEvent) => void;
}

export type Via = 'feed' | 'poll' | 'sweep' | 'hint' | 'start' | 'match';

function describeRefusal(r: Exclude<RecordPaymentResult, { ok: true }>): string {
  return r.reason === 'signature_used'
    ? `signature already pays order ${r.otherOrderId}`
    : 'status' in r
      ? `${r.reason} (status ${r.status})`
      : r.reason;
}

class Semaphore {
  private active = 0;
  private readonly queue: (() => void)[] = [];
  constructor(private readonly limit: number) {}
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.queue.push(resolve));
    this.active++;
    try {
      return await fn();
    } finally {
      this.active--;
      this.queue.shift()?.();
    }
  }
}

/** A signature's place in the chain, as far as the caller knows it. */
interface Seen {
  signature: string;
  confirmationStatus: 'confirmed' | 'finalized';
}

const JUDGED_MEMORY = 50_000;
/** Sweeps that may find a listed transaction missing before it is given up. */
const MAX_MISSING = 5;

export class PaymentWatcher {
  private readonly rpc: PaymentRpc;
  private readonly orders: PaymentOrders;
  private readonly feed: ReferenceFeed | undefined;
  private readonly store: ScanStore;
  private readonly now: () => Date;
  private readonly o: Required<
    Omit<
      PaymentWatcherOptions,
      | 'rpc'
      | 'orders'
      | 'feed'
      | 'now'
      | 'verify'
      | 'onEvent'
      | 'recipients'
      | 'mint'
      | 'scanStore'
      | 'instanceId'
    >
  >;
  private readonly instanceId: string;
  /** When this instance took the watch (lag before its first catch-up counts from here). */
  private watchingSince: Date | undefined;
  /** Start of the last sweep pass that listed every vendor account to its head and judged all it found. */
  private caughtUpAt: Date | undefined;
  private readonly verifyOptions: VerifyOptions;
  private readonly timeoutMs: number;
  private readonly emit: (e: WatcherEvent) => void;
  private readonly recipients: string[];
  private readonly mint: string;
  /** The vendors' token accounts (associated token account per recipient for the mint). */
  readonly tokenAccounts: string[];
  private readonly limiter: Semaphore;
  private readonly recordLock = new Semaphore(1);

  /** Hints are served (start() until stop()). */
  private running = false;
  /** The vendor accounts are watched (this instance holds the watch). */
  private watching = false;
  /** stop() was called: nothing starts again until start(). */
  private closed = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly tasks = new Set<Promise<unknown>>();
  private readonly sleepers = new Set<() => void>();
  /** Signatures judged (memory in front of the store; insertion order, bounded). */
  private readonly judgedMemory = new Map<string, true>();
  private readonly judging = new Map<string, Promise<void>>();
  /** Listed signatures whose transaction the node did not return, with how many times. */
  private readonly missing = new Map<string, number>();
  private sweeping: Promise<void> | null = null;
  private sweepAgain = false;
  /** Finality backoff per signature. */
  private readonly finality = new Map<string, { firstAt: number; nextAt: number; delay: number }>();
  /** One hint loop per order: the signatures it still waits for. */
  private readonly hintLoops = new Map<string, Set<string>>();
  /** Hints already judged for an order (`orderId:signature`), bounded. */
  private readonly hintsJudged = new Map<string, true>();
  private lastPrune = 0;

  constructor(options: PaymentWatcherOptions) {
    this.rpc = options.rpc;
    this.orders = options.orders;
    this.feed = options.feed;
    this.now = options.now ?? (() => new Date());
    this.verifyOptions = options.verify ?? {};
    this.timeoutMs = this.verifyOptions.timeoutMs ?? 5_000;
    this.store =
      options.scanStore ??
      memoryScanStore(async (reference) => (await this.orders.findOrder({ reference }))?.orderId);
    this.emit = (e) => {
      try {
        options.onEvent?.(e);
      } catch {
        // A broken listener must not stop the watcher.
      }
    };
    this.o = {
      refreshIntervalMs: options.refreshIntervalMs ?? 1000,
      pollIntervalMs: options.pollIntervalMs ?? 2000,
      sweepIntervalMs: options.sweepIntervalMs ?? 15_000,
      finalityIntervalMs: options.finalityIntervalMs ?? 3000,
      finalityGiveUpMs: options.finalityGiveUpMs ?? 60 * 60_000,
      lateWindowMs: options.lateWindowMs ?? 24 * 60 * 60_000,
      quoteTtlMs: options.quoteTtlMs ?? 15 * 60_000,
      concurrency: options.concurrency ?? 4,
      hintRetryMs: options.hintRetryMs ?? 15_000,
      hintsPerOrder: options.hintsPerOrder ?? 3,
      maxCatchUp: options.maxCatchUp ?? 10_000,
    };
    this.limiter = new Semaphore(this.o.concurrency);
    this.instanceId = options.instanceId ?? 'local';
    this.mint = options.mint;
    this.recipients = [...new Set(options.recipients)];
    const mint = new PublicKey(options.mint);
    this.tokenAccounts = this.recipients.map((r) =>
      getAssociatedTokenAddressSync(mint, new PublicKey(r), true).toBase58(),
    );
  }

  /**
   * Serves hints and, unless `watch: false` (another instance holds the watch), watches the vendor accounts:
   * subscribes, catches up from the stored cursors (payments made while nobody watched), starts the loops.
   */
  async start(opts: { watch?: boolean } = {}): Promise<void> {
    this.running = true;
    this.closed = false;
    if (opts.watch !== false) await this.startWatching();
  }

  /** Takes the watch: subscriptions, catch-up from the cursors, loops. */
  async startWatching(): Promise<void> {
    if (this.closed || this.watching) return;
    this.running = true;
    this.watching = true;
    this.watchingSince = this.now();
    for (const account of this.tokenAccounts) {
      this.feed?.watch(account, (signature) => {
        this.track(this.judge({ signature, confirmationStatus: 'confirmed' }, 'feed'));
      });
    }
    await this.guard('start', () => this.sweep('start'));
    await this.guard('match', () => this.matchUnmatched());
    // The loop looks at the feed every poll interval, so a feed that drops is noticed within one (not after the
    // 15 s sweep already scheduled); it costs RPC only when a pass runs: every poll interval while the feed is
    // down, every sweep interval while it is healthy.
    let lastPass = performance.now();
    this.loop(
      'sweep',
      () => this.unhealthyInterval(),
      async () => {
        const healthy = this.feedHealthy();
        if (healthy && performance.now() - lastPass < this.o.sweepIntervalMs) return;
        lastPass = performance.now();
        await this.sweep(
          healthy ? 'sweep' : this.o.pollIntervalMs <= this.o.sweepIntervalMs ? 'poll' : 'sweep',
        );
      },
    );
    this.loop(
      'match',
      () => this.o.refreshIntervalMs,
      () => this.matchUnmatched(),
    );
    this.loop(
      'finality',
      () => this.o.finalityIntervalMs,
      () => this.checkFinality(),
    );
  }

  /** Gives up the watch (loops, subscriptions); hints are still served. */
  async stopWatching(): Promise<void> {
    if (!this.watching) return;
    this.watching = false;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const account of this.tokenAccounts) this.feed?.unwatch(account);
    while (this.tasks.size) await Promise.allSettled([...this.tasks]);
  }

  isWatching(): boolean {
    return this.watching;
  }

  /**
   * How far behind the chain this watcher is: seconds since the start of its last sweep pass that listed every
   * vendor token account up to the chain's head and judged everything it found (everything that landed before
   * then has been judged); before its first such pass, since it took the watch. Undefined when not watching.
   * With the feed healthy a pass runs every `sweepIntervalMs` (15 s), while it is down every `pollIntervalMs`;
   * when the RPC fails passes fail and the lag grows.
   */
  lagSeconds(): number | undefined {
    if (!this.watching) return undefined;
    const since = this.caughtUpAt ?? this.watchingSince;
    return since ? Math.max(0, (this.now().getTime() - since.getTime()) / 1000) : undefined;
  }

  /** Start of the last complete sweep pass (see lagSeconds). */
  lastCaughtUpAt(): Date | undefined {
    return this.caughtUpAt;
  }

  /** Stops everything and waits for work in progress. The feed itself is closed by its owner. */
  async stop(): Promise<void> {
    this.closed = true;
    this.running = false;
    this.watching = false;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const wake of this.sleepers) wake();
    this.sleepers.clear();
    for (const account of this.tokenAccounts) this.feed?.unwatch(account);
    while (this.tasks.size) await Promise.allSettled([...this.tasks]);
  }

  /**
   * The wallet page reported `signature` for `order`: re-read that one transaction and record the payment if it
   * checks out. A signature already judged is not fetched again. One retry loop per order (while the
   * transaction is not yet confirmed, for `hintRetryMs`), following at most `hintsPerOrder` signatures; only
   * within the watch window of the order.
   */
  async onPaymentHint(order: WatchedOrder, signature: string): Promise<PaymentOutcome> {
    if (!isSignature(signature)) return { kind: 'NotFound', reason: 'malformed_signature' };
    if (!this.isFollowed(order)) return { kind: 'NotFound', reason: 'not_followed' };
    const key = `${order.orderId}:${signature}`;
    if (order.payments.some((p) => p.signature === signature) || this.hintsJudged.has(key))
      return { kind: 'NotFound', reason: 'already_judged' };
    const loop = this.hintLoops.get(order.orderId);
    if (loop?.has(signature)) return { kind: 'NotFound', reason: 'not_confirmed' };
    if (await this.isJudged(signature)) return { kind: 'NotFound', reason: 'already_judged' };
    const outcome = await this.checkHint(order, signature);
    if (outcome.kind === 'NotFound' && outcome.reason === 'not_confirmed') {
      if (loop) {
        if (loop.size < this.o.hintsPerOrder) loop.add(signature);
      } else {
        this.hintLoops.set(order.orderId, new Set([signature]));
        this.track(this.retryHints(order));
      }
    } else this.rememberHint(key);
    return outcome;
  }

  /** The order service's hint hook: `orders.setPaymentHintHandler(watcher.hintHandler())`. */
  hintHandler(): (order: WatchedOrder, signature: string) => Promise<void> {
    return async (order, signature) => {
      if (!this.running) return;
      await this.guard(`hint ${order.orderId}`, () => this.onPaymentHint(order, signature));
    };
  }

  /** One catch-up sweep over the vendors' token accounts from the stored cursors (exposed for tests). */
  async reconcile(): Promise<void> {
    await this.sweep('sweep');
  }

  /** Reports the ledger's transfers that reached finalized (paid → final once all count) (exposed for tests). */
  async checkFinality(): Promise<void> {
    const nowMs = Date.now();
    const pending = await this.orders.unfinalizedPayments(1000);
    const live = new Set(pending.map((p) => p.signature));
    for (const s of this.finality.keys()) if (!live.has(s)) this.finality.delete(s);
    const due = pending
      .filter((p) => {
        let f = this.finality.get(p.signature);
        if (!f) {
          f = { firstAt: nowMs, nextAt: nowMs, delay: this.o.finalityIntervalMs };
          this.finality.set(p.signature, f);
        }
        return f.nextAt <= nowMs && nowMs - f.firstAt <= this.o.finalityGiveUpMs;
      })
      .slice(0, 256);
    if (!due.length) return;
    // One request for up to 256 signatures, whatever the number of orders.
    const statuses = await withTimeout('getSignatureStatuses', this.timeoutMs, () =>
      this.rpc.getSignatureStatuses(due.map((d) => d.signature)),
    );
    for (const [i, p] of due.entries()) {
      const s = statuses[i];
      const f = this.finality.get(p.signature);
      if (!s || s.confirmationStatus !== 'finalized' || (s.err !== null && s.err !== undefined)) {
        if (f) {
          f.delay = Math.min(Math.round(f.delay * 1.5), 60_000);
          f.nextAt = Date.now() + f.delay;
        }
        continue;
      }
      // The same signature again, now finalized: the order service marks it and moves paid → final when every
      // payment counting toward the amount is finalized (paid_late stays).
      const result = await this.recordLock.run(() =>
        this.orders.recordPayment(
          { orderId: p.orderId },
          {
            signature: p.signature,
            receivedBaseUnits: p.receivedBaseUnits,
            finalized: true,
            blockTime: null,
          },
        ),
      );
      this.finality.delete(p.signature);
      if (result.ok) this.emit({ type: 'final', orderId: p.orderId, signature: p.signature });
      else
        this.emit({
          type: 'error',
          where: `finalize ${p.orderId}`,
          error: new Error(describeRefusal(result)),
        });
    }
  }

  /** Any status, until the late window after the quote expiry closes (awaiting_payment until it expires). */
  private isFollowed(o: WatchedOrder): boolean {
    return (
      o.status === 'awaiting_payment' || this.now().getTime() <= o.expiresAt.getTime() + this.o.lateWindowMs
    );
  }

  private feedHealthy(): boolean {
    return this.feed?.healthy() ?? false;
  }

  private unhealthyInterval(): number {
    return Math.min(this.o.pollIntervalMs, this.o.sweepIntervalMs);
  }

  /** Sweeps coalesce: one at a time, a request during one runs once more after it. */
  private sweep(via: Via): Promise<void> {
    if (this.sweeping) {
      this.sweepAgain = true;
      return this.sweeping;
    }
    const run = (async () => {
      try {
        do {
          this.sweepAgain = false;
          const startedAt = this.now();
          let complete = true;
          for (const account of this.tokenAccounts) {
            // A failed account does not stop the others; the pass then does not count as caught up.
            try {
              if (!(await this.sweepAccount(account, via))) complete = false;
            } catch (error) {
              complete = false;
              this.emit({ type: 'error', where: `sweep ${account}`, error });
            }
          }
          if (complete && this.watching) {
            this.caughtUpAt = startedAt;
            await this.store.setProgress('payments', this.instanceId, startedAt);
          }
        } while (this.sweepAgain && this.running);
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
    const cursor = await this.store.cursor(account);
    const sigs: SignatureInfo[] = await listSignatures(this.rpc, account, {
      ...this.verifyOptions,
      until: cursor?.signature,
      maxSignatures: cursor ? this.o.maxCatchUp : 1000,
    });
    if (!sigs.length) return true;
    const judged = await this.judgedAmong(sigs.map((s) => s.signature));
    const results = await Promise.allSettled(
      sigs.map(async (s) => {
        if (judged.has(s.signature)) return;
        if (s.err !== null && s.err !== undefined) {
          await this.markJudged(s.signature, 'failed');
          return;
        }
        const done = await this.judge(
          {
            signature: s.signature,
            confirmationStatus: s.confirmationStatus === 'finalized' ? 'finalized' : 'confirmed',
          },
          via,
        );
        if (!done) throw new Error(`transaction ${s.signature} not available yet`);
      }),
    );
    let last: SignatureInfo | undefined;
    let complete = true;
    for (const [i, r] of results.entries()) {
      if (r.status === 'rejected') {
        this.emit({ type: 'error', where: `sweep ${account}`, error: r.reason });
        complete = false;
        break;
      }
      last = sigs[i];
    }
    if (last) await this.store.setCursor(account, { signature: last.signature, slot: last.slot }, this.now());
    return complete;
  }

  private async judgedAmong(signatures: string[]): Promise<Set<string>> {
    const out = new Set(signatures.filter((s) => this.judgedMemory.has(s)));
    const rest = signatures.filter((s) => !out.has(s));
    if (rest.length) for (const s of await this.store.judged(rest)) out.add(s);
    return out;
  }

  private async isJudged(signature: string): Promise<boolean> {
    return (await this.judgedAmong([signature])).has(signature);
  }

  private async markJudged(signature: string, verdict: JudgedVerdict): Promise<void> {
    await this.store.markJudged(signature, verdict, this.now());
    this.judgedMemory.set(signature, true);
    if (this.judgedMemory.size > JUDGED_MEMORY) {
      const oldest = this.judgedMemory.keys().next().value;
      if (oldest !== undefined) this.judgedMemory.delete(oldest);
    }
  }

  /**
   * Judges one vendor-account signature once (concurrent requests coalesce). Returns false when the node does
   * not have the transaction yet (the next sweep tries again); errors propagate.
   */
  private judge(seen: Seen, via: Via): Promise<boolean> {
    if (this.judgedMemory.has(seen.signature)) return Promise.resolve(true);
    const running = this.judging.get(seen.signature);
    if (running) return running.then(() => this.judgedMemory.has(seen.signature));
    const p = (async () => {
      try {
        if (await this.isJudged(seen.signature)) {
          this.judgedMemory.set(seen.signature, true);
          return;
        }
        const tx = await this.limiter.run(() =>
          withTimeout('getTransaction', this.timeoutMs, () => this.rpc.getTransaction(seen.signature)),
        );
        if (!tx) {
          // Listed but not served (yet): tried again by the next sweeps, then given up (hard cap) so the cursor
          // moves on and nothing is fetched for ever.
          const misses = (this.missing.get(seen.signature) ?? 0) + 1;
          this.missing.set(seen.signature, misses);
          if (misses >= MAX_MISSING) {
            this.missing.delete(seen.signature);
            this.emit({
              type: 'error',
              where: `judge ${seen.signature}`,
              error: new Error(`getTransaction returned nothing ${misses} times: given up`),
            });
            await this.markJudged(seen.signature, 'unknown');
          }
          return;
        }
        this.missing.delete(seen.signature);
        const verdict = await this.judgeTransaction(tx, seen, via);
        await this.markJudged(seen.signature, verdict);
      } finally {
        this.judging.delete(seen.signature);
      }
    })();
    this.judging.set(seen.signature, p);
    return p.then(() => this.judgedMemory.has(seen.signature));
  }

  /** Matches the transaction's keys against orders.reference (one lookup) and records each matched transfer. */
  private async judgeTransaction(tx: PaymentTransaction, seen: Seen, via: Via): Promise<JudgedVerdict> {
    if (tx.err !== null && tx.err !== undefined) return 'failed';
    const matched = await this.orders.ordersByReferences(tx.accountKeys);
    if (!matched.length) {
      const toVendor = this.recipients.some(
        (r) => classifyTransaction(tx, { recipientOwner: r, mint: this.mint }).kind === 'Transfer',
      );
      if (!toVendor) return 'no_transfer';
      // Maybe an order not recorded yet (QR: pay first, then "Send Order Confirmation"): kept by its keys.
      await this.store.addUnmatched(seen.signature, tx.accountKeys, this.now());
      return 'no_order';
    }
    let verdict: JudgedVerdict = 'no_transfer';
    for (const order of matched) {
      const v = await this.judgeFor(order, tx, seen, via);
      if (v === 'recorded' || verdict === 'no_transfer') verdict = v;
    }
    return verdict;
  }

  private async judgeFor(
    order: WatchedOrder,
    tx: PaymentTransaction,
    seen: Seen,
    via: Via,
  ): Promise<JudgedVerdict> {
    const verdict = classifyTransaction(tx, { recipientOwner: order.recipient, mint: order.mint });
    switch (verdict.kind) {
      case 'Failed':
        return 'failed';
      case 'NoTransfer':
        return 'no_transfer';
      case 'WrongMint':
      case 'WrongRecipient':
        this.emit({
          type: 'rejected',
          orderId: order.orderId,
          outcome: { kind: verdict.kind, signature: seen.signature },
        });
        return 'refused';
      case 'Transfer': {
        if (!this.isFollowed(order)) return 'not_followed';
        const landed: LandedPayment = {
          signature: seen.signature,
          receivedBaseUnits: verdict.receivedBaseUnits,
          slot: tx.slot,
          blockTime: tx.blockTime,
          confirmationStatus: seen.confirmationStatus,
        };
        return (await this.record(order, landed, via)) ? 'recorded' : 'refused';
      }
    }
  }

  /** Unmatched vendor transfers whose key is now an order's reference: judged again for that order. */
  private async matchUnmatched(): Promise<void> {
    const nowMs = this.now().getTime();
    if (nowMs - this.lastPrune > 60_000) {
      this.lastPrune = nowMs;
      await this.store.pruneUnmatched(new Date(nowMs - this.o.quoteTtlMs - this.o.lateWindowMs));
    }
    const found = await this.store.matchedUnmatched();
    for (const { signature, orderId } of found) {
      const order = await this.orders.findOrder({ orderId });
      if (order) {
        const tx = await this.limiter.run(() =>
          withTimeout('getTransaction', this.timeoutMs, () => this.rpc.getTransaction(signature)),
        );
        if (!tx) continue;
        const [status] = await withTimeout('getSignatureStatuses', this.timeoutMs, () =>
          this.rpc.getSignatureStatuses([signature]),
        );
        const verdict = await this.judgeFor(
          order,
          tx,
          {
            signature,
            confirmationStatus: status?.confirmationStatus === 'finalized' ? 'finalized' : 'confirmed',
          },
          'match',
        );
        await this.markJudged(signature, verdict);
      }
      await this.store.dropUnmatched(signature);
    }
  }

  private expected(order: WatchedOrder): ExpectedPayment {
    return {
      reference: order.reference,
      recipientOwner: order.recipient,
      mint: order.mint,
      amountBaseUnits: order.amountBaseUnits,
      usedSignature: (signature) => this.orders.isSignatureUsed(signature, order.orderId),
    };
  }

  /**
   * Records one transfer in the order's ledger (one record at a time; the service re-checks that the signature
   * is free and records each signature once). True when the ledger has it for this order afterwards.
   */
  private async record(order: WatchedOrder, landed: LandedPayment, via: Via): Promise<boolean> {
    return this.recordLock.run(async () => {
      const result = await this.orders.recordPayment(
        { orderId: order.orderId },
        {
          signature: landed.signature,
          receivedBaseUnits: landed.receivedBaseUnits,
          finalized: landed.confirmationStatus === 'finalized',
          blockTime: landed.blockTime,
          slot: landed.slot,
        },
      );
      const outcome: RecordablePayment =
        landed.receivedBaseUnits >= order.amountBaseUnits
          ? { kind: 'Paid', ...landed, overpaid: landed.receivedBaseUnits > order.amountBaseUnits }
          : { kind: 'Underpaid', ...landed };
      if (!result.ok) {
        if (result.reason === 'signature_used') {
          this.emit({
            type: 'rejected',
            orderId: order.orderId,
            outcome: { kind: 'AlreadyUsed', signature: landed.signature },
          });
        } else if (result.reason !== 'order_not_found') {
          this.emit({
            type: 'error',
            where: `record ${order.orderId}`,
            error: new Error(describeRefusal(result)),
          });
        }
        return false;
      }
      if (!result.changed) return true;
      this.emit({
        type: 'recorded',
        orderId: order.orderId,
        outcome,
        role: result.role,
        status: result.status,
        via,
      });
      // Already finalized when first seen (e.g. found late): the order went straight to final.
      if (result.status === 'final' && order.status !== 'final') {
        this.emit({ type: 'final', orderId: order.orderId, signature: landed.signature });
      }
      if (result.role === 'partial' && result.status === 'awaiting_payment' && outcome.kind === 'Underpaid') {
        this.emit({ type: 'partial', orderId: order.orderId, outcome });
      }
      return true;
    });
  }

  private async checkHint(order: WatchedOrder, signature: string): Promise<PaymentOutcome> {
    const outcome = await verifyHint(this.rpc, this.expected(order), signature, this.verifyOptions);
    if (outcome.kind === 'Paid' || outcome.kind === 'Underpaid') {
      const { kind: _kind, ...landed } = outcome;
      await this.record(order, landed, 'hint');
    } else if (outcome.kind !== 'NotFound') this.emit({ type: 'rejected', orderId: order.orderId, outcome });
    return outcome;
  }

  private rememberHint(key: string): void {
    this.hintsJudged.set(key, true);
    if (this.hintsJudged.size > JUDGED_MEMORY) {
      const oldest = this.hintsJudged.keys().next().value;
      if (oldest !== undefined) this.hintsJudged.delete(oldest);
    }
  }

  /** The order's one hint loop: retries its unconfirmed signatures with backoff until `hintRetryMs` passes. */
  private async retryHints(order: WatchedOrder): Promise<void> {
    const deadline = Date.now() + this.o.hintRetryMs;
    let delay = 500;
    try {
      while (this.running && Date.now() < deadline) {
        await this.sleep(delay);
        delay = Math.min(delay * 2, 4000);
        const pending = this.hintLoops.get(order.orderId);
        if (!pending?.size) return;
        for (const signature of [...pending]) {
          const outcome = await this.guard(`hint ${order.orderId}`, () => this.checkHint(order, signature));
          if (outcome && !(outcome.kind === 'NotFound' && outcome.reason === 'not_confirmed')) {
            pending.delete(signature);
            this.rememberHint(`${order.orderId}:${signature}`);
          }
        }
      }
    } finally {
      this.hintLoops.delete(order.orderId);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(t);
        this.timers.delete(t);
        this.sleepers.delete(wake);
        resolve();
      };
      const t = setTimeout(wake, ms);
      this.timers.add(t);
      this.sleepers.add(wake);
      t.unref?.();
    });
  }

  /** A self-rescheduling loop: the next run starts `ms()` after the previous one finished (never overlapping). */
  private loop(where: string, ms: () => number, fn: () => Promise<void>): void {
    const tick = () => {
      if (!this.watching) return;
      const t = setTimeout(() => {
        this.timers.delete(t);
        const run = this.guard(where, fn).then(tick);
        this.track(run);
      }, ms());
      this.timers.add(t);
      t.unref?.();
    };
    tick();
  }

  private track(p: Promise<unknown>): void {
    const tracked = p.catch((error: unknown) => this.emit({ type: 'error', where: 'task', error }));
    this.tasks.add(tracked);
    void tracked.finally(() => this.tasks.delete(tracked));
  }

  private async guard<T>(where: string, fn: () => Promise<T>): Promise<T | undefined> {
    try {
      return await fn();
    } catch (error) {
      this.emit({ type: 'error', where, error });
      return undefined;
    }
  }
}
