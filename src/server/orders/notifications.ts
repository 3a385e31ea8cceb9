/**
 * The e-mails an order change causes: written to the outbox in the caller's transaction (seller first). Every
 * message names the quantity and variant, the recorded transactions (explorer links for the store's cluster)
 * and the buyer's order page. Notes about one transfer (an extra payment, another short transfer) are skipped
 * for dust and batched: at most one such e-mail per order per `notes.noteIntervalMs` (1 h); a note written
 * while another is still waiting for its slot is merged into it.
 */
import { randomUUID } from 'node:crypto';
import { capDecision, WITHHELD_REASON } from '../mail/cap';
import { queueMail, replacePendingBody } from '../mail/queue';
import { explorerTxUrl } from '../../core/explorer';
import {
  buildOrderEmails,
  type EmailKind,
  type OrderEmailFacts,
  type OrderEmailPayload,
  PAID_NOTHING_MORE,
} from '../../core/email-payload';
import { emailsFor, type OrderChange } from '../../core/order-emails';
import { formatBaseUnits, parseBaseUnitsText, tokenBaseUnitsForCents } from '../../core/money';
import { openMail, sealError, sealMail } from '../privacy/order-data';
import { sellerEmailFor } from '../settings';
import type { OrderRow, PaymentRow } from '../store/schema';
import { FULLY_PAID } from '../../core/order-status';
import { encodeTransferRequestUrl } from '../../core/solana-pay';
import { itemsOf, ledgerOf, orderNumberOf, orderUrlOf, shippingOf, sumOf } from './rows';
import type { Db, OrderContext } from './types';

export function factsOf(
  ctx: OrderContext,
  o: OrderRow,
  ledger: PaymentRow[],
  extra: Pick<OrderEmailFacts, 'extraPayment' | 'usdAtPaymentCents' | 'shipment' | 'refund'> = {},
): OrderEmailFacts {
  const items = itemsOf(o);
  const cluster = { cluster: ctx.deps.settings.solana.cluster, rpcUrl: ctx.deps.settings.solana.rpcUrl };
  const vendor = ctx.deps.catalog.vendors.find((v) => v.id === o.vendor_id);
  return {
    items: items.map((i) => ({
      name: i.name,
      quantity: i.quantity,
      ...(i.variantLabel ? { variantLabel: i.variantLabel } : {}),
    })),
    totalCents: o.total_cents,
    // Unpriced QR order: 'N/A' for both (spec §3 keeps the field list).
    amountBaseUnits: o.amount_base_units === null ? undefined : BigInt(o.amount_base_units),
    shipping: shippingOf(ctx.sealer, o),
    paymentMethod: o.payment_method,
    solanaPayUrl: payLinkOf(ctx, o, ledger),
    ...(o.received_base_units !== null ? { receivedBaseUnits: BigInt(o.received_base_units) } : {}),
    orderNumber: orderNumberOf(o.id),
    ...(o.public_token ? { orderUrl: orderUrlOf(ctx, o) } : {}),
    transactionUrls: ledger.map((p) => explorerTxUrl(p.signature, cluster)),
    ...(vendor
      ? {
          vendor: {
            name: vendor.name,
            email: sellerEmailFor(ctx.deps.settings.mail, o.payout_group),
            ...(vendor.telegram ? { telegramUrl: vendor.telegram } : {}),
          },
        }
      : {}),
    ...extra,
  };
}

/**
 * The payment link an e-mail may carry: only while something is owed. Nothing paid yet: the order's link; part
 * paid: a link for the missing amount (same reference: recorded as this order's top-up); fully paid (or more):
 * no link, PAID_NOTHING_MORE; no price: 'N/A' (spec).
 */
export function payLinkOf(ctx: OrderContext, o: OrderRow, ledger: PaymentRow[]): string {
  if (o.amount_base_units === null || o.solana_pay_url === null) return 'N/A';
  const missing = BigInt(o.amount_base_units) - sumOf(ledger);
  if (missing <= 0n || FULLY_PAID.has(o.status) || NOTHING_TO_PAY.has(o.status)) return PAID_NOTHING_MORE;
  if (ledger.length === 0) return o.solana_pay_url;
  return topUpUrlOf(ctx, o, missing);
}

/** A Solana Pay link for the missing amount of an order, with its reference (the watcher records a top-up). */
export function topUpUrlOf(ctx: OrderContext, o: OrderRow, missing: bigint): string {
  const vendorName = ctx.deps.catalog.vendors.find((v) => v.id === o.vendor_id)?.name ?? o.vendor_id;
  return encodeTransferRequestUrl({
    recipient: o.recipient,
    amountBaseUnits: missing,
    splToken: o.mint,
    reference: o.reference,
    label: vendorName,
    message: `Top-up for order ${orderNumberOf(o.id)}`,
  });
}

/** Statuses after which nothing more is to be paid (shipped, delivered; oversold: the seller refunds). */
const NOTHING_TO_PAY = new Set<OrderRow['status']>(['shipped', 'delivered', 'oversold']);

/**
 * Below this a transfer is dust: the smaller of `dustBps` of the order amount and `dustMaxCents` at the order's
 * price. 0 for an unpriced order (nothing is dust).
 */
export function dustThreshold(ctx: OrderContext, o: OrderRow): bigint {
  if (o.amount_base_units === null || o.price_usd === null) return 0n;
  const { dustBps, dustMaxCents } = ctx.deps.settings.notes;
  const share = (BigInt(o.amount_base_units) * BigInt(dustBps)) / 10_000n;
  let cap: bigint;
  try {
    cap = tokenBaseUnitsForCents(dustMaxCents, o.price_usd);
  } catch {
    cap = share;
  }
  return share < cap ? share : cap;
}

export interface NoteAbout {
  signature: string;
  receivedBaseUnits: bigint;
  /** An overpayment after the order was fully paid (the note names that transfer). */
  extra: boolean;
}

/**
 * Writes the messages of `kind` for the order (seller first; the buyer row waits for the seller row). With
 * `payment`, the message is a note about that one ledger transfer: none for dust, and batched (see above).
 */
export async function enqueue(
  ctx: OrderContext,
  q: Db,
  o: OrderRow,
  kind: EmailKind,
  paymentSeen: boolean,
  at: string,
  payment?: NoteAbout,
  extraFacts: Pick<OrderEmailFacts, 'usdAtPaymentCents' | 'shipment' | 'refund'> = {},
  /** Told apart from earlier messages of the same kind (a refund's signature, a tracking change's id). */
  distinctKey = '',
): Promise<number> {
  if (payment && payment.receivedBaseUnits < dustThreshold(ctx, o)) return 0;
  const ledger = await ledgerOf(q, o.id);
  const facts = factsOf(ctx, o, ledger, {
    ...extraFacts,
    ...(payment?.extra
      ? { extraPayment: { signature: payment.signature, receivedBaseUnits: payment.receivedBaseUnits } }
      : {}),
  });
  let notBefore = at;
  if (payment) {
    // Batching: a note of the same kind still waiting for its slot takes this transfer too.
    const waiting = await q
      .selectFrom('outbox')
      .selectAll()
      .where('order_id', '=', o.id)
      .where('kind', '=', kind)
      .where('payment_signature', '!=', '')
      .where('state', '=', 'pending')
      .where('attempts', '=', 0)
      .where('locked_until', 'is', null)
      .where('next_attempt_at', '>', at)
      .executeTakeFirst();
    if (waiting) {
      const merged = buildOrderEmails(
        facts,
        kind,
        sellerEmailFor(ctx.deps.settings.mail, o.payout_group),
      ).find((m) => m.role === waiting.role);
      if (!merged) return 0;
      const opened = openMail(ctx.sealer, o.id, waiting);
      if (opened.state !== 'readable') return 0;
      const before = opened.payload;
      const payload: OrderEmailPayload = { ...merged.payload };
      if (payment.extra) {
        const sum = parseBaseUnitsText(before.receivedCLAIM ?? '0.000000') + payment.receivedBaseUnits;
        payload.receivedCLAIM = formatBaseUnits(sum);
        payload.paymentSignature = [before.paymentSignature, payment.signature].filter(Boolean).join(' ');
      }
      await replacePendingBody(
        q,
        waiting.id,
        sealMail(ctx.sealer, o.id, { to: opened.to, payload }).payload_json,
      );
      return 0;
    }
    // At most one note per interval: the next one waits for the slot after the last one.
    const last = await q
      .selectFrom('outbox')
      .select((eb) => eb.fn.max('next_attempt_at').as('last'))
      .where('order_id', '=', o.id)
      .where('payment_signature', '!=', '')
      .executeTakeFirst();
    if (last?.last) {
      const slot = new Date(
        Date.parse(String(last.last)) + ctx.deps.settings.notes.noteIntervalMs,
      ).toISOString();
      if (slot > notBefore) notBefore = slot;
    }
  }
  const paymentSignature = payment?.signature ?? distinctKey;
  const existing = await q
    .selectFrom('outbox')
    .select(['id', 'role'])
    .where('order_id', '=', o.id)
    .where('kind', '=', kind)
    .where('payment_signature', '=', paymentSignature)
    .execute();
  let sellerId = existing.find((r) => r.role === 'seller')?.id;
  let added = 0;
  for (const mail of buildOrderEmails(facts, kind, sellerEmailFor(ctx.deps.settings.mail, o.payout_group))) {
    if (existing.some((r) => r.role === mail.role)) continue;
    const id = randomUUID();
    // Buyer messages: the automated e-mail cap (mail/cap.ts); a capped one is written withheld, not dropped.
    const cap =
      mail.role === 'buyer'
        ? await capDecision(q, {
            secret: ctx.deps.settings.quote.secret,
            isPg: ctx.isPg,
            kind,
            address: mail.to,
            paid: FULLY_PAID.has(o.status),
            at,
          })
        : undefined;
    const res = await queueMail(q, {
      id,
      order_id: o.id,
      kind,
      role: mail.role,
      // Sealed: the payload quotes the buyer's name, e-mail and address (src/server/privacy).
      ...sealMail(ctx.sealer, o.id, mail),
      payout_group: o.payout_group,
      payment_seen: paymentSeen ? 1 : 0,
      after_id: mail.role === 'buyer' ? (sellerId ?? null) : null,
      next_attempt_at: notBefore,
      created_at: at,
      payment_signature: paymentSignature,
      ...(cap?.counted ? { recipient_key: cap.recipientKey } : {}),
      ...(cap?.withheld ? { withheld: sealError(ctx.sealer, o.id, WITHHELD_REASON) ?? '' } : {}),
    })
      .onConflict((oc) => oc.columns(['order_id', 'role', 'kind', 'payment_signature']).doNothing())
      .executeTakeFirst();
    if (Number(res.numInsertedOrUpdatedRows ?? 0n) > 0) added++;
    if (mail.role === 'seller') sellerId = id;
  }
  return added;
}

export interface QueueOptions {
  at: string;
  /** The outbox row's `payment_seen` (the message may say the payment was seen). Default true. */
  paymentSeen?: boolean;
  /** The transfer the change is about (payments): notes about it name it, skip dust and are batched. */
  payment?: { signature: string; receivedBaseUnits: bigint };
  /** paid_late: the transfer's USD value at its block time (read only when a message states it). */
  usdAtPaymentCents?: () => Promise<number | null>;
  /** order_shipped, tracking_updated: the tracking number (carrier, tracking page). */
  shipment?: OrderEmailFacts['shipment'];
  /** refund_sent: the refund's amount and transaction link. */
  refund?: OrderEmailFacts['refund'];
  /** Tells this message apart from earlier ones of its kind (a refund's signature, a tracking change's id). */
  distinctKey?: string;
}

/** Queues the e-mails `change` causes (src/core/order-emails.ts decides which) in the caller's transaction. */
export async function queueEmails(
  ctx: OrderContext,
  q: Db,
  o: OrderRow,
  change: OrderChange,
  opts: QueueOptions,
): Promise<number> {
  let added = 0;
  const emails = emailsFor(change);
  // A change that confirms the order (its confirmation pair) is recorded on the order: later payments read that
  // fact (orders.confirmed_at), not the e-mails.
  if (emails.some((e) => e.kind === 'order_confirmation') && o.confirmed_at === null)
    await q
      .updateTable('orders')
      .set({ confirmed_at: opts.at })
      .where('id', '=', o.id)
      .where('confirmed_at', 'is', null)
      .execute();
  for (const email of emails) {
    const note =
      email.about && opts.payment ? { ...opts.payment, extra: email.about === 'extra' } : undefined;
    const facts: Pick<OrderEmailFacts, 'usdAtPaymentCents' | 'shipment' | 'refund'> = {};
    if (email.usdAtPayment && opts.usdAtPaymentCents)
      facts.usdAtPaymentCents = await opts.usdAtPaymentCents();
    if (opts.shipment) facts.shipment = opts.shipment;
    if (opts.refund) facts.refund = opts.refund;
    const paymentSeen = opts.paymentSeen ?? true;
    added += await enqueue(ctx, q, o, email.kind, paymentSeen, opts.at, note, facts, opts.distinctKey);
  }
  return added;
}
