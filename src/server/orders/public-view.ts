/**
 * The public views of an order: GET /api/orders/:id (status, ledger, history and e-mail states; for the page that
 * holds the order id; nothing personal and not the page token: the id is no capability) and the buyer's order page
 * by capability token (no id; the name and address as typed and the e-mail masked, for the token's holder).
 */
import type { OrderPageView, OrderPublic, ShippingDetailsState } from '../../core/api';
import { trackingUrl } from '../../core/carriers';
import { formatBaseUnits } from '../../core/money';
import { owedOf, owedParts } from '../../core/refunds';
import { owedInputOf } from './money';
import type { OrderRow, PaymentRow } from '../store/schema';
import { topUpUrlOf } from './notifications';
import { openActionDetail, openShipping } from '../privacy/order-data';
import { addressLines } from '../../core/address-lines';
import { maskEmail } from '../../core/buyer-details';
import { privacyOf } from './privacy-state';
import { itemsOf, ledgerOf, orderNumberOf, sumOf } from './rows';
import type { Db, OrderContext } from './types';
import { unreadablePaymentsOf } from './unreadable';

/** The order's unreadable transactions for its public views, undefined when none. */
async function unreadableOf(q: Db, orderId: string) {
  const list = (await unreadablePaymentsOf(q, [orderId])).get(orderId);
  return list?.map((u) => ({ signature: u.signature, at: u.at }));
}

export function shippingDetailsOf(o: OrderRow): ShippingDetailsState {
  if (o.shipping_json !== null) return 'given';
  return o.details_notified_at ? 'missing' : 'awaiting';
}

const paymentsOf = (ledger: PaymentRow[]) =>
  ledger.map((p) => ({
    signature: p.signature,
    receivedBaseUnits: p.received_base_units,
    at: p.block_time !== null ? new Date(Number(p.block_time) * 1000).toISOString() : p.recorded_at,
    role: p.role,
  }));

/**
 * What the order owes back, by the rule the console and the refund check apply (one rule: src/core/refunds.ts,
 * read by ./money.ts with the order's dust threshold and whether a refund closed it). The page shows this; it
 * does not work it out again.
 */
async function owedForPage(q: Db, o: OrderRow): Promise<OrderPageView['owed']> {
  const input = await owedInputOf(q, o);
  const owed = owedOf(input);
  return {
    owedBaseUnits: owed.owedBaseUnits.toString(),
    refundedBaseUnits: owed.refundedBaseUnits.toString(),
    remainingBaseUnits: owed.remainingBaseUnits.toString(),
    perPayment: owedParts(input, false).map(String),
  };
}

/** The buyer's order page (GET /api/order-pages/:token). */
export async function orderPageOf(ctx: OrderContext, q: Db, o: OrderRow): Promise<OrderPageView> {
  const ledger = await ledgerOf(q, o.id);
  const received = sumOf(ledger);
  const items = itemsOf(o);
  const vendorName = ctx.deps.catalog.vendors.find((v) => v.id === o.vendor_id)?.name ?? o.vendor_id;
  const view: OrderPageView = {
    number: orderNumberOf(o.id),
    status: o.status,
    paymentMethod: o.payment_method,
    vendorName,
    items: items.map((i) => ({
      name: i.name,
      ...(i.variantLabel ? { variantLabel: i.variantLabel } : {}),
      quantity: i.quantity,
      unitCents: i.unitCents,
      lineCents: i.lineCents,
    })),
    totalCents: o.total_cents,
    amount: o.amount_base_units === null ? null : formatBaseUnits(BigInt(o.amount_base_units)),
    amountBaseUnits: o.amount_base_units,
    expiresAt: o.expires_at,
    createdAt: o.created_at,
    receivedBaseUnits: received.toString(),
    payments: paymentsOf(ledger),
    shippingDetails: shippingDetailsOf(o),
    // Amount, transaction and time only: the refunds table holds no buyer details.
    refunds: (
      await q
        .selectFrom('refunds')
        .select(['signature', 'amount_base_units', 'at'])
        .where('order_id', '=', o.id)
        .orderBy('at')
        .execute()
    ).map((r) => ({ signature: r.signature, amountBaseUnits: r.amount_base_units, at: r.at })),
    privacy: await privacyOf(ctx, q, o),
    owed: await owedForPage(q, o),
  };
  // Mark shipped, then any change of the tracking number: the latest one is the order's.
  const tracking = await q
    .selectFrom('seller_actions')
    .select(['detail_json', 'at'])
    .where('order_id', '=', o.id)
    .where('action', 'in', ['shipped', 'tracking'])
    .orderBy('at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
  if (tracking) {
    // The tracking number is sealed with the seller's other free text (erased with the buyer's details).
    const d = openActionDetail(ctx.sealer, o.id, tracking.detail_json);
    const link = d.trackingNumber ? trackingUrl(d.carrier, d.trackingNumber) : undefined;
    view.shipment = {
      trackingNumber: d.trackingNumber ?? (d.erased ? 'erased' : 'unreadable'),
      ...(d.carrier ? { carrier: d.carrier } : {}),
      ...(link ? { trackingUrl: link } : {}),
      at: tracking.at,
    };
  }
  const unreadable = await unreadableOf(q, o.id);
  if (unreadable) view.unreadablePayments = unreadable;
  // The details as typed, opened with the order's key for the holder of its page token (the e-mail masked).
  const opened = openShipping(ctx.sealer, o.id, o.shipping_json);
  if (opened.state === 'given')
    view.details = {
      fullName: opened.shipping.fullName,
      email: maskEmail(opened.shipping.email),
      addressLines: addressLines(opened.shipping),
    };
  if (o.status === 'underpaid' && o.amount_base_units !== null) {
    const missing = BigInt(o.amount_base_units) - received;
    if (missing > 0n) {
      view.topUp = {
        amount: formatBaseUnits(missing),
        amountBaseUnits: missing.toString(),
        // The same reference: the watcher records it as this order's top-up.
        solanaPayUrl: topUpUrlOf(ctx, o, missing),
      };
    }
  }
  return view;
}

export async function publicOf(ctx: OrderContext, q: Db, o: OrderRow): Promise<OrderPublic> {
  const history = await q
    .selectFrom('order_history')
    .select(['status', 'at'])
    .where('order_id', '=', o.id)
    .orderBy('seq')
    .execute();
  const mails = await q
    .selectFrom('outbox')
    .select(['kind', 'role', 'state', 'attempts', 'delivered_at', 'created_at'])
    .where('order_id', '=', o.id)
    .orderBy('created_at')
    .orderBy('role', 'desc') // seller before buyer
    .execute();
  const ledger = await ledgerOf(q, o.id);
  const pub: OrderPublic = {
    orderId: o.id,
    status: o.status,
    paymentMethod: o.payment_method,
    reference: o.reference,
    amount: o.amount_base_units === null ? null : formatBaseUnits(BigInt(o.amount_base_units)),
    amountBaseUnits: o.amount_base_units,
    totalCents: o.total_cents,
    expiresAt: o.expires_at,
    payments: paymentsOf(ledger),
    history: history.map((h) => ({ status: h.status, at: h.at })),
    shippingDetails: shippingDetailsOf(o),
    emails: mails.map((m) => ({
      kind: m.kind,
      recipient: m.role,
      state: m.state,
      attempts: Number(m.attempts),
      ...(m.delivered_at ? { deliveredAt: m.delivered_at } : {}),
    })),
  };
  const unreadable = await unreadableOf(q, o.id);
  if (unreadable) pub.unreadablePayments = unreadable;
  const shown = o.signature ?? ledger[ledger.length - 1]?.signature;
  if (shown) pub.signature = shown;
  if (ledger.length > 0) pub.receivedBaseUnits = sumOf(ledger).toString();
  else if (o.received_base_units) pub.receivedBaseUnits = o.received_base_units;
  return pub;
}
