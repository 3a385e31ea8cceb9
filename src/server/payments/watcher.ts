/**
 * The payment watcher: keeps every open order's reference under watch and turns verified payments into order
 * state through the order service.
 *
 * - push: one `logsSubscribe({mentions:[reference]})` per payable order (ReferenceFeed); a notification
 *   triggers a full verifyPayment of that order (a notification is a trigger, never proof);
 * - polling fallback: while the feed is unhealthy (down, or a subscription not yet acknowledged) every payable
 *   order is verified every `pollIntervalMs`; while healthy, every `safetyPollIntervalMs`;
 * - reconciliation: every `sweepIntervalMs`, the vendors' token accounts' new signatures (`until` the last one
 *   seen) are matched against open references; on start every payable order is verified once, so a payment
 *   made while the server was down is matched;
 * - finality: the ledger's unfinalized signatures are polled with getSignatureStatuses until finalized, then
 *   reported again with `finalized: true` (paid → final once every payment counting toward the amount is);
 * - hints: `onPaymentHint(order, signature)` (POST /api/orders/:id/payment) re-reads the chain (verifyHint).
 *
 * Followed orders: every priced order, whatever its status, until `lateWindowMs` (24 h) after its quote expiry.
 * Every verified transfer to a followed reference that is not yet in the order's ledger is handed to the order
 * service (recordPayment, idempotent per signature, UNIQUE in the store), which records it with its role
 * (partial, payment, top_up, extra) and moves the order by the ledger sum. Lateness is the service's call, from
 * the transfer's blockTime and the order's expiry. A partial sum while the quote is open is recorded but keeps
 * the order awaiting_payment, so dust sent with the public reference cannot block the real payment.
 */
import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { PublicKey } from '@solana/web3.js';
import type { OrderStatus, PaymentRole } from '../../core/api';
import type { OrderService, RecordPaymentResult, WatchedOrder } from '../orders/service';
import type { ReferenceFeed } from './feed';
import type { PaymentRpc } from './rpc';
import { withTimeout } from './rpc';
import {
  listSignatures,
  verifyHint,
  verifyPayments,
  type ExpectedPayment,
  type LandedPayment,
  type PaymentOutcome,
  type VerifyOptions,
} from './verify';

export type { WatchedOrder };

export type RecordablePayment = Extract<PaymentOutcome, { kind: 'Paid' | 'Underpaid' }>;

/**
 * The order service as the watcher sees it (src/server/orders/service.ts): the orders to watch, the
 * one-signature-one-order check, and recordPayment, which persists the transition and enqueues the e-mails in
 * one transaction (idempotent per signature; the same signature again with `finalized: true` moves paid → final).
 */
export type PaymentOrders = Pick<OrderService, 'ordersToWatch' | 'isSignatureUsed' | 'recordPayment'>;

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
  /** The vendors' wallets: their token accounts for `mint` are swept for reconciliation. */
  recipients: string[];
  /** The $CLAIM mint. */
  mint: string;
  /** Push notifications (WsLogsFeed). Without one the watcher polls at `pollIntervalMs`. */
  feed?: ReferenceFeed;
  now?: () => Date;
  /** Reload open orders from the store (new orders, status changes). Default 500 ms. */
  refreshIntervalMs?: number;
  /** Verify every payable order while the feed is unhealthy or absent. Default 2000 ms. */
  pollIntervalMs?: number;
  /** Verify every payable order even while the feed is healthy. Default 30 s. */
  safetyPollIntervalMs?: number;
  /** Sweep the vendors' token accounts. Default 5000 ms. */
  sweepIntervalMs?: number;
  /** Poll paid orders' signature statuses until finalized. Default 2000 ms. */
  finalityIntervalMs?: number;
  /** References stay watched this long after the quote expires. Default 24 h. */
  lateWindowMs?: number;
  /** Quote lifetime, to bound the first reconciliation sweep. Default 15 min. */
  quoteTtlMs?: number;
  /** Orders verified at once. Default 4. */
  concurrency?: number;
  /** How long a hint whose transaction is not yet confirmed keeps being retried. Default 15 s. */
  hintRetryMs?: number;
  verify?: VerifyOptions;
  onEvent?: (event: WatcherEvent) => void;
}

export type Via = 'feed' | 'poll' | 'sweep' | 'hint' | 'start';

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

export class PaymentWatcher {
  private readonly rpc: PaymentRpc;
  private readonly orders: PaymentOrders;
  private readonly feed: ReferenceFeed | undefined;
  private readonly now: () => Date;
  private readonly o: Required<
    Omit<
      PaymentWatcherOptions,
      'rpc' | 'orders' | 'feed' | 'now' | 'verify' | 'onEvent' | 'recipients' | 'mint'
    >
  >;
  private readonly verifyOptions: VerifyOptions;
  private readonly emit: (e: WatcherEvent) => void;
  private readonly tokenAccounts: string[];
  private readonly limiter: Semaphore;
  private readonly recordLock = new Semaphore(1);

  private running = false;
  /** The start pass is done (new orders found later are verified once when first seen). */
  private started = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly tasks = new Set<Promise<unknown>>();
  private open = new Map<string, WatchedOrder>();
  private readonly byReference = new Map<string, string>();
  private readonly inflight = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private readonly sweepCursor = new Map<string, string>();
  private lastFullPoll = 0;
  private readonly sleepers = new Set<() => void>();
  /** Orders seen past their quote expiry: verified once more then (a last look before the service expires them). */
  private readonly pastExpiry = new Set<string>();

  constructor(options: PaymentWatcherOptions) {
    this.rpc = options.rpc;
    this.orders = options.orders;
    this.feed = options.feed;
    this.now = options.now ?? (() => new Date());
    this.verifyOptions = options.verify ?? {};
    this.emit = (e) => {
      try {
        options.onEvent?.(e);
      } catch {
        // A broken listener must not stop the watcher.
      }
    };
    this.o = {
      refreshIntervalMs: options.refreshIntervalMs ?? 500,
      pollIntervalMs: options.pollIntervalMs ?? 2000,
      safetyPollIntervalMs: options.safetyPollIntervalMs ?? 30_000,
      sweepIntervalMs: options.sweepIntervalMs ?? 5000,
      finalityIntervalMs: options.finalityIntervalMs ?? 2000,
      lateWindowMs: options.lateWindowMs ?? 24 * 60 * 60_000,
      quoteTtlMs: options.quoteTtlMs ?? 15 * 60_000,
      concurrency: options.concurrency ?? 4,
      hintRetryMs: options.hintRetryMs ?? 15_000,
    };
    this.limiter = new Semaphore(this.o.concurrency);
    const mint = new PublicKey(options.mint);
    this.tokenAccounts = [...new Set(options.recipients)].map((r) =>
      getAssociatedTokenAddressSync(mint, new PublicKey(r), true).toBase58(),
    );
  }

  /** Loads open orders, subscribes, verifies every followed order once (catch-up after downtime), starts the loops. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    await this.guard('refresh', () => this.refresh());
    await this.guard('start', () => this.verifyAll('start'));
    this.started = true;
    this.lastFullPoll = Date.now();
    this.loop('refresh', this.o.refreshIntervalMs, () => this.refresh());
    this.loop('poll', this.o.pollIntervalMs, () => this.poll());
    this.loop('sweep', this.o.sweepIntervalMs, () => this.reconcile());
    this.loop('finality', this.o.finalityIntervalMs, () => this.checkFinality());
  }

  /** Stops the loops, unsubscribes and waits for work in progress. The feed itself is closed by its owner. */
  async stop(): Promise<void> {
    this.running = false;
    this.started = false;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const wake of this.sleepers) wake();
    this.sleepers.clear();
    for (const reference of this.byReference.keys()) this.feed?.unwatch(reference);
    this.byReference.clear();
    while (this.tasks.size) await Promise.allSettled([...this.tasks]);
  }

  /**
   * The wallet page reported `signature` for `order`: re-read the chain and record the payment if it checks out.
   * An unconfirmed hint is retried in the background for `hintRetryMs`; the reference is verified as well.
   */
  async onPaymentHint(order: WatchedOrder, signature: string): Promise<PaymentOutcome> {
    const outcome = await this.checkHint(order, signature);
    if (outcome.kind === 'NotFound' && outcome.reason === 'not_confirmed') {
      this.track(this.retryHint(order, signature));
    }
    if (outcome.kind !== 'Paid' && outcome.kind !== 'Underpaid') this.schedule(order.orderId, 'hint');
    return outcome;
  }

  /** The order service's hint hook: `orders.setPaymentHintHandler(watcher.hintHandler())`. */
  hintHandler(): (order: WatchedOrder, signature: string) => Promise<void> {
    return async (order, signature) => {
      await this.guard(`hint ${order.orderId}`, () => this.onPaymentHint(order, signature));
    };
  }

  /** One reconciliation sweep over the vendors' token accounts (exposed for tests and operators). */
  async reconcile(): Promise<void> {
    const payable = [...this.open.values()].filter((o) => this.isFollowed(o));
    const oldestQuote = payable.reduce(
      (min, o) => Math.min(min, o.expiresAt.getTime() - this.o.quoteTtlMs),
      Infinity,
    );
    for (const account of this.tokenAccounts) {
      const until = this.sweepCursor.get(account);
      const sigs = await listSignatures(this.rpc, account, {
        ...this.verifyOptions,
        until,
        maxSignatures: until ? undefined : 1000,
      });
      const newest = sigs[sigs.length - 1];
      if (payable.length) {
        const fresh = sigs.filter(
          (s) =>
            (s.err === null || s.err === undefined) &&
            (s.blockTime === null || s.blockTime * 1000 >= oldestQuote - 5 * 60_000),
        );
        const matched = new Set<string>();
        await Promise.all(
          fresh.map((s) =>
            this.limiter.run(async () => {
              const tx = await withTimeout('getTransaction', this.verifyOptions.timeoutMs ?? 5000, () =>
                this.rpc.getTransaction(s.signature),
              );
              for (const key of tx?.accountKeys ?? []) {
                const id =
                  this.byReference.get(key) ??
                  [...this.open.values()].find((o) => o.reference === key)?.orderId;
                if (id) matched.add(id);
              }
            }),
          ),
        );
        await Promise.all([...matched].map((id) => this.verifyOrder(id, 'sweep')));
      }
      if (newest) this.sweepCursor.set(account, newest.signature);
    }
  }

  /** Reports the ledger's transfers that reached finalized (paid → final once all count) (exposed for tests). */
  async checkFinality(): Promise<void> {
    const pending = [...this.open.values()].flatMap((o) =>
      o.payments.filter((p) => !p.finalized).map((p) => ({ order: o, payment: p })),
    );
    for (let i = 0; i < pending.length; i += 200) {
      const batch = pending.slice(i, i + 200);
      const statuses = await withTimeout('getSignatureStatuses', this.verifyOptions.timeoutMs ?? 5000, () =>
        this.rpc.getSignatureStatuses(batch.map((b) => b.payment.signature)),
      );
      for (const [j, { order, payment }] of batch.entries()) {
        const s = statuses[j];
        if (!s || s.confirmationStatus !== 'finalized' || (s.err !== null && s.err !== undefined)) continue;
        // The same signature again, now finalized: the order service marks it and moves paid → final when every
        // payment counting toward the amount is finalized (paid_late stays).
        const result = await this.recordLock.run(() =>
          this.orders.recordPayment(
            { orderId: order.orderId },
            {
              signature: payment.signature,
              receivedBaseUnits: payment.receivedBaseUnits,
              finalized: true,
              blockTime: null,
            },
          ),
        );
        const current = this.open.get(order.orderId) ?? order;
        if (result.ok) {
          this.open.set(order.orderId, {
            ...current,
            status: result.status,
            finalized: result.status === 'final' || current.finalized,
            payments: current.payments.map((p) =>
              p.signature === payment.signature ? { ...p, finalized: true } : p,
            ),
          });
          this.emit({ type: 'final', orderId: order.orderId, signature: payment.signature });
        } else
          this.emit({
            type: 'error',
            where: `finalize ${order.orderId}`,
            error: new Error(describeRefusal(result)),
          });
      }
    }
  }

  /** Reloads open orders and keeps one feed subscription per followed reference. */
  async refresh(): Promise<void> {
    const list = await this.orders.ordersToWatch({ expiredWithinMs: this.o.lateWindowMs });
    const next = new Map(list.map((o) => [o.orderId, o]));
    const wanted = new Map<string, string>();
    for (const o of next.values()) if (this.isFollowed(o)) wanted.set(o.reference, o.orderId);
    this.open = next;
    for (const reference of [...this.byReference.keys()]) {
      if (!wanted.has(reference)) {
        this.byReference.delete(reference);
        this.feed?.unwatch(reference);
      }
    }
    const now = this.now().getTime();
    for (const id of this.pastExpiry) if (!next.has(id)) this.pastExpiry.delete(id);
    for (const [, id] of wanted) {
      const o = next.get(id);
      if (o && now > o.expiresAt.getTime() && !this.pastExpiry.has(id)) {
        this.pastExpiry.add(id);
        this.schedule(id, 'poll');
      }
    }
    for (const [reference, id] of wanted) {
      if (this.byReference.get(reference) === id) continue;
      this.byReference.set(reference, id);
      if (this.running) {
        this.feed?.watch(reference, () => this.schedule(id, 'feed'));
        // A payment may have landed before the subscription: look once now (the start pass covers the rest).
        if (this.started) this.schedule(id, 'poll');
      }
    }
  }

  /** Any status, until the late window after the quote expiry closes (awaiting_payment until it expires). */
  private isFollowed(o: WatchedOrder): boolean {
    return (
      o.status === 'awaiting_payment' || this.now().getTime() <= o.expiresAt.getTime() + this.o.lateWindowMs
    );
  }

  private async poll(): Promise<void> {
    const healthy = this.feed?.healthy() ?? false;
    if (healthy && Date.now() - this.lastFullPoll < this.o.safetyPollIntervalMs) return;
    this.lastFullPoll = Date.now();
    await this.verifyAll('poll');
  }

  private async verifyAll(via: Via): Promise<void> {
    const ids = [...this.open.values()].filter((o) => this.isFollowed(o)).map((o) => o.orderId);
    await Promise.all(ids.map((id) => this.verifyOrder(id, via)));
  }

  /** Fire-and-forget verification of one order (errors reported, never thrown). */
  private schedule(orderId: string, via: Via): void {
    if (!this.running) return;
    this.track(this.verifyOrder(orderId, via));
  }

  /** Verifies one order; concurrent requests for the same order coalesce into one re-run. */
  private verifyOrder(orderId: string, via: Via): Promise<void> {
    const running = this.inflight.get(orderId);
    if (running) {
      this.again.add(orderId);
      return running;
    }
    const p = (async () => {
      try {
        do {
          this.again.delete(orderId);
          await this.guard(`verify ${orderId}`, () => this.limiter.run(() => this.verifyOnce(orderId, via)));
        } while (this.again.has(orderId) && this.running);
      } finally {
        this.inflight.delete(orderId);
      }
    })();
    this.inflight.set(orderId, p);
    return p;
  }

  private async verifyOnce(orderId: string, via: Via): Promise<void> {
    const order = this.open.get(orderId);
    if (!order || !this.isFollowed(order)) return;
    const known = new Set(order.payments.map((p) => p.signature));
    const { outcome, transfers } = await verifyPayments(this.rpc, this.expected(order), {
      ...this.verifyOptions,
      known,
    });
    if (transfers.length === 0) {
      if (outcome.kind !== 'NotFound') this.emit({ type: 'rejected', orderId, outcome });
      return;
    }
    for (const t of transfers) await this.record(order, t, via);
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
   * is free and records each signature once).
   */
  private async record(order: WatchedOrder, landed: LandedPayment, via: Via): Promise<void> {
    await this.recordLock.run(async () => {
      const current = this.open.get(order.orderId) ?? order;
      if (current.payments.some((p) => p.signature === landed.signature)) return;
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
        } else if (result.reason === 'order_not_found') {
          this.open.delete(order.orderId);
        } else {
          this.open.set(order.orderId, { ...current, status: result.status });
          this.emit({
            type: 'error',
            where: `record ${order.orderId}`,
            error: new Error(describeRefusal(result)),
          });
        }
        return;
      }
      const completes = result.role === 'payment' || result.role === 'top_up';
      this.open.set(order.orderId, {
        ...current,
        status: result.status,
        signature: completes ? landed.signature : current.signature,
        finalized: result.status === 'final' || current.finalized,
        receivedBaseUnits: current.receivedBaseUnits + landed.receivedBaseUnits,
        payments: [
          ...current.payments,
          {
            signature: landed.signature,
            receivedBaseUnits: landed.receivedBaseUnits,
            role: result.role,
            finalized: landed.confirmationStatus === 'finalized',
          },
        ],
      });
      if (!result.changed) return;
      this.emit({
        type: 'recorded',
        orderId: order.orderId,
        outcome,
        role: result.role,
        status: result.status,
        via,
      });
      // Already finalized when first seen (e.g. found late): the order went straight to final.
      if (result.status === 'final' && current.status !== 'final') {
        this.emit({ type: 'final', orderId: order.orderId, signature: landed.signature });
      }
      if (result.role === 'partial' && result.status === 'awaiting_payment' && outcome.kind === 'Underpaid') {
        this.emit({ type: 'partial', orderId: order.orderId, outcome });
      }
    });
  }

  private async checkHint(order: WatchedOrder, signature: string): Promise<PaymentOutcome> {
    const outcome = await verifyHint(this.rpc, this.expected(order), signature, this.verifyOptions);
    if (!this.open.has(order.orderId)) this.open.set(order.orderId, order);
    const current = this.open.get(order.orderId) ?? order;
    if (outcome.kind === 'Paid' || outcome.kind === 'Underpaid') {
      const { kind: _kind, ...landed } = outcome;
      await this.record(current, landed, 'hint');
    } else if (outcome.kind !== 'NotFound') this.emit({ type: 'rejected', orderId: order.orderId, outcome });
    return outcome;
  }

  private async retryHint(order: WatchedOrder, signature: string): Promise<void> {
    const deadline = Date.now() + this.o.hintRetryMs;
    let delay = 250;
    while (this.running && Date.now() < deadline) {
      await this.sleep(delay);
      delay = Math.min(delay * 2, 2000);
      const outcome = await this.guard(`hint ${order.orderId}`, () => this.checkHint(order, signature));
      if (!outcome || !(outcome.kind === 'NotFound' && outcome.reason === 'not_confirmed')) return;
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

  /** A self-rescheduling loop: the next run starts `ms` after the previous one finished (never overlapping). */
  private loop(where: string, ms: number, fn: () => Promise<void>): void {
    const tick = () => {
      if (!this.running) return;
      const t = setTimeout(() => {
        this.timers.delete(t);
        const run = this.guard(where, fn).then(tick);
        this.track(run);
      }, ms);
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
