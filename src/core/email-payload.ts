import { formatBaseUnits, formatCents, groupThousands } from './money';
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
  // Ours (the buyer's order page and its links), not the spec's:
  orderNumber?: string; // short order number, as on the order page
  orderUrl?: string; // the buyer's order page (capability link)
  transactionLinks?: string; // explorer URLs of the recorded transfers, separated by single spaces
  usdAtPayment?: string; // paid_late: the payment's USD value at its block time ('unknown' without a price then)
  trackingNumber?: string; // ours: order_shipped (seller console)
  carrier?: string; // ours: order_shipped, when the seller named one
  trackingUrl?: string; // ours: the carrier's tracking page (USPS, UPS, FedEx, DHL)
  refundCLAIM?: string; // ours: refund_sent, six decimals returned by this refund
  refundLink?: string; // ours: refund_sent, the refund transaction's explorer link
  priceAlert?: string; // ours: price_alert, what happened (both prices, the spread and the limit)
  webhookAlert?: string; // ours: webhook_failing, which endpoint was paused and what to do
  // Ours, buyer messages: who sells it and how to reach them (replies go to vendor_email).
  vendor_name?: string;
  vendor_email?: string;
  vendor_telegram?: string; // the vendor's Telegram link, when the catalogue has one
}

export type EmailRecipientRole = 'seller' | 'buyer';
/**
 * order_confirmation: the spec's seller+buyer pair. payment_received: our note that the payment landed (QR: the
 * seller, and the buyer when the details are known; an extra payment: the seller only). payment_underpaid: our
 * note to the seller that less than the order total arrived (any order). details_missing: to the seller, a QR
 * order paid without shipping details. paid_late: paid after the quote expired (seller: review before shipping;
 * buyer: the seller will confirm). order_shipped: to the buyer, the seller sent the parcel (tracking number);
 * tracking_updated: the same after the seller changed the tracking number. payment_oversold: paid in full after
 * the reservation lapsed and the stock sold out meanwhile (order `oversold`): the seller refunds the buyer, and the
 * buyer is told at once. refund_sent: to the buyer, a refund recorded (amount, transaction link).
 */
export type EmailKind =
  | 'order_confirmation'
  | 'payment_received'
  | 'payment_underpaid'
  | 'details_missing'
  | 'paid_late'
  | 'order_shipped'
  | 'tracking_updated'
  | 'payment_oversold'
  | 'refund_sent'
  // Ours: to every seller, about no order: quotes are paused because the price sources disagree (once per episode).
  | 'price_alert'
  /** To the seller: the buyer deleted their details from the order page (the message names none). */
  | 'details_erased'
  /** To the seller: the buyer asks to cancel a paid order before shipping (then to delete their details). */
  | 'cancel_requested'
  /** Ours: to a vendor, about no order: its webhook endpoint failed for days and was paused (once per pause). */
  | 'webhook_failing';

/** The payload's amounts (USD and $CLAIM): exact decimals as stored, grouped for reading by displayPayload. */
const AMOUNT_FIELDS = ['totalUSD', 'totalCLAIM', 'receivedCLAIM', 'refundCLAIM', 'usdAtPayment'] as const;

/**
 * The payload as people read it: the same fields (the spec's names, EmailJS template parameters), with thousands
 * separators in the amounts ("1,166,666.666667", "1,300.00"; six decimals kept, 'N/A' and 'unknown' as they are).
 * The stored payload keeps exact, plain decimals (notes are summed from it); the templates and the EmailJS
 * transport send this one. Links (solanaPayURL) are never touched.
 */
export function displayPayload(p: OrderEmailPayload): OrderEmailPayload {
  const out: OrderEmailPayload = { ...p };
  for (const field of AMOUNT_FIELDS) {
    const value = out[field];
    if (value !== undefined) out[field] = groupThousands(value);
  }
  return out;
}

/** The payment link's field (solanaPayURL) of an order with nothing more to pay: never a payable link. */
export const PAID_NOTHING_MORE = 'Paid — nothing more to pay';

/** Shown in place of the buyer's name and address while a QR record has no shipping details. */
export const DETAILS_NOT_GIVEN = 'not given yet';
/** Shown in place of the buyer's name and address in the seller's notes about the buyer's privacy requests. */
export const DETAILS_WITHHELD = 'see the order in the seller console';

/**
 * What a buyer message may say about a name the buyer typed (docs/decisions/price-and-mail.md, "What an
 * automated e-mail carries"): anyone may type anyone's address into a form, so a message to that address carries
 * no free text of theirs beyond a bounded name — letters (any script), combining marks, spaces, apostrophes and
 * hyphens, at most MAIL_NAME_MAX characters. No digits, dots, slashes or markup: no link, domain or phone
 * number can be spelled in it.
 */
export const MAIL_NAME_MAX = 40;

export function boundedName(name: string): string {
  const letters = name
    .normalize('NFKC')
    .replace(/[^\p{L}\p{M} '’-]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const chars = [...letters];
  if (chars.length <= MAIL_NAME_MAX) return letters;
  return chars.slice(0, MAIL_NAME_MAX).join('').trim();
}

/** A buyer message's stand-in for the shipping address (free text the sender chose): the order page shows it. */
export const ADDRESS_ON_ORDER_PAGE = 'as given, shown on your order page';

/**
 * A buyer payload as it may be sent: the names bounded, the address not quoted. Applied when the payload is
 * built and again by every transport (rows queued before this rule are sent by it too).
 */
export function buyerSafePayload(p: OrderEmailPayload): OrderEmailPayload {
  const notGiven = (v: string) => v === DETAILS_NOT_GIVEN;
  return {
    ...p,
    from_name: notGiven(p.from_name) ? p.from_name : boundedName(p.from_name),
    to_name: boundedName(p.to_name),
    shippingAddress: notGiven(p.shippingAddress) ? p.shippingAddress : ADDRESS_ON_ORDER_PAGE,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Builders (pure). Templates and transports (src/server/mail) render or post what they build.

/** What an order contributes to its e-mails. */
export interface OrderEmailFacts {
  items: { name: string; variantLabel?: string; quantity: number }[];
  totalCents: number;
  /** Quoted amount; undefined means unknown (QR pages then say 'N/A', as the spec). */
  amountBaseUnits: bigint | undefined;
  /** undefined: a QR record whose shipping details have not come (only seller notes are written then). */
  shipping: ShippingInput | undefined;
  paymentMethod: 'wallet' | 'qr';
  /** The payment link while something is owed (the missing amount's once part paid), else PAID_NOTHING_MORE. */
  solanaPayUrl: string;
  /** The recorded payments' sum, when there is one (payment notes state it). */
  receivedBaseUnits?: bigint;
  /** A transfer after the order was fully paid (overpayment): the seller's note is about this one transfer. */
  extraPayment?: { signature: string; receivedBaseUnits: bigint };
  orderNumber?: string;
  orderUrl?: string;
  /** Explorer links of the recorded transfers (oldest first). */
  transactionUrls?: string[];
  /** paid_late: USD cents of the received amount at the payment's block time (null: no price known then). */
  usdAtPaymentCents?: number | null;
  /** order_shipped, tracking_updated: the seller's tracking number (and carrier, its tracking page). */
  shipment?: { trackingNumber: string; carrier?: string; trackingUrl?: string };
  /** refund_sent: what this refund returned and its transaction's explorer link. */
  refund?: { amountBaseUnits: bigint; transactionUrl: string };
  /** The vendor selling it, named in buyer messages with a way to reach it (its seller address, Telegram). */
  vendor?: { name: string; email: string; telegramUrl?: string };
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

/** The spec's payload (section 3) for one recipient, with our order number, page link and transactions. */
export function buildOrderEmailPayload(
  facts: OrderEmailFacts,
  role: EmailRecipientRole,
  sellerEmail: string,
): OrderEmailPayload {
  const ship = facts.shipping;
  const payload: OrderEmailPayload = {
    from_name: ship?.fullName ?? DETAILS_NOT_GIVEN,
    email: ship?.email ?? DETAILS_NOT_GIVEN,
    shippingAddress: ship ? joinShippingAddress(ship) : DETAILS_NOT_GIVEN,
    product: productLine(facts.items),
    totalUSD: formatCents(facts.totalCents),
    totalCLAIM: facts.amountBaseUnits === undefined ? 'N/A' : formatBaseUnits(facts.amountBaseUnits),
    to_name: role === 'seller' ? 'Seller' : (ship?.fullName ?? ''),
    // The spec adds quantity on QR pages; wallet orders name it too (Garlic ×2 must not read only "$100.00").
    quantity: String(facts.items.reduce((n, i) => n + i.quantity, 0)),
  };
  if (role === 'seller') payload.seller_email = sellerEmail;
  if (role === 'buyer' && facts.vendor) {
    payload.vendor_name = facts.vendor.name;
    payload.vendor_email = facts.vendor.email;
    if (facts.vendor.telegramUrl) payload.vendor_telegram = facts.vendor.telegramUrl;
  }
  if (facts.paymentMethod === 'qr') payload.solanaPayURL = facts.solanaPayUrl;
  if (facts.orderNumber) payload.orderNumber = facts.orderNumber;
  // The order page link is the buyer's capability (their data, "Cancel instead", "Delete my details"): never in
  // the seller's messages, which name the order by its number.
  if (facts.orderUrl && role === 'buyer') payload.orderUrl = facts.orderUrl;
  if (facts.transactionUrls && facts.transactionUrls.length > 0)
    payload.transactionLinks = facts.transactionUrls.join(' ');
  return role === 'buyer' ? buyerSafePayload(payload) : payload;
}

/**
 * The messages an order event causes, seller first: order_confirmation → seller then buyer; payment_received →
 * seller, then the buyer when the details are known (an extra payment's note: the seller only, with that
 * transfer's amount and signature); paid_late → seller (with the USD value at payment time), then the buyer;
 * payment_underpaid → seller, then the buyer whose details are known (with the link for the missing amount);
 * details_missing → seller only, with the amount received; payment_oversold → the seller and the buyer (sold to
 * someone else, refund on its way); order_shipped and tracking_updated → the buyer only, with the tracking number
 * (carrier, tracking page); refund_sent → the buyer only, with the amount and the transaction link. No buyer
 * message without the buyer's address.
 */
export function buildOrderEmails(facts: OrderEmailFacts, kind: EmailKind, sellerEmail: string): OrderEmail[] {
  const seller: OrderEmail = {
    role: 'seller',
    to: sellerEmail,
    payload: buildOrderEmailPayload(facts, 'seller', sellerEmail),
  };
  const buyer: OrderEmail | undefined = facts.shipping
    ? {
        role: 'buyer',
        to: facts.shipping.email,
        payload: buildOrderEmailPayload(facts, 'buyer', sellerEmail),
      }
    : undefined;
  const received = (e: OrderEmail) => {
    if (facts.receivedBaseUnits !== undefined)
      e.payload.receivedCLAIM = formatBaseUnits(facts.receivedBaseUnits);
  };
  switch (kind) {
    case 'order_confirmation':
      return buyer ? [seller, buyer] : [seller];
    case 'payment_received':
      if (facts.extraPayment) {
        seller.payload.receivedCLAIM = formatBaseUnits(facts.extraPayment.receivedBaseUnits);
        seller.payload.paymentSignature = facts.extraPayment.signature;
        return [seller];
      }
      received(seller);
      if (buyer) received(buyer);
      return buyer ? [seller, buyer] : [seller];
    case 'paid_late': {
      received(seller);
      seller.payload.usdAtPayment =
        facts.usdAtPaymentCents === undefined || facts.usdAtPaymentCents === null
          ? 'unknown'
          : formatCents(facts.usdAtPaymentCents);
      if (buyer) received(buyer);
      return buyer ? [seller, buyer] : [seller];
    }
    case 'payment_underpaid':
      // The buyer too (when the details are known): what arrived, and the link to pay the missing amount.
      received(seller);
      if (buyer) received(buyer);
      return buyer ? [seller, buyer] : [seller];
    case 'details_missing':
      received(seller);
      return [seller];
    case 'payment_oversold':
      // The seller refunds; the buyer is told at once that the piece went to someone else.
      received(seller);
      if (buyer) received(buyer);
      return buyer ? [seller, buyer] : [seller];
    case 'order_shipped':
    case 'tracking_updated':
      if (!buyer || !facts.shipment) return [];
      buyer.payload.trackingNumber = facts.shipment.trackingNumber;
      if (facts.shipment.carrier) buyer.payload.carrier = facts.shipment.carrier;
      if (facts.shipment.trackingUrl) buyer.payload.trackingUrl = facts.shipment.trackingUrl;
      return [buyer];
    case 'refund_sent':
      if (!buyer || !facts.refund) return [];
      buyer.payload.refundCLAIM = formatBaseUnits(facts.refund.amountBaseUnits);
      buyer.payload.refundLink = facts.refund.transactionUrl;
      return [buyer];
    case 'details_erased':
    case 'cancel_requested':
      return []; // the buyer's requests, naming nobody: buildBuyerRequestEmail
    case 'price_alert':
      return []; // about no order: buildPriceAlertEmail
    case 'webhook_failing':
      return []; // about no order: buildWebhookAlertEmail
  }
}

/** A vendor alert about no order: its webhook endpoint failed for days and was paused. */
export function buildWebhookAlertEmail(sellerEmail: string, text: string): OrderEmail {
  return {
    role: 'seller',
    to: sellerEmail,
    payload: {
      from_name: '$CLAIM Store',
      email: '',
      shippingAddress: '',
      product: 'Webhooks',
      totalUSD: '',
      totalCLAIM: '',
      to_name: 'Seller',
      seller_email: sellerEmail,
      webhookAlert: text,
    },
  };
}

/** A seller alert about no order: quotes are paused because the price sources disagree. */
export function buildPriceAlertEmail(sellerEmail: string, text: string): OrderEmail {
  return {
    role: 'seller',
    to: sellerEmail,
    payload: {
      from_name: '$CLAIM Store',
      email: '',
      shippingAddress: '',
      product: '$CLAIM price',
      totalUSD: '',
      totalCLAIM: '',
      to_name: 'Seller',
      seller_email: sellerEmail,
      priceAlert: text,
    },
  };
}

/**
 * The seller's note about a buyer's request from the order page: "Delete my details" was done
 * (details_erased), or "cancel instead" of a paid order before shipping (cancel_requested). Neither carries the
 * buyer's name, e-mail or address: the order number and page identify the order.
 */
export function buildBuyerRequestEmail(
  facts: Omit<OrderEmailFacts, 'shipping'>,
  kind: 'details_erased' | 'cancel_requested',
  sellerEmail: string,
): OrderEmail {
  const payload = buildOrderEmailPayload({ ...facts, shipping: undefined }, 'seller', sellerEmail);
  const withheld = kind === 'details_erased' ? 'deleted at the buyer’s request' : DETAILS_WITHHELD;
  payload.from_name = withheld;
  payload.email = withheld;
  payload.shippingAddress = withheld;
  return { role: 'seller', to: sellerEmail, payload };
}
