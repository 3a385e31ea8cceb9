/**
 * Table types for Kysely. Portable column types only (text, integer) so one migration serves SQLite and
 * PostgreSQL: times are ISO-8601 UTC texts (fixed width, so they sort and compare as text), token amounts are
 * integer strings (they exceed 2^53), booleans are 0/1 integers, JSON is text.
 */
import type { Generated, Selectable } from 'kysely';
import type { MailDelivery, OrderStatus } from '../../core/api';
import type { EmailKind, EmailRecipientRole } from '../../core/email-payload';
import type { PaymentRole } from '../../core/order-status';

export interface OrdersTable {
  id: string;
  reference: string;
  vendor_id: string;
  payout_group: string;
  items_json: string;
  total_cents: number;
  /** null, with amount_base_units and solana_pay_url: an unpriced QR order (migration 0003). */
  price_usd: string | null;
  amount_base_units: string | null;
  recipient: string;
  mint: string;
  solana_pay_url: string | null;
  payment_method: 'wallet' | 'qr';
  /** null: a QR record whose shipping details have not come yet (migration 0007). */
  shipping_json: string | null;
  referrer: string | null;
  status: OrderStatus;
  expires_at: string;
  signature: string | null;
  received_base_units: string | null;
  /** The order's dust threshold when its last transfer was recorded (migration 0021; NULL: none recorded since). */
  dust_base_units: string | null;
  block_time: number | null;
  finalized: number;
  confirmation_requested_at: string | null;
  /**
   * When the order confirmation was issued (the seller and buyer confirmations queued): the completing payment of
   * a wallet order or of a QR record with details, or a QR record's details sent once something was paid
   * (migration 0024).
   */
  confirmed_at: string | null;
  /** When the buyer asked, from the order page, to cancel the paid order ("Cancel instead"; migration 0024). */
  cancel_requested_at: string | null;
  /** When the vendor declined that request (its "Record action" on cancel_requested; migration 0024). */
  cancel_declined_at: string | null;
  created_at: string;
  updated_at: string;
  /** The buyer's order page capability token (32 hex; UNIQUE; migration 0007). */
  public_token: string | null;
  /** When the seller was told "paid, shipping details missing" (migration 0007). */
  details_notified_at: string | null;
  /** When the buyer's details and e-mail bodies were erased (retention or the buyer; migration 0017). */
  details_erased_at: Generated<string | null>;
}

export interface OrderHistoryTable {
  id: string;
  order_id: string;
  seq: number;
  status: OrderStatus;
  event: string;
  at: string;
}

export interface IdempotencyTable {
  key: string;
  request_hash: string;
  status_code: number;
  response_json: string;
  order_id: string;
  created_at: string;
}

export interface OutboxTable {
  id: string;
  /** null for a seller alert about no order (the price sources disagree; migration 0014). */
  order_id: string | null;
  kind: EmailKind;
  role: EmailRecipientRole;
  recipient_email: string;
  payout_group: string;
  payment_seen: number;
  payload_json: string;
  /** The row that must be delivered (or have failed for good) first: the seller row of a buyer message. */
  after_id: string | null;
  state: MailDelivery;
  attempts: number;
  next_attempt_at: string;
  locked_until: string | null;
  lock_token: string | null;
  last_error: string | null;
  delivered_at: string | null;
  created_at: string;
  /** '' for a message about the order; the ledger signature for a note about one payment (migration 0004). */
  payment_signature: Generated<string>;
  /** A buyer message counted by the e-mail cap: the keyed hash of its address (migration 0023); else NULL. */
  recipient_key: Generated<string | null>;
}

/** Migration 0023: one row per hashed recipient address (never the address); `paid_at` once it paid an order. */
export interface MailRecipientsTable {
  recipient_key: string;
  paid_at: string | null;
}

/** The payment ledger (migration 0004): one row per verified transfer mentioning an order's reference. */
export interface PaymentsTable {
  /** UNIQUE: one transaction pays at most one order, and is recorded once. */
  signature: string;
  order_id: string;
  /** 1, 2, … within the order (UNIQUE with order_id): the ledger's order. */
  seq: number;
  /** This transfer's raw amount, an integer string. */
  received_base_units: string;
  slot: number | null;
  /** Unix seconds of the block, null if the node did not say. */
  block_time: number | null;
  confirmation: 'confirmed' | 'finalized';
  role: PaymentRole;
  recorded_at: string;
  /** USD cents of this transfer at its block time (reference price); null: recorded before 0018 or no price then. */
  usd_cents: Generated<number | null>;
}

/** Stock per product / variant (migration 0006). `variant_id` is '' for a product without variants. */
export interface StockTable {
  product_id: string;
  variant_id: string;
  /** Units not yet sold (reserved ones included). */
  on_hand: number;
  /** Units held by open orders. */
  reserved: number;
  /** The `seq` of the line's latest stock_changes row: each change bumps it in the same UPDATE (migration 0011). */
  change_seq: number;
  updated_at: string;
}

export type ReservationState = 'held' | 'released' | 'sold' | 'oversold';

/** What one order holds of one stock line (migration 0006). */
export interface ReservationsTable {
  order_id: string;
  product_id: string;
  variant_id: string;
  quantity: number;
  state: ReservationState;
  /** The quote expiry: the reservation is released when the order expires unpaid. */
  expires_at: string;
  created_at: string;
  updated_at: string;
  /** Migration 0015: the client that made the hold (keyed hash), for the per-client cap; null when unknown. */
  holder: string | null;
  /**
   * Migration 0022: the paying wallet that proved it holds the order's amount (docs/decisions/holds.md); a hold
   * counts against that wallet's $CLAIM. Null: no wallet proof (such orders hold nothing since 0022).
   */
  payer: string | null;
}

export type StockChangeKind = 'seed' | 'set' | 'reserve' | 'release' | 'sale' | 'oversold' | 'restock';

/** Every stock change, with who and when (migration 0006). */
export interface StockChangesTable {
  id: string;
  product_id: string;
  variant_id: string;
  /** 1, 2, … per stock line: the log's order. */
  seq: number;
  kind: StockChangeKind;
  on_hand_delta: number;
  reserved_delta: number;
  on_hand_after: number;
  reserved_after: number;
  order_id: string | null;
  actor: string;
  at: string;
}

/** Whether a seller-alert episode is open, per kind (migration 0014). */
export interface PriceAlertsTable {
  kind: string;
  open_since: string | null;
}

export interface PriceHistoryTable {
  t: string;
  price_usd: string;
}

/** Rate-limit windows shared by the instances (migration 0009). reset_ms: Unix ms (bigint; a string from pg). */
export interface RateLimitsTable {
  key: string;
  points: number;
  reset_ms: number | string;
}

/** Sign-In-With-Solana nonces (migration 0008): single use, deleted when used. */
export interface SellerNoncesTable {
  nonce: string;
  issued_at: string;
  /** The whole request issued for the nonce (SiwsRequest JSON; migration 0013): a sign-in must match it. */
  request_json: string | null;
}

/** Seller console sessions (migration 0008): the cookie's id is stored as its SHA-256 hex only. */
export interface SellerSessionsTable {
  id_hash: string;
  /** The payout address that signed in. */
  address: string;
  created_at: string;
  expires_at: string;
  /** Browser and system of the sign-in ("Firefox on Linux"; migration 0013), for the console's session list. */
  device: string | null;
}

/** What a seller did to an order (migration 0008). */
export interface SellerActionsTable {
  id: string;
  order_id: string;
  /**
   * shipped | tracking (a changed tracking number) | delivered | note | resolved | refund (partial) | refunded
   * (what was owed is returned) | email_resent (written by src/server/orders/fulfilment.ts).
   */
  action: string;
  detail_json: string;
  address: string;
  at: string;
}

/** Migration 0016: refunds the chain confirmed (src/server/orders/fulfilment.ts), one per transaction. */
export interface RefundsTable {
  signature: string;
  order_id: string;
  amount_base_units: string;
  /** The exception the seller named when recording it. */
  exception: string;
  /** The payout address signed in. */
  address: string;
  at: string;
  /** Who it went back to: the sender's wallet, or token account (migration 0021; NULL before). */
  payer: string | null;
}

/** A buyer in a drop's line (migration 0030; src/server/stock/drop-line.ts). */
export interface DropLineTable {
  product_id: string;
  holder: string;
  rank: number;
  joined_at: string;
  through_at: string | null;
  done_at: string | null;
}

export interface Database {
  rate_limits: RateLimitsTable;
  rpc_budget_slots: RpcBudgetSlotsTable;
  price_current: PriceCurrentTable;
  price_history: PriceHistoryTable;
  price_alerts: PriceAlertsTable;
  orders: OrdersTable;
  order_history: OrderHistoryTable;
  idempotency_keys: IdempotencyTable;
  outbox: OutboxTable;
  mail_recipients: MailRecipientsTable;
  payments: PaymentsTable;
  payment_scan_cursors: PaymentScanCursorsTable;
  payment_scan_judged: PaymentScanJudgedTable;
  payment_scan_unmatched: PaymentScanUnmatchedTable;
  payment_watch_lease: PaymentWatchLeaseTable;
  payment_watch_progress: PaymentWatchProgressTable;
  payment_unreadable: PaymentUnreadableTable;
  order_unreadable_payments: OrderUnreadablePaymentsTable;
  seller_nonces: SellerNoncesTable;
  seller_sessions: SellerSessionsTable;
  seller_actions: SellerActionsTable;
  refunds: RefundsTable;
  stock: StockTable;
  reservations: ReservationsTable;
  stock_changes: StockChangesTable;
  drop_line: DropLineTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  webhook_notes: WebhookNotesTable;
}

/** Migration 0005: how far the watcher has read each vendor token account's signatures (newest judged). */
export interface PaymentScanCursorsTable {
  account: string;
  signature: string;
  slot: number;
  updated_at: string;
}

/** Migration 0005: signatures already judged (never fetched again), with what they were. */
export interface PaymentScanJudgedTable {
  signature: string;
  /** recorded | no_order | not_followed | failed | no_transfer | refused | unknown | unreadable */
  verdict: string;
  judged_at: string;
}

/**
 * Migration 0005: transfers to a vendor naming keys that were no order's reference when judged (a QR buyer may
 * pay before the order is recorded): one row per account key, matched against orders.reference later.
 */
export interface PaymentScanUnmatchedTable {
  reference: string;
  signature: string;
  seen_at: string;
}

/** Migration 0005: which instance watches payments (PostgreSQL: several instances, one watcher). */
/** When the payment watcher last caught up with every vendor token account (migration 0012). */
export interface PaymentWatchProgressTable {
  name: string;
  /** The instance that wrote it (the watch's holder then). */
  holder: string;
  /** ISO-8601 UTC. */
  caught_up_at: string;
}

export interface PaymentWatchLeaseTable {
  name: string;
  holder: string;
  /** ISO-8601 UTC (fixed width: compares as text). */
  expires_at: string;
}

export type OrderRow = Selectable<OrdersTable>;
export type OutboxRow = Selectable<OutboxTable>;
export type PaymentRow = Selectable<PaymentsTable>;

/** Migration 0020: a transaction the watcher could not read, set aside (never fetched again by the sweeps). */
export interface PaymentUnreadableTable {
  signature: string;
  /** unsupported_version | malformed | rpc_error */
  reason: string;
  /** What the node answered, in short (no personal data: a transaction's answer has none). */
  detail: string;
  /** The vendor token account whose signatures listed it, when the sweep found it. */
  account: string | null;
  set_aside_at: string;
}

/**
 * Migration 0020: an unreadable transaction that may concern an order (it named the order's reference, or was
 * listed under it). Written by the order module only; shown on the order's page and as the seller's exception.
 */
export interface OrderUnreadablePaymentsTable {
  order_id: string;
  signature: string;
  reason: string;
  noted_at: string;
}

/**
 * Migration 0025: the fleet's Solana RPC budget on PostgreSQL (payments/fleet-budget.ts): requests granted in one
 * time slot, per method and in all (method '*').
 */
export interface RpcBudgetSlotsTable {
  scope: string;
  /** Unix ms / slot length (bigint: pg returns it as a string). */
  slot: number | string;
  method: string;
  used: number;
}

/** Migration 0026: what the fleet's price poller has now (price/shared.ts), for the other instances. */
export interface PriceCurrentTable {
  name: string;
  /** price/service.ts PriceSnapshot as JSON. */
  snapshot_json: string;
  /** ISO-8601 UTC. */
  updated_at: string;
}

/** Migration 0045: a vendor's webhook endpoint (src/server/webhooks). */
export interface WebhookEndpointsTable {
  /** `ep_…` */
  id: string;
  vendor_id: string;
  url: string;
  /** JSON array of event types, `["*"]` for every one. */
  events_json: string;
  /** 1: order events carry the shipping name and address; 0: left out. */
  include_shipping: number;
  /** The signing secret (`whsec_…`), sealed (field webhook.secret, bound to the endpoint id). */
  secret: string;
  /** After a rotation: the previous secret, sealed, still signing until `previous_secret_until`. */
  previous_secret: string | null;
  previous_secret_until: string | null;
  /** active | paused | disabled */
  state: string;
  /** Why not active: vendor (paused by the vendor), failing (paused after days of failures), gone (410). */
  state_reason: string | null;
  /** The first failure since the last success (NULL while it succeeds). */
  failing_since: string | null;
  created_at: string;
  updated_at: string;
}

/** Migration 0045: one event for one endpoint; its id is the `webhook-id` of every attempt. */
export interface WebhookDeliveriesTable {
  /** `msg_…` */
  id: string;
  endpoint_id: string;
  vendor_id: string;
  order_id: string | null;
  event_type: string;
  /** The JSON body sent, sealed (field webhook.payload, bound to the delivery id); `erased` with the order's details. */
  payload_json: string;
  /** pending | retrying | delivered | failed */
  state: string;
  attempts: number;
  next_attempt_at: string;
  /** Retried until then (3 days after it was queued or resent). */
  retry_until: string;
  locked_until: string | null;
  lock_token: string | null;
  last_status: number | null;
  last_attempt_at: string | null;
  /** What went wrong last (no answer body: a status, a refusal, a timeout). */
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}

/** Migration 0045: each attempt of a delivery, kept with it. */
export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  at: string;
  status: number | null;
  error: string | null;
  duration_ms: number;
}

/** Migration 0045: an event already announced (an order's exception opened, a stock line sold out). */
export interface WebhookNotesTable {
  key: string;
  at: string;
}

export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
