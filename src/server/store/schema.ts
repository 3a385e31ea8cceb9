/**
 * Table types for Kysely. Portable column types only (text, integer) so one migration serves SQLite and
 * PostgreSQL: times are ISO-8601 UTC texts (fixed width, so they sort and compare as text), token amounts are
 * integer strings (they exceed 2^53), booleans are 0/1 integers, JSON is text.
 */
import type { Generated, Insertable, Selectable } from 'kysely';
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
  shipping_json: string;
  referrer: string | null;
  status: OrderStatus;
  expires_at: string;
  signature: string | null;
  received_base_units: string | null;
  block_time: number | null;
  finalized: number;
  confirmation_requested_at: string | null;
  created_at: string;
  updated_at: string;
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
  order_id: string;
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
}

export interface PriceHistoryTable {
  t: string;
  price_usd: string;
}

export interface Database {
  price_history: PriceHistoryTable;
  orders: OrdersTable;
  order_history: OrderHistoryTable;
  idempotency_keys: IdempotencyTable;
  outbox: OutboxTable;
  payments: PaymentsTable;
}

export type OrderRow = Selectable<OrdersTable>;
export type NewOrderRow = Insertable<OrdersTable>;
export type OutboxRow = Selectable<OutboxTable>;
export type PaymentRow = Selectable<PaymentsTable>;
