/**
 * The seller console's JSON contract (`/api/seller/*`). Types only, shared by the browser and the server.
 * Money as in api.ts: integer cents, token base units as integer strings.
 */
import type { MailDelivery, OrderStatus, PaymentRole } from './api';
import type { SiwsRequest } from './siws';

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

/** Something about an order the seller has to look at and resolve. */
export type SellerException =
  'underpaid' | 'paid_late' | 'extra_payment' | 'no_shipping_details' | 'oversold';
export const SELLER_EXCEPTIONS: readonly SellerException[] = [
  'underpaid',
  'paid_late',
  'extra_payment',
  'no_shipping_details',
  'oversold',
];

/** The list filter: an order status, or every order with an unresolved exception. */
export type SellerStatusFilter = OrderStatus | 'exceptions';

export interface SellerOrderSummary {
  orderId: string;
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
}

/** GET /api/seller/orders → 200 (newest first) */
export interface SellerOrderList {
  orders: SellerOrderSummary[];
  total: number;
  page: number;
  pageSize: number;
}

export interface SellerOrderDetail extends SellerOrderSummary {
  reference: string;
  recipient: string;
  expiresAt: string;
  items: { name: string; variantLabel?: string; quantity: number; unitCents: number; lineCents: number }[];
  /** The buyer's shipping details as given (src/core/order.ts ShippingInput). */
  shipping: Record<string, string>;
  shippingAddress: string;
  payments: {
    signature: string;
    receivedBaseUnits: string;
    role: PaymentRole;
    at: string;
    confirmation: 'confirmed' | 'finalized';
  }[];
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
  shipment?: { trackingNumber: string; carrier?: string; at: string };
}

/** POST /api/seller/orders/:id/ship */
export interface SellerShipBody {
  trackingNumber: string;
  carrier?: string;
}

/** POST /api/seller/orders/:id/resolve: the action taken about one exception. */
export interface SellerResolveBody {
  exception: SellerException;
  note: string;
}
