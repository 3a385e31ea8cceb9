/**
 * The webhook events a vendor can subscribe to (issue 35; docs/webhooks.md): one JSON shape each, named by `type`
 * and `version`. Browser-safe: the console lists them.
 */
export const WEBHOOK_EVENT_TYPES = [
  'order.paid',
  'order.paid_late',
  'order.underpaid',
  'order.oversold',
  'order.shipped',
  'order.delivered',
  'order.cancelled',
  'order.refund_recorded',
  'order.exception_opened',
  'order.exception_settled',
  'stock.sold_out',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** `webhook.test`: the console's "Send test event" (sent whatever the endpoint subscribes to). */
export type WebhookAnyType = WebhookEventType | 'webhook.test';

export const WEBHOOK_EVENT_VERSION = 1;

/** What each event means, in the console's words. */
export const WEBHOOK_EVENT_LABELS: Record<WebhookEventType, string> = {
  'order.paid': 'Order paid',
  'order.paid_late': 'Order paid after its quote expired',
  'order.underpaid': 'Order paid short',
  'order.oversold': 'Order paid, but sold out meanwhile',
  'order.shipped': 'Order shipped (with tracking)',
  'order.delivered': 'Order delivered',
  'order.cancelled': 'Order cancelled',
  'order.refund_recorded': 'Refund recorded',
  'order.exception_opened': 'Exception opened',
  'order.exception_settled': 'Exception settled',
  'stock.sold_out': 'Product sold out',
};

/** An order as events carry it: what the vendor's console shows about its own order, nothing more. */
export interface WebhookOrder {
  id: string;
  number: string;
  vendorId: string;
  status: string;
  paymentMethod: 'wallet' | 'qr';
  createdAt: string;
  items: {
    productId: string;
    variantId?: string;
    variantLabel?: string;
    name: string;
    quantity: number;
    unitUSD: string;
    lineUSD: string;
  }[];
  totalUSD: string;
  /** The quoted amount in $CLAIM (6 decimals); null for an order sold without a price. */
  amountCLAIM: string | null;
  receivedCLAIM: string;
  /** The buyer's name and postal address; absent when the endpoint leaves them out or none is known. */
  shipping?: WebhookShipping;
}

export interface WebhookShipping {
  name: string;
  address1: string;
  address2?: string;
  city: string;
  region: string;
  postalCode: string;
  country: string;
}

export interface WebhookOrderData {
  order: WebhookOrder;
  payment?: { signature: string; receivedCLAIM: string };
  shipment?: { carrier?: string; trackingNumber: string; trackingUrl?: string };
  refund?: { signature: string; amountCLAIM: string; exception: string };
  exception?: { kind: string };
}

export interface WebhookStockData {
  product: { id: string; variantId?: string; name: string; vendorId: string };
  onHand: number;
}

/** The body of every delivery. */
export interface WebhookEnvelope<D = WebhookOrderData | WebhookStockData | { message: string }> {
  type: WebhookAnyType;
  version: typeof WEBHOOK_EVENT_VERSION;
  timestamp: string;
  data: D;
}

export function isWebhookEventType(s: string): s is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(s);
}
