import { formatBaseUnits, formatCents } from './money';
import { joinShippingAddress, type ShippingInput } from './order';

/**
 * The order e-mail payload of the specification, section 3. Field names are the spec's (they are the EmailJS
 * template parameters of the original). Builders live here (pure); transports render or post them.
 */
export interface OrderEmailPayload {
  from_name: string; // buyer full name
  email: string; // buyer e-mail
  shippingAddress: string; // joined by ', '
  product: string; // product name (with variant label where there is one)
  totalUSD: string; // e.g. "325.00"
  totalCLAIM: string; // six decimals, or 'N/A' on QR pages when the price is unknown
  to_name: string; // 'Seller' or the buyer's name
  seller_email?: string; // seller message only
  quantity?: string; // QR orders
  solanaPayURL?: string; // QR orders
  receivedCLAIM?: string; // payment notes (ours, not the spec's): six decimals actually received
  paymentSignature?: string; // ours: the transaction an extra-payment note (payment_received after full payment) is about
}

export type EmailRecipientRole = 'seller' | 'buyer';
/**
 * order_confirmation: the spec's seller+buyer pair. payment_received: our extra note to the seller (QR).
 * payment_underpaid: our note to the seller that less than the order total arrived (any order).
 */
export type EmailKind = 'order_confirmation' | 'payment_received' | 'payment_underpaid';

// ---------------------------------------------------------------------------------------------------------
// Builders (pure). Added by the orders/outbox engineer (issue 3); (b) owns templates and transports.

/** What an order contributes to its e-mails. */
export interface OrderEmailFacts {
  items: { name: string; variantLabel?: string; quantity: number }[];
  totalCents: number;
  /** Quoted amount; undefined means unknown (QR pages then say 'N/A', as the spec). */
  amountBaseUnits: bigint | undefined;
  shipping: ShippingInput;
  paymentMethod: 'wallet' | 'qr';
  solanaPayUrl: string;
  /** The recorded payments' sum, when there is one (payment notes state it). */
  receivedBaseUnits?: bigint;
  /** A transfer after the order was fully paid (overpayment): the seller's note is about this one transfer. */
  extraPayment?: { signature: string; receivedBaseUnits: bigint };
}

export interface OrderEmail {
  role: EmailRecipientRole;
  to: string;
  payload: OrderEmailPayload;
}

/** Product name(s): "Name (variant)", "2 × A, 1 × B" when several items. */
export function productLine(items: OrderEmailFacts['items']): string {
  const name = (i: OrderEmailFacts['items'][number]) =>
    i.variantLabel ? `${i.name} (${i.variantLabel})` : i.name;
  const only = items.length === 1 ? items[0] : undefined;
  if (only) return name(only);
  return items.map((i) => `${i.quantity} × ${name(i)}`).join(', ');
}

/** The spec's payload (section 3) for one recipient. */
export function buildOrderEmailPayload(
  facts: OrderEmailFacts,
  role: EmailRecipientRole,
  sellerEmail: string,
): OrderEmailPayload {
  const payload: OrderEmailPayload = {
    from_name: facts.shipping.fullName,
    email: facts.shipping.email,
    shippingAddress: joinShippingAddress(facts.shipping),
    product: productLine(facts.items),
    totalUSD: formatCents(facts.totalCents),
    totalCLAIM: facts.amountBaseUnits === undefined ? 'N/A' : formatBaseUnits(facts.amountBaseUnits),
    to_name: role === 'seller' ? 'Seller' : facts.shipping.fullName,
  };
  if (role === 'seller') payload.seller_email = sellerEmail;
  if (facts.paymentMethod === 'qr') {
    payload.quantity = String(facts.items.reduce((n, i) => n + i.quantity, 0));
    payload.solanaPayURL = facts.solanaPayUrl;
  }
  return payload;
}

/**
 * The messages an order event causes, seller first: order_confirmation → seller then buyer;
 * payment_received and payment_underpaid → seller only, with the amount received (an extra payment's note: that
 * transfer's amount and signature).
 */
export function buildOrderEmails(facts: OrderEmailFacts, kind: EmailKind, sellerEmail: string): OrderEmail[] {
  const seller: OrderEmail = {
    role: 'seller',
    to: sellerEmail,
    payload: buildOrderEmailPayload(facts, 'seller', sellerEmail),
  };
  if (kind !== 'order_confirmation') {
    if (kind === 'payment_received' && facts.extraPayment) {
      seller.payload.receivedCLAIM = formatBaseUnits(facts.extraPayment.receivedBaseUnits);
      seller.payload.paymentSignature = facts.extraPayment.signature;
    } else if (facts.receivedBaseUnits !== undefined)
      seller.payload.receivedCLAIM = formatBaseUnits(facts.receivedBaseUnits);
    return [seller];
  }
  return [
    seller,
    { role: 'buyer', to: facts.shipping.email, payload: buildOrderEmailPayload(facts, 'buyer', sellerEmail) },
  ];
}
