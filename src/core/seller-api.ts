/**
 * The seller console's JSON contract (`/api/seller/*`). Types only, shared by the browser and the server.
 * Money as in api.ts: integer cents, token base units as integer strings.
 */
import type { MailDelivery, OrderStatus, PaymentRole } from './api';
import type { SiwsRequest } from './siws';
import type { ShippingDetailsState } from './ship-readiness';

/** GET /api/seller/nonce → 200 */
export type SellerSignInRequest = SiwsRequest;

/** POST /api/seller/session body: the signed SIWS text and its signature (base64). */
export interface SellerSignInBody {
  message: string;
  signature: string;
}

/** GET /api/seller/me, POST /api/seller/session → 200 */
export interface SellerMe {
  address: string;
  vendors: { id: string; name: string }[];
  expiresAt: string;
}

/** One open session of the signed-in wallet. `id` is its handle (not the cookie); `current` is the asking one. */
export interface SellerSession {
  id: string;
  createdAt: string;
  expiresAt: string;
  /** "Firefox on Linux", from the sign-in's browser; null when unknown. */
  device: string | null;
  current: boolean;
}

/** GET /api/seller/sessions → 200 (newest first). DELETE /api/seller/sessions/:id ends one;
 * POST /api/seller/sessions/end-others ends all but the current one → { ended }. */
export interface SellerSessionList {
  sessions: SellerSession[];
}

/** Something about an order the seller has to look at and resolve. */
export type SellerException =
  | 'underpaid'
  | 'paid_late'
  | 'extra_payment'
  | 'no_shipping_details'
  | 'oversold'
  /** The transfers counted toward the order paid more than its amount (the completing one overpaid). */
  | 'overpaid'
  /** The buyer of a paid order asked to cancel from their order page (open until refunded or resolved). */
  | 'cancel_requested'
  /**
   * A transaction the store could not read may pay the order (it named the order's reference or was listed under
   * it): the vendor checks it by hand (docs/decisions/transaction-versions.md).
   */
  | 'unreadable_payment';
export const SELLER_EXCEPTIONS: readonly SellerException[] = [
  'underpaid',
  'paid_late',
  'extra_payment',
  'no_shipping_details',
  'oversold',
  'overpaid',
  'cancel_requested',
  'unreadable_payment',
];

/** The list filter: an order status, or every order with an unresolved exception. */
export type SellerStatusFilter = OrderStatus | 'exceptions';

/**
 * The console's queues (docs/decisions/seller-console.md "Queues"): `to_ship` (fully paid with details, not
 * shipped; the landing view), `exceptions` (open ones only), `shipped` (shipped or delivered), `all`.
 */
export type SellerQueue = 'to_ship' | 'exceptions' | 'shipped' | 'all';
export const SELLER_QUEUES: readonly SellerQueue[] = ['to_ship', 'exceptions', 'shipped', 'all'];

export interface SellerOrderSummary {
  orderId: string;
  /** The short order number people see (pages, e-mails, console, CSV): the id's first 8 characters, upper case. */
  orderNumber: string;
  createdAt: string;
  status: OrderStatus;
  vendorId: string;
  paymentMethod: 'wallet' | 'qr';
  buyerName: string;
  buyerEmail: string;
  product: string;
  totalCents: number;
  /** null: an unpriced QR order. */
  amountBaseUnits: string | null;
  /** The ledger sum ('0' when nothing was received). */
  receivedBaseUnits: string;
  exceptions: SellerException[];
  /** Exceptions the seller has recorded an action for. */
  resolved: SellerException[];
  /**
   * A refund closed the order: everything it owed went back (a cancelled, oversold, underpaid or late order
   * refunded in full). It is done: nothing to ship, nothing to refund.
   */
  closedByRefund: boolean;
  /**
   * Paid without shipping details less than QR_DETAILS_GRACE_MS ago: the buyer may still be typing them (not an
   * exception yet; it becomes "Paid without shipping details" after the grace).
   */
  awaitingDetails: boolean;
}

/**
 * GET /api/seller/orders → 200 (newest first). `counts`: the orders in each queue with the same search and date
 * range (the status filter aside), so the tabs show what clicking them lists.
 */
export interface SellerOrderList {
  orders: SellerOrderSummary[];
  total: number;
  page: number;
  pageSize: number;
  counts: Record<SellerQueue, number>;
}

/**
 * GET /api/seller/changes?since=… → 200: the seller's orders created or changed (status, payment, details, a
 * seller action) at or after `since`, at most 200, oldest first; `cursor` is what to send as `since` next time.
 * The console polls it every few seconds and reloads the list when anything is new.
 */
export interface SellerChanges {
  cursor: string;
  changes: { orderId: string; orderNumber: string; status: OrderStatus; at: string; createdAt: string }[];
}

/** One period of the sales summary, from `from` (midnight in the asked time zone) to now. */
export interface SellerSummaryPeriod {
  period: 'today' | '7d' | '30d';
  from: string;
  /** The period's first day in the asked time zone (`YYYY-MM-DD`): the order list's `from` that lists its orders. */
  fromDate: string;
  /**
   * Orders placed in the period: what the All tab lists with `from` = `fromDate` and no `to` (the same SQL: every
   * order whatever became of it, cancelled and refunded ones included; a QR record nobody committed to is none).
   */
  orders: number;
  /** $CLAIM base units received in the period (every transfer recorded in it, extras and overpayments included). */
  receivedBaseUnits: string;
  /** Received less refunded in the period (base units; negative when the period refunded more than it received). */
  netBaseUnits: string;
  /** Their USD value, each transfer at its own time (cents); transfers without a known value are left out... */
  receivedUsdCents: number;
  /** ...and counted here. */
  paymentsWithoutUsd: number;
  /** Refunds recorded in the period and their $CLAIM base units. */
  refunds: number;
  refundedBaseUnits: string;
}

/** GET /api/seller/summary?tz=… → 200 */
export interface SellerSummary {
  timeZone: string;
  asOf: string;
  periods: SellerSummaryPeriod[];
  /**
   * Now, over every order (not a period): the orders with an exception still open — the Exceptions tab's count
   * without a search or dates, by the same rule and the same grace for shipping details.
   */
  openExceptions: number;
  /**
   * Now, over every order: what the rule of who is owed what (src/core/refunds.ts) still owes back to payers on
   * the open exceptions a refund settles (extra payments, overpayments, oversold, cancelled), base units, and in
   * how many orders. Part of what was received, not the vendor's to keep.
   */
  owedBackBaseUnits: string;
  owedBackOrders: number;
}

/** Who paid an order: one wallet and what its ledger transfers brought (read from the chain). */
export interface SellerPayer {
  /** The wallet (owner of the token account the payment debited); null when the node did not say. */
  owner: string | null;
  /** The token account the payment came from. */
  tokenAccount: string;
  /** Its explorer page (the owner's, else the token account's). */
  explorerUrl: string;
  /** What this payer's recorded transfers brought, base units. */
  paidBaseUnits: string;
  /** The ledger transfers it made (signatures), oldest first. */
  payments: string[];
  /** What is still owed to this payer by the rule (src/core/refunds.ts), base units. */
  owedBaseUnits: string;
  /**
   * The most one refund to this payer may return now, against each refundable exception the order has
   * (src/core/refunds.ts refundLimits, the rule the server's check applies): "0" when nothing is owed to them.
   */
  refundLimits: Partial<Record<SellerException, string>>;
}

/** What goes back to the payer (src/core/refunds.ts), base units as integer strings. */
export interface SellerOwed {
  receivedBaseUnits: string;
  /** What the rule says goes back (extras, overpayment, or everything when oversold), before refunds. */
  owedBaseUnits: string;
  refundedBaseUnits: string;
  /** Still to return: owed − refunded. */
  remainingBaseUnits: string;
  /** The most refunds may return when the order is returned whole: received (dust left out) − refunded. */
  refundableBaseUnits: string;
}

export interface SellerRefund {
  signature: string;
  amountBaseUnits: string;
  /** The exception it was recorded against. */
  exception: string;
  /** The payer it went back to (their wallet, or token account); null for refunds recorded before this was. */
  to: string | null;
  at: string;
  transactionUrl: string;
}

export interface SellerOrderDetail extends SellerOrderSummary {
  /** The short order number the buyer sees (page, e-mails): the id's first 8 characters, upper case. */
  orderNumber: string;
  reference: string;
  recipient: string;
  /** The token's mint (the refund transfer moves it). */
  mint: string;
  expiresAt: string;
  /**
   * Who paid, from the ledger's transactions on chain (cached; each read once). `payersKnown` false: the chain
   * could not be read now (or this store has no RPC); `payers` is then empty.
   */
  payers: SellerPayer[];
  payersKnown: boolean;
  owed: SellerOwed;
  /** Refunds the chain confirmed, oldest first. */
  refunds: SellerRefund[];
  /** The seller's latest note on the order (free text, only the seller sees it). */
  note?: { text: string; at: string };
  /**
   * Paid late: the USD value of what completed the order, each counted transfer valued with the reference price
   * at its block time (as the paid-late e-mail states it); null when no price was known then.
   */
  paidLateUsdCents?: number | null;
  items: { name: string; variantLabel?: string; quantity: number; unitCents: number; lineCents: number }[];
  /** The buyer's shipping details as given (src/core/order.ts ShippingInput). */
  shipping: Record<string, string>;
  /**
   * What the order holds of them: given, none (never sent: a QR order paid first), erased (the buyer deleted
   * them) or unreadable. Without them it cannot ship (src/core/ship-readiness.ts: the console offers no Mark
   * shipped and says why; the server refuses it in the same words).
   */
  shippingDetails: ShippingDetailsState;
  shippingAddress: string;
  /**
   * What the packing slip prints: the shop's name (the order's vendor), its return address on lines (the payout
   * group's VENDOR_<KEY>_RETURN_ADDRESS; empty when not set) and the buyer's name and address on lines (empty
   * when the details are missing or erased).
   */
  packingSlip: { shopName: string; returnAddress: string[]; shipTo: string[] };
  payments: {
    signature: string;
    receivedBaseUnits: string;
    role: PaymentRole;
    at: string;
    confirmation: 'confirmed' | 'finalized';
  }[];
  /**
   * Transactions the payment watcher set aside because it could not read them that may pay this order
   * (docs/decisions/transaction-versions.md), oldest first: the seller checks each by hand in an explorer.
   * `reason`: unsupported_version, malformed or rpc_error.
   */
  unreadablePayments: { signature: string; reason: string; at: string; transactionUrl: string }[];
  history: { status: OrderStatus; event: string; at: string }[];
  emails: {
    id: string;
    kind: string;
    recipient: 'seller' | 'buyer';
    to: string;
    state: MailDelivery;
    attempts: number;
    lastError: string | null;
    deliveredAt: string | null;
    createdAt: string;
  }[];
  actions: { action: string; detail: Record<string, string>; address: string; at: string }[];
  /** The latest tracking (Mark shipped, or a later change): `at` when it was set, `shippedAt` when shipped. */
  shipment?: {
    trackingNumber: string;
    carrier?: string;
    trackingUrl?: string;
    at: string;
    shippedAt: string;
  };
}

/** The longest seller's note, in characters. */
export const NOTE_MAX_LENGTH = 2000;

/** POST /api/seller/orders/:id/ship, and /tracking (a new number, and carrier, for a shipped order). */
export interface SellerShipBody {
  trackingNumber: string;
  carrier?: string;
}

/** One stock line of the signed-in vendor (GET /api/seller/stock). */
export interface SellerStockLine {
  productId: string;
  variantId?: string;
  productName: string;
  variantLabel?: string;
  vendorId: string;
  /** Units not yet sold, reservations included (what "Set stock" sets). */
  onHand: number;
  /** Units held by open orders until their quote expires. */
  reserved: number;
  /** Units that can be bought now: max(0, onHand − reserved). */
  available: number;
  /** Units sold (paid orders). */
  sold: number;
}

/** One entry of the stock change log: what changed, by whom (`actor`) and when. */
export interface SellerStockChange {
  productId: string;
  variantId?: string;
  kind: 'seed' | 'set' | 'reserve' | 'release' | 'sale' | 'oversold' | 'restock';
  onHandDelta: number;
  reservedDelta: number;
  onHandAfter: number;
  reservedAfter: number;
  orderId: string | null;
  /** `seller:<address>`, `cli:<user>`, `order`, `expiry`, `payment`, `catalogue`, … */
  actor: string;
  at: string;
}

/** GET /api/seller/stock, POST /api/seller/stock → 200: the vendor's lines and its recent changes, newest first. */
export interface SellerStock {
  lines: SellerStockLine[];
  changes: SellerStockChange[];
  /** The vendor's drops now (docs/decisions/drops.md); absent when it has none. */
  drops?: SellerDrop[];
}

/** One drop's live state on the console's stock page. */
export interface SellerDrop {
  productId: string;
  productName: string;
  /** The vendor's batch this product is one piece of (one drop of several products; `perBuyer` counts it all). */
  batch?: string;
  /** When buying opens (ISO). */
  startsAt: string;
  holdMinutes: number;
  perBuyer: number;
  /** Pieces in stock (not yet sold, held included), free now, held by unpaid orders, sold. */
  onHand: number;
  available: number;
  held: number;
  sold: number;
  /** Holds that lapsed or were released without a payment (each piece went back to the line). */
  released: number;
  /**
   * The line: everyone who joined, still waiting, let through now, who held, who let their turn pass, and who had
   * their turn on another piece of the batch or from another address (the same wallet).
   */
  line: { joined: number; waiting: number; through: number; held: number; lapsed: number; elsewhere: number };
}

/** POST /api/seller/stock: sets one line's units in stock. */
export interface SellerStockBody {
  productId: string;
  variantId?: string;
  onHand: number;
}
