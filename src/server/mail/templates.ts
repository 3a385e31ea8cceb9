import { displayPayload, type OrderEmailPayload } from '../../core/email-payload';
import type { OutgoingEmail } from './types';

/**
 * Our own subject, plain-text and HTML bodies for the `file` and `smtp` transports (EmailJS renders its own
 * templates from the same payload). Every value is HTML-escaped in the HTML body; every value that reaches a
 * header (subject, names) is stripped of CR/LF and other control characters.
 */

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}

/** One header-safe line: control characters (CR, LF, NUL, U+2028/9…) become spaces, runs collapse, length capped. */
export function headerSafe(value: string, max = 200): string {
  const flat = value
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Body text keeps its line breaks out: each field value is rendered on one line. */
function oneLine(value: string): string {
  return headerSafe(value, 2000);
}

export function subjectFor(message: Pick<OutgoingEmail, 'kind' | 'role' | 'payload'>): string {
  const product = headerSafe(message.payload.product, 150);
  if (message.kind === 'payment_received') {
    if (message.payload.paymentSignature !== undefined)
      return headerSafe(`Extra payment received (order already paid): ${product}`);
    return headerSafe(
      message.role === 'seller'
        ? `Payment received: ${product}`
        : `Payment received for your $CLAIM order: ${product}`,
    );
  }
  if (message.kind === 'payment_underpaid')
    return headerSafe(
      message.role === 'seller'
        ? `Payment short of the total: ${product}`
        : `Your payment is short of the total: ${product}`,
    );
  if (message.kind === 'details_missing') return headerSafe(`Paid, shipping details missing: ${product}`);
  if (message.kind === 'paid_late') {
    return headerSafe(
      message.role === 'seller'
        ? `Paid after the quote expired — review before shipping: ${product}`
        : `Your payment arrived after the payment window: ${product}`,
    );
  }
  if (message.kind === 'order_shipped') return headerSafe(`Your $CLAIM order has shipped: ${product}`);
  if (message.kind === 'tracking_updated')
    return headerSafe(`New tracking number for your order: ${product}`);
  if (message.kind === 'refund_sent') return headerSafe(`Refund sent for your $CLAIM order: ${product}`);
  if (message.kind === 'payment_oversold')
    return headerSafe(
      message.role === 'seller'
        ? `Sold out before payment, refund needed: ${product}`
        : `Sold to someone else, your refund is on its way: ${product}`,
    );
  if (message.kind === 'price_alert')
    return headerSafe('$CLAIM price alert: quotes paused, the price sources disagree');
  if (message.kind === 'webhook_failing') return headerSafe('Your webhook endpoint was paused');
  if (message.kind === 'details_erased') return headerSafe(`Buyer deleted their details: ${product}`);
  if (message.kind === 'cancel_requested') return headerSafe(`Buyer asks to cancel: ${product}`);
  return headerSafe(message.role === 'seller' ? `New order: ${product}` : `Your $CLAIM order: ${product}`);
}

function intro(message: OutgoingEmail): string {
  const p = displayPayload(message.payload);
  const qr = p.solanaPayURL !== undefined;
  if (message.kind === 'payment_received' && p.paymentSignature !== undefined) {
    return 'This order was already paid in full. Another payment to its reference has arrived on-chain: it is an extra payment (overpayment). Please refund or credit it to the buyer.';
  }
  if (message.kind === 'payment_received') {
    return message.role === 'seller'
      ? `The payment for this order has been received on-chain.`
      : `We have received your payment on-chain. Thank you!`;
  }
  if (message.kind === 'price_alert') return p.priceAlert ?? 'The $CLAIM price sources disagree.';
  if (message.kind === 'webhook_failing') return p.webhookAlert ?? 'Your webhook endpoint was paused.';
  if (message.kind === 'order_shipped') {
    return 'Your order is on its way. You can follow the parcel with the tracking number below.';
  }
  if (message.kind === 'tracking_updated') {
    return 'The seller has changed the tracking number of your parcel. You can follow it with the number below.';
  }
  if (message.kind === 'refund_sent') {
    return 'The seller has sent you a refund on-chain. The amount and the transaction are below.';
  }
  if (message.kind === 'payment_oversold' && message.role === 'buyer') {
    return 'Your payment arrived in full, but the piece was sold to someone else a moment earlier. Your refund is on its way: you will get another message when it is sent.';
  }
  if (message.kind === 'payment_oversold') {
    return 'This order was paid in full after its reservation had lapsed, and the item sold out meanwhile (order status: oversold). The payment is recorded. Please refund the buyer, or restock and ship if you can.';
  }
  if (message.kind === 'details_erased') {
    return 'The buyer of this order deleted their details (name, e-mail, address) from their order page. The shop no longer keeps them; the order, its amounts and payments stay for your books.';
  }
  if (message.kind === 'cancel_requested') {
    return 'The buyer asks to cancel this order before it ships, and to have their details deleted afterwards. In the seller console, open the order and choose "Cancel order and refund" (or record why not, for example if it has already shipped), or contact the buyer from the order in the console.';
  }
  if (message.kind === 'payment_underpaid') {
    return message.role === 'seller'
      ? 'A payment for this order arrived on-chain, but it is less than the order total. Please contact the buyer to settle the difference.'
      : 'Your payment arrived on-chain, but it is less than the order total. Pay the missing amount with the Solana Pay link below (it is for this same order), or reply to the seller.';
  }
  if (message.kind === 'details_missing') {
    return 'This QR order has been paid on-chain, but the buyer has not sent the shipping details. Hold it until they do (their order page asks for them); the amount and transaction are below.';
  }
  if (message.kind === 'paid_late') {
    return message.role === 'seller'
      ? `This order was paid after its quote expired, at the old token amount. Review before shipping: its USD value at the time of payment was $${p.usdAtPayment ?? 'unknown'} against the order total of $${p.totalUSD}.`
      : 'Your payment arrived after the payment window had closed. It is recorded; the seller will review it and confirm your order.';
  }
  // Written when the order is recorded: it says what is known then, never that a payment was not seen (it may
  // have landed a moment ago): a 'Payment received' message follows when the watcher records it.
  const paid = message.paymentSeen
    ? 'Payment has been received on-chain.'
    : qr
      ? 'Once the payment is recorded on-chain, a "Payment received" message follows.'
      : 'The payment is being confirmed on-chain.';
  return message.role === 'seller'
    ? `A new order has been placed. ${paid}`
    : `Thank you for your order. ${paid}`;
}

function fields(p: OrderEmailPayload): [string, string][] {
  const rows: [string, string][] = [
    ['Product', p.product],
    ['Total (USD)', `$${p.totalUSD}`],
    ['Total ($CLAIM)', p.totalCLAIM],
  ];
  if (p.quantity !== undefined) rows.splice(1, 0, ['Quantity', p.quantity]);
  rows.push(['Name', p.from_name], ['E-mail', p.email], ['Shipping address', p.shippingAddress]);
  if (p.solanaPayURL !== undefined) rows.push(['Solana Pay link', p.solanaPayURL]);
  if (p.receivedCLAIM !== undefined) {
    const label = p.paymentSignature !== undefined ? 'Extra payment ($CLAIM)' : 'Received ($CLAIM)';
    rows.splice(rows.findIndex(([k]) => k === 'Total ($CLAIM)') + 1, 0, [label, p.receivedCLAIM]);
  }
  if (p.paymentSignature !== undefined) rows.push(['Transaction', p.paymentSignature]);
  if (p.usdAtPayment !== undefined) rows.push(['USD value at payment', `$${p.usdAtPayment}`]);
  if (p.transactionLinks !== undefined)
    for (const url of p.transactionLinks.split(' ')) rows.push(['Transaction link', url]);
  if (p.orderNumber !== undefined) rows.push(['Order number', p.orderNumber]);
  if (p.orderUrl !== undefined) rows.push(['Order page', p.orderUrl]);
  if (p.trackingNumber !== undefined) {
    rows.unshift(['Tracking number', p.trackingNumber]);
    if (p.carrier !== undefined) rows.splice(1, 0, ['Carrier', p.carrier]);
    if (p.trackingUrl !== undefined)
      rows.splice(p.carrier !== undefined ? 2 : 1, 0, ['Tracking page', p.trackingUrl]);
  }
  if (p.refundCLAIM !== undefined) {
    rows.unshift(['Refund ($CLAIM)', p.refundCLAIM]);
    if (p.refundLink !== undefined) rows.splice(1, 0, ['Refund transaction', p.refundLink]);
  }
  return rows;
}

/** The words a long link is shown as in HTML (the plain-text part keeps the URL itself). */
function linkWords(label: string, index: number, count: number): string {
  if (label === 'Solana Pay link') return 'Pay with a Solana wallet';
  if (label === 'Order page') return 'Your order page';
  if (label === 'Tracking page') return 'Follow the parcel';
  if (label === 'Refund transaction') return 'View the refund on the explorer';
  return count > 1 ? `View transaction ${index} on the explorer` : 'View the transaction on the explorer';
}

/** Buyer messages: who sells it and how to reach them (replies go to the vendor; Telegram when listed). */
function vendorContact(p: OrderEmailPayload): { text: string; html: string } | undefined {
  if (p.vendor_name === undefined) return undefined;
  const name = oneLine(p.vendor_name);
  const email = p.vendor_email !== undefined ? oneLine(p.vendor_email) : undefined;
  const telegram =
    p.vendor_telegram !== undefined && /^https:\/\/t\.me\/[A-Za-z0-9_]{5,32}$/.test(p.vendor_telegram)
      ? p.vendor_telegram
      : undefined;
  const reach = email ? `reply to this e-mail to reach ${name} (${email})` : undefined;
  const text = [
    `Sold by ${name}.`,
    ...(reach || telegram ? ['Questions about your order?'] : []),
    ...(reach ? [`${reach[0]!.toUpperCase()}${reach.slice(1)}${telegram ? ',' : '.'}`] : []),
    ...(telegram ? [`${reach ? 'or message' : 'Message'} them on Telegram: ${telegram}.`] : []),
  ].join(' ');
  const htmlParts = [`Sold by <strong>${escapeHtml(name)}</strong>.`];
  if (reach || telegram) htmlParts.push('Questions about your order?');
  if (email)
    htmlParts.push(
      `Reply to this e-mail to reach ${escapeHtml(name)} (<a href="mailto:${escapeHtml(email)}">${escapeHtml(email)}</a>)${telegram ? ',' : '.'}`,
    );
  if (telegram)
    htmlParts.push(
      `${email ? 'or' : ''} <a href="${escapeHtml(telegram)}">message them on Telegram</a>.`.trim(),
    );
  return { text, html: htmlParts.join(' ') };
}

/** A link as a button in HTML mail (inline styles: mail clients drop style sheets): 12 + 20 + 12 = 44 px tall. */
const BUTTON =
  'display:inline-block;padding:12px 18px;line-height:20px;min-height:20px;background:#0b6e55;color:#ffffff;border-radius:22px;text-decoration:none;font-weight:600';

/**
 * The HTML reads on a phone: a viewport, no fixed widths (the column is at most 600 px and shrinks with the
 * screen), long values (signatures, addresses, tracking numbers) wrap anywhere, and long links are words.
 */
export function renderEmail(message: OutgoingEmail): RenderedEmail {
  // Amounts with thousands separators (the stored payload keeps them plain).
  const p = displayPayload(message.payload);
  const subject = subjectFor(message);
  const name = oneLine(p.to_name);
  const greeting = name ? `Hello ${name},` : 'Hello,';
  const lead = intro(message);
  // A seller alert about no order has no order fields.
  const rows = (message.kind === 'price_alert' || message.kind === 'webhook_failing' ? [] : fields(p)).map(
    ([k, v]) => [k, oneLine(v)] as const,
  );
  // One form of the order's name: the short order number (a row) when the message has one, else the id.
  const footerId = message.orderId && p.orderNumber === undefined ? message.orderId : undefined;
  const order = footerId ? [`Order: ${oneLine(footerId)}`, ''] : [];
  const vendor = message.role === 'buyer' ? vendorContact(p) : undefined;

  const text = [
    greeting,
    '',
    lead,
    '',
    ...rows.map(([k, v]) => `${k}: ${v}`),
    '',
    ...(vendor ? [vendor.text, ''] : []),
    ...order,
    '— $CLAIM Store',
    '',
  ].join('\n');

  const txCount = rows.filter(([k]) => k === 'Transaction link').length;
  let txIndex = 0;
  // Long values (links, signatures) break anywhere; a label breaks only between its words ('Transacti on link' on
  // a phone otherwise).
  const wrap = 'overflow-wrap:anywhere;word-break:break-word';
  const cell = (k: string, v: string): string => {
    const isPayLink = k === 'Solana Pay link' && /^solana:[^\s"'<>]+$/.test(v);
    const isWebLink =
      (k === 'Transaction link' ||
        k === 'Order page' ||
        k === 'Refund transaction' ||
        k === 'Tracking page') &&
      /^https?:\/\/[^\s"'<>]+$/.test(v);
    if (k === 'Transaction link') txIndex += 1;
    // A next step (the order page, a transaction, the parcel, a payment) is a button: a 44 px tap target.
    const value =
      isPayLink || isWebLink
        ? `<a href="${escapeHtml(v)}" style="${BUTTON}">${escapeHtml(linkWords(k, txIndex, txCount))}</a>`
        : escapeHtml(v);
    return `<tr><th align="left" valign="top" style="padding:4px 12px 4px 0;font-weight:600;overflow-wrap:normal;word-break:normal">${escapeHtml(k)}</th><td style="padding:4px 0;${wrap}">${value}</td></tr>`;
  };
  const html = [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(subject)}</title></head>`,
    `<body style="margin:0;padding:16px;font-family:system-ui,sans-serif;color:#111;line-height:1.45;${wrap}">`,
    '<div style="max-width:600px;margin:0 auto">',
    `<p>${escapeHtml(greeting)}</p>`,
    `<p>${escapeHtml(lead)}</p>`,
    `<table role="presentation" style="width:100%;border-collapse:collapse">${rows.map(([k, v]) => cell(k, v)).join('')}</table>`,
    ...(vendor ? [`<p>${vendor.html}</p>`] : []),
    ...(footerId ? [`<p style="color:#555">Order: ${escapeHtml(oneLine(footerId))}</p>`] : []),
    '<p>— $CLAIM Store</p>',
    '</div>',
    '</body></html>',
  ].join('\n');

  return { subject, text, html };
}
