/**
 * What the watcher's parts share: its options and events, the order service as the watcher sees it, and one
 * context object (RPC port, store, clock, limits, state) handed to each part.
 */
import type { OrderStatus, PaymentRole } from '../../../core/api';
import type { OrderService, RecordPaymentResult, WatchedOrder } from '../../orders/service';
import type { ReferenceFeed } from '../feed';
import type { PaymentRpc } from '../rpc';
import type { ScanStore, SetAsideReason } from '../scan-store';
import type { PaymentOutcome, VerifyOptions } from '../verify';
import type { Background, Semaphore } from './loops';

export type { WatchedOrder };

export type RecordablePayment = Extract<PaymentOutcome, { kind: 'Paid' | 'Underpaid' }>;

/**
 * The order service as the watcher sees it (src/server/orders/service.ts): orders by reference (one indexed
 * lookup), the ledger's unfinalized transfers, the one-signature-one-order check, and recordPayment, which
 * persists the transition and enqueues the e-mails in one transaction.
 */
export type PaymentOrders = Pick<
  OrderService,
  | 'findOrder'
  | 'ordersByReferences'
  | 'unfinalizedPayments'
  | 'isSignatureUsed'
  | 'recordPayment'
  | 'noteUnreadablePayment'
>;

export type Via = 'feed' | 'poll' | 'sweep' | 'hint' | 'start' | 'match' | 'priority';

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
  /** A transaction we could not read was set aside (unreadable.ts), with the orders told about it. */
  | { type: 'unreadable'; signature: string; reason: SetAsideReason; detail: string; orderIds: string[] }
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
  /** Orders someone waits on are checked by reference this often while the feed has a backlog. Default 1000 ms. */
  priorityIntervalMs?: number;
  /** The priority checks' share of the RPC budget: requests per 10 s. Default 12 (20 % of the default 60). */
  priorityPer10s?: number;
  /** The hints' share of the RPC budget: requests per 10 s (two per new hinted signature). Default 6. */
  hintsPer10s?: number;
  /** Reads of a transaction we cannot read before it is set aside (unreadable.ts). Default 4. */
  unreadableAttempts?: number;
  /** First wait between those reads (doubles each time). Default 500 ms (4 reads within about 3.5 s). */
  unreadableBackoffMs?: number;
  verify?: VerifyOptions;
  onEvent?: (event: WatcherEvent) => void;
}

/** The watcher's timings and limits with their defaults applied. */
export type WatcherTuning = Required<
  Pick<
    PaymentWatcherOptions,
    | 'refreshIntervalMs'
    | 'pollIntervalMs'
    | 'sweepIntervalMs'
    | 'finalityIntervalMs'
    | 'finalityGiveUpMs'
    | 'lateWindowMs'
    | 'quoteTtlMs'
    | 'concurrency'
    | 'hintRetryMs'
    | 'hintsPerOrder'
    | 'maxCatchUp'
    | 'priorityIntervalMs'
    | 'priorityPer10s'
    | 'hintsPer10s'
    | 'unreadableAttempts'
    | 'unreadableBackoffMs'
  >
>;

export function tuningOf(options: PaymentWatcherOptions): WatcherTuning {
  return {
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
    priorityIntervalMs: options.priorityIntervalMs ?? 1000,
    priorityPer10s: options.priorityPer10s ?? 12,
    hintsPer10s: options.hintsPer10s ?? 6,
    unreadableAttempts: Math.max(1, options.unreadableAttempts ?? 4),
    unreadableBackoffMs: options.unreadableBackoffMs ?? 500,
  };
}

/** What every part of the watcher reads: ports, clock, limits, the shared loops and the watcher's state. */
export interface WatchContext {
  rpc: PaymentRpc;
  orders: PaymentOrders;
  store: ScanStore;
  now: () => Date;
  o: WatcherTuning;
  verifyOptions: VerifyOptions;
  /** Time limit of each RPC call. */
  timeoutMs: number;
  emit: (event: WatcherEvent) => void;
  /** The vendors' wallets and the mint their token accounts hold. */
  recipients: string[];
  mint: string;
  /** Transactions fetched at once. */
  limiter: Semaphore;
  /** One record at a time. */
  recordLock: Semaphore;
  background: Background;
  /** Hints are served (start() until stop()). */
  running(): boolean;
  /** This instance watches the vendor accounts. */
  watching(): boolean;
}

/** A signature's place in the chain, as far as the caller knows it. */
export interface Seen {
  signature: string;
  confirmationStatus: 'confirmed' | 'finalized';
}

/** Any status, until the late window after the quote expiry closes (awaiting_payment until it expires). */
export function isFollowed(ctx: WatchContext, o: WatchedOrder): boolean {
  return o.status === 'awaiting_payment' || ctx.now().getTime() <= o.expiresAt.getTime() + ctx.o.lateWindowMs;
}

export function describeRefusal(r: Exclude<RecordPaymentResult, { ok: true }>): string {
  return r.reason === 'signature_used'
    ? `signature already pays order ${r.otherOrderId}`
    : 'status' in r
      ? `${r.reason} (status ${r.status})`
      : r.reason;
}
