/** The order module's types: what the service offers, what the payment watcher sees, and its dependencies. */
import type { StockRepository } from '../stock/repository';
import type { Kysely, Transaction } from 'kysely';
import type {
  AnyOrderCreated,
  OrderDataExport,
  OrderPageView,
  OrderPublic,
  OrderStatus,
  PaymentRole,
} from '../../core/api';
import type { Catalog } from '../../core/catalog';
import type { ParsedOrderRequest } from '../../core/order';
import type { SellerException } from '../../core/seller-api';
import type { Settings } from '../settings';
import type { Store } from '../store/store';
import type { Database } from '../store/schema';
import type { Sealer } from '../privacy/seal';
import type { WalletBalances } from '../payments/wallet-balances';

export const ORDER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What the payment watcher needs to know about an order. */
export interface WatchedOrder {
  orderId: string;
  reference: string;
  recipient: string;
  mint: string;
  amountBaseUnits: bigint;
  status: OrderStatus;
  paymentMethod: 'wallet' | 'qr';
  expiresAt: Date;
  /** The transfer that completed the amount (null until then). */
  signature: string | null;
  /** Every transfer counting toward the amount is finalized. */
  finalized: boolean;
  /** The ledger sum. */
  receivedBaseUnits: bigint;
  /** The ledger: every recorded transfer (the watcher skips these when it re-reads the chain). */
  payments: { signature: string; receivedBaseUnits: bigint; role: PaymentRole; finalized: boolean }[];
}

export interface PaymentReport {
  signature: string;
  receivedBaseUnits: bigint;
  /** The transaction reached finalized commitment. */
  finalized: boolean;
  /** Unix seconds of the block (null if unknown: then the time of recording decides lateness). */
  blockTime: number | null;
  slot?: number | null;
}

export type PaymentTarget = { orderId: string } | { reference: string };

/**
 * `changed: false`: the signature was already in the ledger (and nothing new about it). `role`: the ledger row's
 * role (partial, payment, top_up, extra).
 */
export type RecordPaymentResult =
  | { ok: true; changed: boolean; status: OrderStatus; role: PaymentRole; order: OrderPublic }
  | { ok: false; reason: 'order_not_found' }
  | { ok: false; reason: 'signature_used'; otherOrderId: string }
  | { ok: false; reason: 'refused'; status: OrderStatus; order: OrderPublic };

/**
 * `created`: a new order. `replayed`: the stored answer of an earlier request with the same Idempotency-Key
 * (the same body; nothing new is written).
 */
export interface CreateOrderResult {
  outcome: 'created' | 'replayed';
  body: AnyOrderCreated;
}

export type PaymentHintHandler = (order: WatchedOrder, signature: string) => void | Promise<void>;

export interface OrderService {
  /**
   * POST /api/orders, its body parsed at the edge (OrderRequestSchema). Throws DomainError for every refusal. `holder`: the client's hold key (stock/holds.ts),
   * for the per-client cap on holds.
   */
  createOrder(
    request: ParsedOrderRequest,
    idempotencyKey: string,
    holder?: string,
  ): Promise<CreateOrderResult>;
  /**
   * GET /api/orders/:id; undefined when unknown. Throws DomainError (invalid) on a malformed id. With `poll`, the
   * order's page token and the poller's client (hashed client key): the payment watcher is told someone waits on
   * it (awaited.ts); the id alone tells nothing.
   */
  getOrder(orderId: string, poll?: AwaitedPoll): Promise<OrderPublic | undefined>;
  findOrder(target: PaymentTarget): Promise<WatchedOrder | undefined>;
  /**
   * For the payment verifier: records a verified transfer in the ledger (idempotent per signature; the same
   * signature again with `finalized: true` marks it finalized and may move paid → final) and moves the order by
   * the ledger sum, with the e-mails it causes, in one transaction.
   */
  recordPayment(target: PaymentTarget, report: PaymentReport): Promise<RecordPaymentResult>;
  /**
   * QR pages' "Send Order Confirmation", with the record's page token (`token`: the capability the browser that
   * made the record holds; the id alone is refused): attaches `shipping` to a record without details (a second,
   * different set is refused). Details hold no stock: the piece is taken when the payment is seen (holds.md).
   * Seller then buyer order_confirmation are enqueued once something is paid (at once for an order without a
   * price; else when the payment lands).
   */
  requestConfirmation(orderId: string, shipping?: unknown, token?: unknown): Promise<OrderPublic>;
  /** A QR record with nothing paid and no details takes a renewed quote of its own reference. */
  requote(orderId: string, quote: string, pageToken?: unknown): Promise<AnyOrderCreated>;
  /** The buyer's order page by its capability token; undefined for any unknown or malformed token. */
  getOrderPage(token: string, client?: string): Promise<OrderPageView | undefined>;
  /** Paid QR records without details past the grace delay → the seller is told, once. Returns how many. */
  notifyMissingDetails(now?: Date): Promise<number>;
  /** Deletes expired QR records with nothing paid and no details, past the cleanup delay. Returns how many. */
  cleanupRecords(now?: Date): Promise<number>;
  /**
   * awaiting_payment orders past their expiry → expired. Returns how many changed. While a watcher serves the
   * chain clock (deps.lanes), only orders whose expiry the payment watcher has judged past (ledger.ts expireOrders).
   */
  expireOrders(now?: Date): Promise<number>;
  /**
   * Orders whose reference the watcher should follow: awaiting payment, any status until `expiredWithinMs`
   * (24 h) after the quote expiry (later transfers are recorded as top-ups or extras), and fully paid orders
   * whose payments are not all finalized.
   */
  ordersToWatch(opts?: { expiredWithinMs?: number }): Promise<WatchedOrder[]>;
  isSignatureUsed(signature: string, exceptOrderId?: string): Promise<boolean>;
  /** Priced orders whose reference is one of `references` (one indexed lookup). */
  ordersByReferences(references: string[]): Promise<WatchedOrder[]>;
  /**
   * A transaction the payment watcher could not read may pay this order (it named the order's reference, or was
   * listed under it): noted once per order and signature, shown on the order's page and as the seller's
   * `unreadable_payment` exception. No status changes and no e-mail: nothing is known to have been paid. True
   * when newly noted.
   */
  noteUnreadablePayment(orderId: string, note: { signature: string; reason: string }): Promise<boolean>;
  /** Ledger transfers not yet finalized, oldest first, at most `limit`. */
  unfinalizedPayments(
    limit: number,
  ): Promise<{ orderId: string; signature: string; receivedBaseUnits: bigint }[]>;
  /**
   * The wallet page's "I sent it" hint, checked: the order as the buyer sees it, and as the verifier reads it
   * (the route hands `watched` to the watcher's hint lane, payments/lanes.ts). Never marks anything paid.
   */
  paymentHint(orderId: string, signature: string): Promise<{ order: OrderPublic; watched: WatchedOrder }>;

  // Fulfilment, by the signed-in seller on its own orders (./fulfilment.ts). Each checks, then writes the order,
  // its history, the seller's action and the e-mails it causes in one transaction; a refusal changes nothing.
  /** Mark shipped with the tracking number; the buyer is e-mailed. */
  markShipped(seller: SellerActor, orderId: string, shipment: Shipment): Promise<void>;
  markDelivered(seller: SellerActor, orderId: string): Promise<void>;
  /**
   * "Cancel order and refund" of a paid order the buyer asked to cancel (open `cancel_requested`): status
   * `cancelled`, its units back on sale; everything received is then owed back.
   */
  cancelOrder(seller: SellerActor, orderId: string): Promise<void>;
  /** Records what the seller did about one of the order's exceptions. */
  resolveException(
    seller: SellerActor,
    orderId: string,
    input: { exception: SellerException; note: string },
  ): Promise<void>;
  /** "Mark refunded" before the chain is read: refuses what needs no RPC; returns what the check needs. */
  refundTarget(
    seller: SellerActor,
    orderId: string,
    input: { exception: SellerException; signature: string },
  ): Promise<RefundTarget>;
  /** Records a refund the chain confirmed (once per signature). */
  recordRefund(seller: SellerActor, orderId: string, refund: CheckedRefund): Promise<void>;
  /** A shipped order's new tracking number (and carrier); the buyer is told again. */
  updateTracking(seller: SellerActor, orderId: string, shipment: Shipment): Promise<void>;
  /** The seller's free-text note on the order. */
  setNote(seller: SellerActor, orderId: string, note: string): Promise<void>;
  /** Sends a failed e-mail of the order again. */
  resendEmail(seller: SellerActor, orderId: string, emailId: string): Promise<void>;
  /** "Download my data": everything kept about the order, for its capability token (undefined: unknown). */
  exportMyData(token: string): Promise<OrderDataExport | undefined>;
  /** "Delete my details" (refused with order_will_ship before shipping); undefined for an unknown token. */
  deleteMyDetails(token: string): Promise<OrderPageView | undefined>;
  /** "Cancel instead" before shipping: cancels an unpaid order, or asks the vendor (once) for a paid one. */
  cancelInstead(token: string): Promise<OrderPageView | undefined>;
  /** The retention job: erases personal data of orders delivered or closed longer ago than the retention. */
  runRetention(now?: Date): Promise<RetentionResult>;
  /** Seals stored values under the current data key (plain ones only with onlyPlain): start-up and keys:rotate. */
  sealStoredData(opts?: ResealOptions): Promise<ResealResult>;
  /** Stored personal values per data key id ('plain' for unsealed ones). */
  sealedValuesByKey(): Promise<Record<string, number>>;
}

/** Time up to which the payment watcher has judged the chain; null when it has judged nothing yet. */
export type ChainClock = () => Promise<Date | null>;

/**
 * The payment watcher's lanes the order module reads (payments/lanes.ts makes them; the watcher serves them):
 * handed in at construction, so the order module never calls into payments and payments never sets a hook on it.
 */
export interface OrderLanes {
  /** The watcher's chain clock; undefined while no watcher serves it (the wall clock decides expiry). */
  chainClock(): Promise<Date | null | undefined>;
  /**
   * Told when someone waits on an awaiting_payment order (its page polls with its page token), by which client
   * and with what at stake: the watcher checks such orders' references first while it has a backlog, bounded
   * per client (payments/watch/waiting.ts). Undefined while no watcher serves it.
   */
  awaitedLane(): AwaitedHandler | undefined;
}

export interface OrderServiceDeps {
  store: Store;
  catalog: Catalog;
  settings: Pick<
    Settings,
    'quote' | 'mail' | 'qr' | 'holds' | 'notes' | 'solana' | 'publicUrl' | 'price' | 'privacy'
  > &
    Partial<Pick<Settings, 'maxExpiryWaitMs'>>;
  /** Seals and opens personal data (src/server/privacy); made from settings.privacy.dataKeys when omitted. */
  sealer?: Sealer;
  /** The base of the buyer's order page links; default settings.publicUrl (tests on port 0: the bound URL). */
  publicUrl?: () => string;
  now: () => Date;
  /** Called after a commit that added outbox rows (wakes the worker). */
  onOutboxChange?: () => void;
  /** Webhook deliveries were queued (src/server/webhooks): the sender runs soon. */
  onWebhookQueued?: () => void;
  /** The payment watcher's chain clock and awaited lane (payments/lanes.ts); without them no watcher is heard. */
  lanes?: OrderLanes;
  onError?: (err: unknown) => void;
  /** The stock repository (server.ts shares its own); made from the store and catalogue when omitted. */
  stock?: StockRepository;
  /**
   * Buyers' $CLAIM balances (payments/wallet-balances.ts), for the hold rule (./holds.ts): without it no wallet
   * order holds (nothing proves the money).
   */
  balances?: WalletBalances;
}

export interface StoredItem {
  productId: string;
  variantId?: string;
  variantLabel?: string;
  name: string;
  quantity: number;
  unitCents: number;
  lineCents: number;
}

export type Db = Kysely<Database> | Transaction<Database>;

/** What every part of the order service works with. */
export interface OrderContext {
  deps: OrderServiceDeps;
  /** Reservations: created with the order, released at expiry, sold (or oversold) by the completing payment. */
  stock: StockRepository;
  db: Kysely<Database>;
  isPg: boolean;
  /** Every personal value is sealed before it reaches the store (src/server/privacy/order-data.ts). */
  sealer: Sealer;
}

/** What is at stake on an awaited order (orders/awaited.ts stakeOf). */
export type AwaitedStake = 'money' | 'free';

/** A poll of an order's status: its page token and the poller's client (hashed client key). */
export interface AwaitedPoll {
  pageToken?: unknown;
  client?: string;
}

export type AwaitedHandler = (orderId: string, waiter: { client: string; stake: AwaitedStake }) => void;

/** The signed-in seller: the payout address (recorded with every action) and the vendors it may act for. */
export interface SellerActor {
  address: string;
  vendorIds: readonly string[];
}

export interface Shipment {
  trackingNumber: string;
  carrier?: string;
}

/** A refund the chain has confirmed (src/server/payments/refund.ts), to record against one exception. */
export interface CheckedRefund {
  exception: SellerException;
  signature: string;
  amountBaseUnits: bigint;
  /** The sender it went back to (their wallet, or token account): src/server/payments/payers.ts payerKey. */
  to: string;
  /** Who sent each ledger transfer, by signature (null: no sender), as the payments module read them. */
  payers: ReadonlyMap<string, string | null>;
}

/** What the refund check needs to know about the order, after the refusals that need no chain read. */
export interface RefundTarget {
  id: string;
  recipient: string;
  mint: string;
  payments: { signature: string; slot: number | null }[];
}

export interface RetentionResult {
  erased: number;
  /** Due, but an e-mail of the order is still being delivered: erased on a later run. */
  waiting: number;
}

export interface ResealOptions {
  /** Only plain (never sealed) values: the start-up pass. Default false: everything not under the current key. */
  onlyPlain?: boolean;
  batchSize?: number;
  /** After each committed batch (progress; a test stops the run here to resume it later). */
  onBatch?: (progress: { column: string; resealed: number }) => void | Promise<void>;
}

export interface ResealResult {
  resealed: number;
  /** Values that could not be opened with any key of DATA_KEYS (left unchanged). */
  unreadable: number;
}
