/**
 * The payment watcher, from the vendors' side: every payment lands in a vendor's token account (one per vendor
 * and mint), so the watcher follows those few accounts, not the open orders. Its cost grows with payments, not
 * with open orders. This file is its lifecycle (start, watch, stop, lag) and wiring; each job is its own part
 * in `watch/`:
 *
 * - `sweep.ts`, feed and sweeps: one `logsSubscribe({mentions:[account]})` per vendor token account
 *   (ReferenceFeed; a notification names a signature, which is judged, never trusted), and the catch-up
 *   (`getSignaturesForAddress` from a cursor stored in the database) at start and every `sweepIntervalMs`
 *   (every `pollIntervalMs` while the feed is down or absent);
 * - `judge.ts`, judging a signature once: one `getTransaction`, its keys matched against orders.reference in one
 *   indexed lookup, each matched order's transfer recorded; remembered as judged (database);
 * - `unmatched.ts`: a vendor transfer naming no order yet is kept by its keys and matched when such an order
 *   appears (every `refreshIntervalMs`, a join);
 * - `record.ts`, recording and events: the order service's recordPayment and the watcher's events;
 * - `finality.ts`: the ledger's own unfinalized signatures, batched, with backoff and a cap;
 * - `hints.ts`: `onPaymentHint(order, signature)` re-reads that one transaction, one retry loop per order;
 * - `loops.ts`: the background-loop helpers (loops, sleeps, tracked tasks, guards, a semaphore).
 *
 * Followed orders: every priced order, whatever its status, until `lateWindowMs` (24 h) after its quote expiry.
 * Lateness, roles (partial, payment, top_up, extra) and one-signature-one-order are the order service's call
 * (recordPayment, idempotent per signature, UNIQUE in the store).
 */
import { associatedTokenAddress } from './ata';
import { memoryScanStore } from './scan-store';
import type { PaymentOutcome } from './verify';
import {
  tuningOf,
  type PaymentWatcherOptions,
  type WatchContext,
  type WatchedOrder,
  type WatcherEvent,
} from './watch/context';
import { AwaitedOrders } from './watch/awaited';
import { FinalityTracker } from './watch/finality';
import { Hints } from './watch/hints';
import { Judge, JudgedSignatures } from './watch/judge';
import { Lane } from './watch/lanes';
import { Background, Semaphore } from './watch/loops';
import { Sweeper } from './watch/sweep';
import type { Waiter } from './watch/waiting';
import { UnmatchedTransfers } from './watch/unmatched';
import { UnreadableTransactions } from './watch/unreadable';

export type {
  PaymentOrders,
  PaymentWatcherOptions,
  RecordablePayment,
  Via,
  WatchedOrder,
  WatcherEvent,
} from './watch/context';

export class PaymentWatcher {
  /** The vendors' token accounts (associated token account per recipient for the mint). */
  readonly tokenAccounts: string[];
  private readonly ctx: WatchContext;
  private readonly feed: PaymentWatcherOptions['feed'];
  private readonly background: Background;
  private readonly sweeper: Sweeper;
  private readonly judge: Judge;
  private readonly unmatched: UnmatchedTransfers;
  private readonly finality: FinalityTracker;
  private readonly hints: Hints;
  private readonly awaited: AwaitedOrders;
  private readonly unreadable: UnreadableTransactions;

  /** Hints are served (start() until stop()). */
  private running = false;
  /** The vendor accounts are watched (this instance holds the watch). */
  private watching = false;
  /** stop() was called: nothing starts again until start(). */
  private closed = false;
  /** When this instance took the watch (lag before its first catch-up counts from here). */
  private watchingSince: Date | undefined;
  /** When the previous holder last caught up (stored progress, read when the watch is taken). */
  private previousCaughtUpAt: Date | undefined;
  /** Date.now() when this instance took the watch (the catch-up's progress is measured from it). */
  private watchStartedMs = 0;

  constructor(options: PaymentWatcherOptions) {
    const o = tuningOf(options);
    const now = options.now ?? (() => new Date());
    const verifyOptions = options.verify ?? {};
    const emit = (e: WatcherEvent) => {
      try {
        options.onEvent?.(e);
      } catch {
        // A broken listener must not stop the watcher.
      }
    };
    this.background = new Background((where, error) => emit({ type: 'error', where, error }));
    this.feed = options.feed;
    const recipients = [...new Set(options.recipients)];
    this.tokenAccounts = recipients.map((r) => associatedTokenAddress(options.mint, r));
    this.ctx = {
      rpc: options.rpc,
      orders: options.orders,
      store:
        options.scanStore ??
        memoryScanStore(async (reference) => (await options.orders.findOrder({ reference }))?.orderId),
      now,
      o,
      verifyOptions,
      timeoutMs: verifyOptions.timeoutMs ?? 5_000,
      emit,
      recipients,
      mint: options.mint,
      limiter: new Semaphore(o.concurrency),
      recordLock: new Semaphore(1),
      background: this.background,
      running: () => this.running,
      watching: () => this.watching,
    };
    const judged = new JudgedSignatures(this.ctx);
    this.unmatched = new UnmatchedTransfers(this.ctx, judged, () => this.judge);
    this.judge = new Judge(
      this.ctx,
      judged,
      (signature, tx) => this.unmatched.keep(signature, tx),
      () => this.unreadable,
    );
    this.sweeper = new Sweeper(
      this.ctx,
      this.tokenAccounts,
      options.instanceId ?? 'local',
      judged,
      this.judge,
    );
    this.finality = new FinalityTracker(this.ctx);
    this.unreadable = new UnreadableTransactions(this.ctx, judged, () => this.awaited.orderIds());
    this.hints = new Hints(this.ctx, judged, new Lane('hints', o.hintsPer10s), this.unreadable);
    this.awaited = new AwaitedOrders(
      this.ctx,
      judged,
      this.judge,
      new Lane('priority', o.priorityPer10s),
      this.unreadable,
    );
  }

  /**
   * Serves hints and, unless `watch: false` (another instance holds the watch), watches the vendor accounts:
   * subscribes, catches up from the stored cursors (payments made while nobody watched), starts the loops. With
   * `background: true` it returns once the loops run, the catch-up going on behind (catchUp() says how far).
   */
  async start(opts: { watch?: boolean; background?: boolean } = {}): Promise<void> {
    this.running = true;
    this.closed = false;
    if (opts.watch !== false) await this.startWatching(opts);
  }

  /**
   * Takes the watch: subscriptions, loops, and the catch-up from the cursors (awaited unless `background`: a
   * fresh instance serves buyers while it catches up, its priority checks seeing their payments meanwhile).
   */
  async startWatching(opts: { background?: boolean } = {}): Promise<void> {
    if (this.closed || this.watching) return;
    this.running = true;
    this.watching = true;
    this.watchingSince = this.ctx.now();
    this.watchStartedMs = Date.now();
    const bg = this.background;
    for (const account of this.tokenAccounts) {
      this.feed?.watch(account, (signature) => {
        // Under a backlog a notification waits its turn (judge.ts); one still waiting when the watch ends is
        // dropped quietly (the next watcher's sweep lists it again from the stored cursor).
        bg.track(
          this.judge.judge({ signature, confirmationStatus: 'confirmed' }, 'feed').catch((error: unknown) => {
            if (this.watching) throw error;
            return false;
          }),
        );
      });
    }
    const catchUp = (async () => {
      this.previousCaughtUpAt = (await bg.guard('progress', () => this.ctx.store.progress('payments')))
        ?.caughtUpAt;
      await bg.guard('start', () => this.sweeper.sweep('start'));
      await bg.guard('match', () => this.unmatched.match());
    })();
    bg.track(catchUp);
    // The loop looks at the feed every poll interval, so a feed that drops is noticed within one (not after the
    // 15 s sweep already scheduled); it costs RPC only when a pass runs: every poll interval while the feed is
    // down, every sweep interval while it is healthy.
    const { o } = this.ctx;
    const watching = () => this.watching;
    let lastPass = performance.now();
    bg.loop(
      'sweep',
      watching,
      () => Math.min(o.pollIntervalMs, o.sweepIntervalMs),
      async () => {
        const healthy = this.feed?.healthy() ?? false;
        if (healthy && performance.now() - lastPass < o.sweepIntervalMs) return;
        lastPass = performance.now();
        await this.sweeper.sweep(
          healthy ? 'sweep' : o.pollIntervalMs <= o.sweepIntervalMs ? 'poll' : 'sweep',
        );
      },
    );
    bg.loop(
      'match',
      watching,
      () => o.refreshIntervalMs,
      () => this.unmatched.match(),
    );
    bg.loop(
      'priority',
      watching,
      () => o.priorityIntervalMs,
      () => this.awaited.round(),
    );
    bg.loop(
      'finality',
      watching,
      () => o.finalityIntervalMs,
      () => this.finality.check(),
    );
    if (!opts.background) await catchUp;
  }

  /** Gives up the watch (loops, subscriptions); hints are still served. */
  async stopWatching(): Promise<void> {
    if (!this.watching) return;
    this.watching = false;
    this.background.clearTimers();
    for (const account of this.tokenAccounts) this.feed?.unwatch(account);
    await this.background.drain();
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
    const since = this.sweeper.caughtUpAt ?? this.watchingSince;
    return since ? Math.max(0, (this.ctx.now().getTime() - since.getTime()) / 1000) : undefined;
  }

  /**
   * While the watcher has not completed a pass since it took the watch (a fresh instance, a new holder): it is
   * catching up, `behindSeconds` behind the chain (now less the block time of the oldest listed signature not
   * judged yet; before the listing, less the previous holder's last catch-up, else the start of the watch), and
   * `progressing` when the pass listed or judged something within `withinMs`. Undefined when not watching.
   */
  catchUp(
    withinMs: number,
  ): { catchingUp: boolean; behindSeconds: number; progressing: boolean } | undefined {
    if (!this.watching || !this.watchingSince) return undefined;
    const caughtUp = this.sweeper.caughtUpAt;
    if (caughtUp && caughtUp.getTime() >= this.watchingSince.getTime())
      return { catchingUp: false, behindSeconds: 0, progressing: true };
    const nowMs = this.ctx.now().getTime();
    const since =
      this.sweeper.oldestPendingMs() ?? this.previousCaughtUpAt?.getTime() ?? this.watchingSince.getTime();
    const moved = Math.max(this.sweeper.lastProgressMs ?? 0, this.watchStartedMs);
    return {
      catchingUp: true,
      behindSeconds: Math.max(0, Math.round((nowMs - since) / 1000)),
      progressing: Date.now() - moved <= withinMs,
    };
  }

  /** Start of the last complete sweep pass (see lagSeconds). */
  lastCaughtUpAt(): Date | undefined {
    return this.sweeper.caughtUpAt;
  }

  /** Stops everything and waits for work in progress. The feed itself is closed by its owner. */
  async stop(): Promise<void> {
    this.closed = true;
    this.running = false;
    this.watching = false;
    this.background.clearTimers(true);
    for (const account of this.tokenAccounts) this.feed?.unwatch(account);
    await this.background.drain();
  }

  /**
   * The wallet page reported `signature` for `order`: re-read that one transaction and record the payment if it
   * checks out (watch/hints.ts).
   */
  onPaymentHint(order: WatchedOrder, signature: string): Promise<PaymentOutcome> {
    return this.hints.onHint(order, signature);
  }

  /** The hint lane the watcher serves (./lanes.ts; startPayments): the hint route hands it the wallet's hint. */
  hintHandler(): (order: WatchedOrder, signature: string) => Promise<void> {
    return async (order, signature) => {
      if (!this.running) return;
      // Someone waits on this order: under a backlog it is checked by reference too (after the polled pages).
      if (this.watching) this.awaited.noteHint(order.orderId);
      await this.background.guard(`hint ${order.orderId}`, () => this.hints.onHint(order, signature));
    };
  }

  /**
   * The awaited lane the watcher serves (./lanes.ts; startPayments), which the order service tells when an order
   * page is polled with its page token, by which client and with what at stake (watch/waiting.ts).
   */
  awaitedHandler(): (orderId: string, waiter: Waiter) => void {
    return (orderId, waiter) => {
      if (this.watching) this.awaited.note(orderId, waiter);
    };
  }

  /**
   * Vendor transfers waiting to be judged (the feed's backlog), and whether payments are still seen on time: the
   * priority checks of the orders someone waits on ran within the last `withinMs`.
   */
  backlog(withinMs: number): { transfers: number; paymentsOnTime: boolean } {
    return { transfers: this.judge.backlog(), paymentsOnTime: this.awaited.onTime(withinMs) };
  }

  /** One catch-up sweep over the vendors' token accounts from the stored cursors (exposed for tests). */
  async reconcile(): Promise<void> {
    await this.sweeper.sweep('sweep');
  }
}
