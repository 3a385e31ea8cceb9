/**
 * The JSON contract between the browser and the server (`/api/*`). Types only: both sides import them, the
 * server validates requests with its own schemas. Money travels as integer cents (number) and token base units
 * as decimal strings of an integer (bigint on either side), never as floats.
 */

export interface PublicConfig {
  demo: boolean;
  cluster: 'mainnet-beta' | 'devnet' | 'testnet' | 'localnet';
  rpcUrl: string;
  wsUrl: string;
  claimMint: string;
  pairAddress: string;
}

/** GET /api/price → 200 */
export interface PriceOk {
  /** The reference price quotes use: min(spot, the recent window's average), an exact decimal, e.g. "0.000123". */
  priceUsd: string;
  spotUsd: string; // DexScreener's spot price of the last refresh, exact as sent
  liquidityUsd?: string; // the pool's liquidity in USD (the lowest reading of the sources)
  fetchedAt: string; // ISO time of the upstream fetch
  ageSeconds: number;
  source: 'dexscreener' | 'demo';
}
/** GET /api/price → 503 when no good price is known. */
export interface PriceUnavailable {
  error: 'price_unavailable';
  message: string;
}
/** GET /api/price → 503 while quotes are refused: too little liquidity, or the two sources disagree. */
export interface PriceUntrusted {
  error: 'price_untrusted';
  reason: 'low_liquidity' | 'sources_disagree';
  message: string;
  fetchedAt: string;
}

/** GET /api/price/history → 200: the last 24 h of spot samples, at most 288 points (bucket closes). */
export interface PriceHistory {
  points: { t: string; priceUsd: string }[];
}

export interface QuoteItemRequest {
  productId: string;
  variantId?: string;
  quantity: number;
}

/** POST /api/quotes */
export interface QuoteRequest {
  items: QuoteItemRequest[];
  /**
   * QR products only, and only while the server knows no fresh price: a quote without an amount (priceUsd,
   * amount, amountBaseUnits and solanaPayUrl null). Its order is confirmed with totalCLAIM 'N/A' (spec §3) and
   * is not payment-watched: the seller arranges payment.
   */
  unpriced?: boolean;
  /**
   * The token of an earlier quote this browser was issued (same vendor and payment mode, at most 24 h old, may
   * be expired): the new quote keeps its payment reference, so a QR paid before a rebuild still matches.
   */
  renew?: string;
  /**
   * The wallet that will pay (base58), when Buy Now has it connected: a drop's quote that lets the buyer through
   * starts reading its $CLAIM balance, so their order (after the wallet's signature) finds it read.
   */
  wallet?: string;
}

export interface QuoteResponse {
  /** Opaque signed token (HMAC) carrying the whole quote; the browser hands it back unchanged. */
  quote: string;
  items: {
    productId: string;
    variantId?: string;
    name: string;
    quantity: number;
    unitCents: number;
    lineCents: number;
  }[];
  totalCents: number;
  priceUsd: string;
  /** Token amount in base units (6 decimals), as an integer string. */
  amountBaseUnits: string;
  /** The same amount as a 6-decimal string, e.g. "1234.500000". */
  amount: string;
  reference: string;
  recipient: string;
  mint: string;
  solanaPayUrl: string;
  expiresAt: string;
}

/** POST /api/quotes with `unpriced: true` → 200: no price, so no amount and no payment link. */
export interface UnpricedQuoteResponse extends Omit<
  QuoteResponse,
  'priceUsd' | 'amountBaseUnits' | 'amount' | 'solanaPayUrl'
> {
  priceUsd: null;
  amountBaseUnits: null;
  amount: null;
  solanaPayUrl: null;
}

/**
 * GET /api/vendors/:vendorId/payout-account → 200: whether the vendor can be paid by QR or payment link now (its
 * $CLAIM token account exists; src/core/payout-account.ts). `message`: the buyer's sentence when it cannot.
 */
export interface PayoutAccountStatus {
  vendorId: string;
  state: 'exists' | 'missing' | 'unknown';
  message?: string;
}

/** Any POST /api/quotes answer: narrow with `amount === null`. */
export type AnyQuoteResponse = QuoteResponse | UnpricedQuoteResponse;

export interface ShippingInternational {
  kind: 'international';
  fullName: string;
  email: string;
  address1: string;
  address2?: string;
  city: string;
  stateProvince: string;
  postalCode: string;
  country: string;
}

export interface ShippingUS {
  kind: 'us';
  fullName: string;
  email: string;
  address1: string;
  address2?: string;
  city: string;
  usState: string;
  zip: string;
}

export type Shipping = ShippingInternational | ShippingUS;

/**
 * POST /api/orders (header Idempotency-Key required). A QR page records its payment target before it shows
 * the QR: `shipping` is then left out (QR orders only) and attached later with
 * POST /api/orders/:id/confirmation {shipping}.
 */
export interface OrderRequest {
  quote: string;
  shipping?: Shipping;
  paymentMethod: 'wallet' | 'qr';
  referrer?: string;
  /** Wallet orders: the paying wallet and its signature of holdProofMessage (src/core/hold-proof.ts). */
  payer?: { address: string; signature: string };
}

export interface OrderCreated {
  orderId: string;
  reference: string;
  solanaPayUrl: string;
  amount: string;
  amountBaseUnits: string;
  recipient: string;
  mint: string;
  expiresAt: string;
  /** The buyer's order page (PUBLIC_URL + /order/<capability token>); every buyer e-mail links it. */
  orderUrl: string;
  /**
   * Wallet orders: whether the order holds its pieces (only with the paying wallet's proof of the money,
   * docs/decisions/holds.md); when not, `holdNote` says why in plain words. The order is payable either way.
   */
  held?: boolean;
  holdNote?: string;
  /**
   * A QR record when the shop is reached over HTTPS: its Solana Pay transaction request
   * (`solana:https://…/api/pay/<token>`), which the QR and "Open in wallet" carry; `solanaPayUrl` (the transfer
   * request) stays the fallback and the e-mails' link (docs/decisions/transaction-requests.md).
   */
  transactionRequestUrl?: string;
  /**
   * A priced QR record: the QR code of the link it shows (`transactionRequestUrl`, else `solanaPayUrl`) as an SVG
   * document, drawn exactly as GET /api/qr.svg draws that link, so the page shows it without another request.
   */
  qrSvg?: string;
}

/** POST /api/orders → 201 for an unpriced (QR) quote: no amount, no payment link. */
export interface UnpricedOrderCreated extends Omit<
  OrderCreated,
  'solanaPayUrl' | 'amount' | 'amountBaseUnits'
> {
  solanaPayUrl: null;
  amount: null;
  amountBaseUnits: null;
}

/** Any POST /api/orders answer: narrow with `amount === null`. */
export type AnyOrderCreated = OrderCreated | UnpricedOrderCreated;

export type OrderStatus =
  | 'awaiting_payment'
  | 'paid'
  | 'final'
  | 'expired'
  | 'underpaid'
  | 'paid_late'
  /** The seller sent the parcel (seller console, with a tracking number). */
  | 'shipped'
  /** The seller marked the parcel delivered. */
  | 'delivered'
  /** Paid in full after the reservation lapsed and the stock was sold to someone else: the seller refunds. */
  | 'oversold'
  /** Paid, then cancelled by the seller at the buyer's request before shipping: the seller refunds all of it. */
  | 'cancelled';

export type PaymentRole = 'payment' | 'top_up' | 'extra' | 'partial';

export interface OrderPayment {
  signature: string;
  receivedBaseUnits: string;
  at: string;
  role: PaymentRole;
}

/** A refund sent to the paying wallet: its amount and transaction (public on chain). */
export interface OrderRefund {
  signature: string;
  amountBaseUnits: string;
  at: string;
}

/** `withheld`: not sent, by the automated e-mail cap (the reason is the row's error; the seller may send it). */
export type MailDelivery = 'pending' | 'sent' | 'retrying' | 'failed' | 'withheld';

/**
 * GET /api/orders/:id → public status: nothing personal (no name, e-mail or address) and not the order page's token.
 */
export interface OrderPublic {
  orderId: string;
  status: OrderStatus;
  paymentMethod: 'wallet' | 'qr';
  reference: string;
  /** null: an unpriced QR order (the price was unknown; not payment-watched, the seller arranges payment). */
  amount: string | null;
  amountBaseUnits: string | null;
  totalCents: number;
  expiresAt: string;
  /** The transfer that completed the amount; else the latest recorded transfer. */
  signature?: string;
  /** The sum of the recorded payments (the ledger), base units as an integer string; absent when none. */
  receivedBaseUnits?: string;
  /**
   * The payment ledger, oldest first: every verified transfer to this order's reference. `role`: partial (the
   * sum stayed short), payment (completed the amount), top_up (completed an underpaid order), extra (after the
   * order was fully paid: an overpayment the seller refunds or credits). `at`: the block time, else when recorded.
   */
  payments: OrderPayment[];
  history: { status: OrderStatus; at: string }[];
  /**
   * given: the shipping details are on the order. awaiting: a QR record without them yet. missing: paid, and the
   * details did not come within the grace delay (the seller has been told "paid, shipping details missing").
   */
  shippingDetails: ShippingDetailsState;
  // No order page link: the id is not a capability (it is in e-mail headers, the console, the CSV). The page's
  // token comes only in the answer to the order's creation (and a requote, which needs it).
  emails: {
    kind: string;
    recipient: 'seller' | 'buyer';
    state: MailDelivery;
    attempts: number;
    deliveredAt?: string;
  }[];
  /**
   * Transactions the store could not read that may pay this order (a transaction version it does not read yet,
   * a malformed answer): the seller has been told and checks them by hand. Absent when none.
   */
  unreadablePayments?: { signature: string; at: string }[];
  /**
   * Present while the store cannot see payments arrive (its Solana RPC does not answer, or the payment watcher is
   * far behind) and the order awaits payment: the page says so in plain words (PAYMENT_CHECK_DELAYED).
   */
  paymentCheck?: 'delayed';
}

export type ShippingDetailsState = 'given' | 'awaiting' | 'missing';

/**
 * GET /api/order-pages/:token → the buyer's order page. No e-mail address, no shipping address, no order id
 * (the id lets its holder attach shipping details; the page link is shared by e-mail).
 */
export interface OrderPageView {
  /** Short order number (the first 8 characters of the id, upper case), as in the e-mails. */
  number: string;
  status: OrderStatus;
  paymentMethod: 'wallet' | 'qr';
  vendorName: string;
  items: { name: string; variantLabel?: string; quantity: number; unitCents: number; lineCents: number }[];
  totalCents: number;
  amount: string | null;
  amountBaseUnits: string | null;
  expiresAt: string;
  createdAt: string;
  receivedBaseUnits: string;
  payments: OrderPayment[];
  shippingDetails: ShippingDetailsState;
  /**
   * Shipped by the seller (seller console: Mark shipped): the latest tracking number (the seller may change it),
   * its carrier and the carrier's tracking page when it is a common one.
   */
  shipment?: { trackingNumber: string; carrier?: string; trackingUrl?: string; at: string };
  /** Refunds the seller sent back to the paying wallet (checked on chain), oldest first. */
  refunds: OrderRefund[];
  /**
   * What is owed back to the buyer by the server's own rule (src/core/refunds.ts, with the order's dust threshold
   * and whether a refund closed it): in all, refunded, still to return, and per payment (index-aligned with
   * `payments`; dust is owed nothing).
   */
  owed: {
    owedBaseUnits: string;
    refundedBaseUnits: string;
    remainingBaseUnits: string;
    perPayment: string[];
  };
  /** Underpaid: what is missing and a payment link for exactly that (same reference). */
  topUp?: { amount: string; amountBaseUnits: string; solanaPayUrl: string };
  /**
   * The details as the buyer typed them, so a typo can be caught: the name, the address on its lines and the
   * e-mail masked (src/core/buyer-details.ts). Present only while the shop keeps them readable (absent when none
   * were given, erased or unreadable: `privacy.details` says which).
   */
  details?: { fullName: string; email: string; addressLines: string[] };
  /** The buyer's control over their data. */
  privacy: OrderPagePrivacy;
  /**
   * Transactions the store could not read that may pay this order (a transaction version it does not read yet,
   * a malformed answer): the seller has been told and checks them by hand. Absent when none.
   */
  unreadablePayments?: { signature: string; at: string }[];
  /** As OrderPublic.paymentCheck: present while the store cannot see payments arrive and the order awaits one. */
  paymentCheck?: 'delayed';
}

export interface OrderPagePrivacy {
  /**
   * The buyer's details as the shop keeps them: `kept` (sealed), `none` (never given), `erased` (by the
   * retention rule or the buyer), `unreadable` (a sealed value that failed its check).
   */
  details: 'kept' | 'none' | 'erased' | 'unreadable';
  /** When they were erased. */
  erasedAt?: string;
  /** "Delete my details": `allowed` now, `cancel_first` (before shipping the vendor needs the address), `done`. */
  deletion: 'allowed' | 'cancel_first' | 'done';
  /**
   * "Cancel instead": `unpaid` (nothing paid: cancelled at once), `ask_vendor` (paid: the vendor is asked to
   * cancel and refund), `requested` (asked already), `declined` (asked; the vendor declined, the order goes
   * ahead), `none`.
   */
  cancel: 'unpaid' | 'ask_vendor' | 'requested' | 'declined' | 'none';
  /** Days the details are kept after delivery or after the order closed without shipping. */
  retentionDays: number;
}

/**
 * GET /api/order-pages/:token/data → "Download my data": everything the shop keeps about the order, with the
 * e-mails sent about it (the vendor's copies list no recipient).
 */
export interface OrderDataExport {
  exportedAt: string;
  order: Omit<OrderPageView, 'privacy' | 'topUp'> & {
    history: { status: OrderStatus; event: string; at: string }[];
    referrer: string | null;
  };
  details:
    | { state: 'kept'; shipping: Record<string, string> }
    | { state: 'none' | 'unreadable' }
    | { state: 'erased'; erasedAt: string | null };
  emails: {
    kind: string;
    recipient: 'seller' | 'buyer';
    /** The buyer's address on buyer e-mails; never the vendor's. */
    to?: string;
    state: string;
    createdAt: string;
    deliveredAt: string | null;
    /** The stored message as sent (subject and text); null once erased or unreadable. */
    message: { subject: string; text: string } | null;
    erased: boolean;
  }[];
  sellerActions: { action: string; at: string; detail: Record<string, string> }[];
  retention: { days: number; rule: string };
}

/** Every API error: 4xx/5xx with this body. `field` names the offending input where there is one. */
export interface ApiError {
  error: string;
  message: string;
  field?: string;
  issues?: { path: string; message: string }[];
}

/** GET /api/stock: units available now, one line per product (or per variant of a product with variants). */
/** POST /api/drops/:productId/line: where this buyer stands in a drop's line (docs/decisions/drops.md). */
export interface DropLineResponse {
  productId: string;
  /** When buying opens (ISO), by the server's clock. */
  startsAt: string;
  /** The server's clock now (the page counts down against it, not the device's). */
  serverTime: string;
  place:
    | { state: 'before_start'; inLine: number }
    | { state: 'waiting'; ahead: number }
    | { state: 'through'; until: string }
    /**
     * Had their turn. `batch`: on another product of the vendor's batch (`batch.name`); `hasPiece`: they hold or
     * bought their pieces of it (else their turn passed: a hold lapsed or was given back).
     */
    | { state: 'done'; batch?: { name: string; hasPiece: boolean } };
  available: number;
  held: number;
  heldUntil?: string;
}

export interface StockResponse {
  /** `held`/`heldUntil`: units held by unpaid orders and when the first comes back if unpaid (absent: none). */
  lines: { productId: string; variantId?: string; available: number; held?: number; heldUntil?: string }[];
}
