/**
 * The order service: the one place that writes orders. Creating an order checks the signed quote, the shipping
 * form of the product's payment mode and the Idempotency-Key; payments, confirmations and expiry go through the
 * pure transition function (src/core/order-status.ts); every transition is stored with its time, and the
 * e-mails a change causes are written to the outbox in the same transaction.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { AnyOrderCreated, ApiError, OrderPublic, OrderStatus, PaymentRole } from '../../core/api';
import type { Catalog } from '../../core/catalog';
import { buildOrderEmails, type EmailKind, type OrderEmailFacts } from '../../core/email-payload';
import { formatBaseUnits } from '../../core/money';
import {
  describeIssues,
  missingShippingMessage,
  OrderRequestSchema,
  shippingSchemaFor,
  type ShippingInput,
} from '../../core/order';
import { FULLY_PAID, transition } from '../../core/order-status';
import { ApiProblem } from '../http/errors';
import type { Settings } from '../settings';
import type { Store } from '../store/store';
import { isUniqueViolation, uniqueViolationTarget } from '../store/store';
import type { Database, OrderRow, PaymentRow } from '../store/schema';
import { verifyQuote, type SignedQuote } from './quotes';

export const ORDER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SIGNATURE = /^[1-9A-HJ-NP-Za-km-z]{64,90}$/;

/** What the payment watcher needs to know about an order. */
export interface WatchedOrder {
  orderId: string;
  reference: string;
  recipient: string;
  mint: string;
  amountBaseUnits: bigint;
  status: OrderStatus;
  paymentMethod: 'wallet' | 'qr';
  expiresAt: Date;
  /** The transfer that completed the amount (null until then). */
  signature: string | null;
  /** Every transfer counting toward the amount is finalized. */
  finalized: boolean;
  /** The ledger sum. */
  receivedBaseUnits: bigint;
  /** The ledger: every recorded transfer (the watcher skips these when it re-reads the chain). */
  payments: { signature: string; receivedBaseUnits: bigint; role: PaymentRole; finalized: boolean }[];
}

export interface PaymentReport {
  signature: string;
  receivedBaseUnits: bigint;
  /** The transaction reached finalized commitment. */
  finalized: boolean;
  /** Unix seconds of the block (null if unknown: then the time of recording decides lateness). */
  blockTime: number | null;
  slot?: number | null;
}

export type PaymentTarget = { orderId: string } | { reference: string };

/**
 * `changed: false`: the signature was already in the ledger (and nothing new about it). `role`: the ledger row's
 * role (partial, payment, top_up, extra).
 */
export type RecordPaymentResult =
  | { ok: true; changed: boolean; status: OrderStatus; role: PaymentRole; order: OrderPublic }
  | { ok: false; reason: 'order_not_found' }
  | { ok: false; reason: 'signature_used'; otherOrderId: string }
  | { ok: false; reason: 'refused'; status: OrderStatus; order: OrderPublic };

export interface CreateOrderResult {
  status: number;
  body: AnyOrderCreated;
  /** True when this is the stored response of an earlier request with the same Idempotency-Key. */
  replayed: boolean;
}

export type PaymentHintHandler = (order: WatchedOrder, signature: string) => void | Promise<void>;

export interface OrderService {
  /** POST /api/orders. Throws ApiProblem for every refusal. */
  createOrder(body: unknown, idempotencyKey: string): Promise<CreateOrderResult>;
  /** GET /api/orders/:id; undefined when unknown. Throws ApiProblem(400) on a malformed id. */
  getOrder(orderId: string): Promise<OrderPublic | undefined>;
  findOrder(target: PaymentTarget): Promise<WatchedOrder | undefined>;
  /**
   * For the payment verifier: records a verified transfer in the ledger (idempotent per signature; the same
   * signature again with `finalized: true` marks it finalized and may move paid → final) and moves the order by
   * the ledger sum, with the e-mails it causes, in one transaction.
   */
  recordPayment(target: PaymentTarget, report: PaymentReport): Promise<RecordPaymentResult>;
  /** QR pages' "Send Order Confirmation": enqueue seller then buyer order_confirmation, once. */
  requestConfirmation(orderId: string): Promise<OrderPublic>;
  /** awaiting_payment orders past their expiry → expired. Returns how many changed. */
  expireOrders(now?: Date): Promise<number>;
  /**
   * Orders whose reference the watcher should follow: awaiting payment, any status until `expiredWithinMs`
   * (24 h) after the quote expiry (later transfers are recorded as top-ups or extras), and fully paid orders
   * whose payments are not all finalized.
   */
  ordersToWatch(opts?: { expiredWithinMs?: number }): Promise<WatchedOrder[]>;
  isSignatureUsed(signature: string, exceptOrderId?: string): Promise<boolean>;
  /** The wallet page's "I sent it" hint: hands it to the verifier; never marks anything paid. */
  paymentHint(orderId: string, signature: string): Promise<OrderPublic>;
  setPaymentHintHandler(handler: PaymentHintHandler | undefined): void;
}

export interface OrderServiceDeps {
  store: Store;
  catalog: Catalog;
  settings: Pick<Settings, 'quote' | 'mail'>;
  now: () => Date;
  /** Called after a commit that added outbox rows (wakes the worker). */
  onOutboxChange?: () => void;
  onPaymentHint?: PaymentHintHandler;
  onError?: (err: unknown) => void;
}

interface StoredItem {
  productId: string;
  variantId?: string;
  variantLabel?: string;
  name: string;
  quantity: number;
  unitCents: number;
  lineCents: number;
}

type Db = Kysely<Database> | Transaction<Database>;

/** Deeper than any order body; a deeper one is refused before it can exhaust the stack. */
const MAX_BODY_DEPTH = 32;

function stableStringify(v: unknown, depth = 0): string {
  if (depth > MAX_BODY_DEPTH)
    throw new ApiProblem(400, 'invalid_order_request', 'The request is nested too deeply.');
  if (Array.isArray(v)) return `[${v.map((x) => stableStringify(x, depth + 1)).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .filter((k) => o[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stableStringify(o[k], depth + 1)}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

export function createOrderService(deps: OrderServiceDeps): OrderService {
  const { store } = deps;
  const db = store.db;
  const isPg = store.dialect === 'postgres';
  let hintHandler = deps.onPaymentHint;

  /** Unpriced QR orders (no amount) are never payment-watched: nothing to verify a payment against. */
  const toWatched = (o: OrderRow & { amount_base_units: string }, ledger: PaymentRow[]): WatchedOrder => ({
    orderId: o.id,
    reference: o.reference,
    recipient: o.recipient,
    mint: o.mint,
    amountBaseUnits: BigInt(o.amount_base_units),
    status: o.status,
    paymentMethod: o.payment_method,
    expiresAt: new Date(o.expires_at),
    signature: o.signature,
    finalized: Number(o.finalized) === 1,
    receivedBaseUnits: ledger.reduce((sum, p) => sum + BigInt(p.received_base_units), 0n),
    payments: ledger.map((p) => ({
      signature: p.signature,
      receivedBaseUnits: BigInt(p.received_base_units),
      role: p.role,
      finalized: p.confirmation === 'finalized',
    })),
  });

  async function ledgerOf(q: Db, orderId: string): Promise<PaymentRow[]> {
    return q.selectFrom('payments').selectAll().where('order_id', '=', orderId).orderBy('seq').execute();
  }

  const sumOf = (ledger: PaymentRow[]): bigint =>
    ledger.reduce((sum, p) => sum + BigInt(p.received_base_units), 0n);

  const isPriced = (o: OrderRow): o is OrderRow & { amount_base_units: string } =>
    o.amount_base_units !== null;

  async function loadOrder(q: Db, target: PaymentTarget, lock: boolean): Promise<OrderRow | undefined> {
    let sel = q.selectFrom('orders').selectAll();
    sel =
      'orderId' in target
        ? sel.where('id', '=', target.orderId)
        : sel.where('reference', '=', target.reference);
    if (lock && isPg) sel = sel.forUpdate();
    return sel.executeTakeFirst();
  }

  async function addHistory(
    q: Db,
    orderId: string,
    status: OrderStatus,
    event: string,
    at: string,
  ): Promise<void> {
    const last = await q
      .selectFrom('order_history')
      .select((eb) => eb.fn.max('seq').as('seq'))
      .where('order_id', '=', orderId)
      .executeTakeFirst();
    const seq = Number(last?.seq ?? 0) + 1;
    await q
      .insertInto('order_history')
      .values({ id: randomUUID(), order_id: orderId, seq, status, event, at })
      .execute();
  }

  function factsOf(o: OrderRow, extraPayment?: OrderEmailFacts['extraPayment']): OrderEmailFacts {
    const items = JSON.parse(o.items_json) as StoredItem[];
    return {
      items: items.map((i) => ({
        name: i.name,
        quantity: i.quantity,
        ...(i.variantLabel ? { variantLabel: i.variantLabel } : {}),
      })),
      totalCents: o.total_cents,
      // Unpriced QR order: 'N/A' for both (spec §3 keeps the field list).
      amountBaseUnits: o.amount_base_units === null ? undefined : BigInt(o.amount_base_units),
      shipping: JSON.parse(o.shipping_json) as ShippingInput,
      paymentMethod: o.payment_method,
      solanaPayUrl: o.solana_pay_url ?? 'N/A',
      ...(o.received_base_units !== null ? { receivedBaseUnits: BigInt(o.received_base_units) } : {}),
      ...(extraPayment ? { extraPayment } : {}),
    };
  }

  /**
   * Writes the messages of `kind` for the order (seller first; the buyer row waits for the seller row). With
   * `payment`, the message is about that one ledger transfer (one row per transfer, e.g. an extra payment).
   */
  async function enqueue(
    q: Db,
    o: OrderRow,
    kind: EmailKind,
    paymentSeen: boolean,
    at: string,
    payment?: { signature: string; receivedBaseUnits: bigint; extra: boolean },
  ): Promise<number> {
    const paymentSignature = payment?.signature ?? '';
    const existing = await q
      .selectFrom('outbox')
      .select(['id', 'role'])
      .where('order_id', '=', o.id)
      .where('kind', '=', kind)
      .where('payment_signature', '=', paymentSignature)
      .execute();
    let sellerId = existing.find((r) => r.role === 'seller')?.id;
    let added = 0;
    const extra = payment?.extra
      ? { signature: payment.signature, receivedBaseUnits: payment.receivedBaseUnits }
      : undefined;
    for (const mail of buildOrderEmails(factsOf(o, extra), kind, deps.settings.mail.sellerEmail)) {
      if (existing.some((r) => r.role === mail.role)) continue;
      const id = randomUUID();
      const res = await q
        .insertInto('outbox')
        .values({
          id,
          order_id: o.id,
          kind,
          role: mail.role,
          recipient_email: mail.to,
          payout_group: o.payout_group,
          payment_seen: paymentSeen ? 1 : 0,
          payload_json: JSON.stringify(mail.payload),
          after_id: mail.role === 'buyer' ? (sellerId ?? null) : null,
          state: 'pending',
          attempts: 0,
          next_attempt_at: at,
          locked_until: null,
          lock_token: null,
          last_error: null,
          delivered_at: null,
          created_at: at,
          payment_signature: paymentSignature,
        })
        .onConflict((oc) => oc.columns(['order_id', 'role', 'kind', 'payment_signature']).doNothing())
        .executeTakeFirst();
      if (Number(res.numInsertedOrUpdatedRows ?? 0n) > 0) added++;
      if (mail.role === 'seller') sellerId = id;
    }
    return added;
  }

  async function publicOf(q: Db, o: OrderRow): Promise<OrderPublic> {
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
      payments: ledger.map((p) => ({
        signature: p.signature,
        receivedBaseUnits: p.received_base_units,
        at: p.block_time !== null ? new Date(Number(p.block_time) * 1000).toISOString() : p.recorded_at,
        role: p.role,
      })),
      history: history.map((h) => ({ status: h.status, at: h.at })),
      emails: mails.map((m) => ({
        kind: m.kind,
        recipient: m.role,
        state: m.state,
        attempts: Number(m.attempts),
        ...(m.delivered_at ? { deliveredAt: m.delivered_at } : {}),
      })),
    };
    const shown = o.signature ?? ledger[ledger.length - 1]?.signature;
    if (shown) pub.signature = shown;
    if (ledger.length > 0) pub.receivedBaseUnits = sumOf(ledger).toString();
    else if (o.received_base_units) pub.receivedBaseUnits = o.received_base_units;
    return pub;
  }

  function checkOrderId(orderId: string): void {
    if (!ORDER_ID.test(orderId))
      throw new ApiProblem(400, 'invalid_order_id', 'That is not an order id.', { field: 'id' });
  }

  async function replayOrConflict(key: string, hash: string): Promise<CreateOrderResult | undefined> {
    const row = await db.selectFrom('idempotency_keys').selectAll().where('key', '=', key).executeTakeFirst();
    if (!row) return undefined;
    if (row.request_hash !== hash) {
      throw new ApiProblem(
        409,
        'idempotency_key_reused',
        'This Idempotency-Key was already used with a different request. Use a new key for a new order.',
        {
          field: 'Idempotency-Key',
        },
      );
    }
    return {
      status: Number(row.status_code),
      body: JSON.parse(row.response_json) as AnyOrderCreated,
      replayed: true,
    };
  }

  function shippingProblem(quote: SignedQuote, shipping: unknown): ApiProblem | { ok: ShippingInput } {
    const expectedKind = quote.payment === 'wallet' ? 'international' : 'us';
    const kind = (shipping as { kind?: unknown } | null)?.kind;
    if (shipping === null || typeof shipping !== 'object' || Array.isArray(shipping)) {
      return new ApiProblem(400, 'invalid_shipping', missingShippingMessage(quote.payment), {
        field: 'shipping',
      });
    }
    if (kind !== expectedKind) {
      const msg =
        quote.payment === 'qr'
          ? "QR orders ship to US addresses only: send the US form (kind 'us')."
          : "Wallet orders use the international shipping form (kind 'international').";
      return new ApiProblem(400, 'invalid_shipping', msg, { field: 'shipping.kind' });
    }
    const r = shippingSchemaFor(quote.payment).safeParse(shipping);
    if (r.success) return { ok: r.data };
    const issues = describeIssues(r.error, 'shipping');
    const missing = r.error.issues.some((i) => i.message.endsWith('is required'));
    return new ApiProblem(
      400,
      'invalid_shipping',
      missing ? missingShippingMessage(quote.payment) : (issues[0]?.message ?? 'Invalid shipping details'),
      {
        field: issues[0]?.path,
        issues,
      },
    );
  }

  const service: OrderService = {
    async createOrder(body, idempotencyKey) {
      const hash = createHash('sha256').update(stableStringify(body)).digest('hex');
      const replay = await replayOrConflict(idempotencyKey, hash);
      if (replay) return replay;

      const req = OrderRequestSchema.safeParse(body);
      if (!req.success) {
        const issues = describeIssues(req.error);
        throw new ApiProblem(
          400,
          'invalid_order_request',
          issues[0] ? `${issues[0].path ? `${issues[0].path}: ` : ''}${issues[0].message}` : 'Invalid order',
          {
            field: issues[0]?.path,
            issues,
          },
        );
      }
      const now = deps.now();
      const check = verifyQuote(req.data.quote, deps.settings.quote.secret, now);
      if (!check.ok) {
        if (check.reason === 'expired') {
          throw new ApiProblem(
            410,
            'quote_expired',
            'This price quote has expired. Please reload the page to get a new quote.',
            { field: 'quote' },
          );
        }
        throw new ApiProblem(
          400,
          'invalid_quote',
          'The quote is not valid (altered or not issued by this store). Please reload the page.',
          { field: 'quote' },
        );
      }
      const quote = check.quote;
      if (req.data.paymentMethod !== quote.payment) {
        throw new ApiProblem(
          400,
          'invalid_payment_method',
          `This product is paid by ${quote.payment === 'qr' ? 'QR code' : 'wallet'} (paymentMethod '${quote.payment}').`,
          {
            field: 'paymentMethod',
          },
        );
      }
      const ship = shippingProblem(quote, req.data.shipping);
      if (ship instanceof ApiProblem) throw ship;

      const orderId = randomUUID();
      const at = now.toISOString();
      const common = {
        orderId,
        reference: quote.reference,
        recipient: quote.recipient,
        mint: quote.mint,
        expiresAt: quote.expiresAt,
      };
      const created: AnyOrderCreated =
        quote.amountBaseUnits !== null && quote.solanaPayUrl !== null
          ? {
              ...common,
              solanaPayUrl: quote.solanaPayUrl,
              amount: formatBaseUnits(BigInt(quote.amountBaseUnits)),
              amountBaseUnits: quote.amountBaseUnits,
            }
          : { ...common, solanaPayUrl: null, amount: null, amountBaseUnits: null };
      try {
        await db.transaction().execute(async (trx) => {
          await trx
            .insertInto('orders')
            .values({
              id: orderId,
              reference: quote.reference,
              vendor_id: quote.vendorId,
              payout_group: quote.payoutGroup,
              items_json: JSON.stringify(quote.items),
              total_cents: quote.totalCents,
              price_usd: quote.priceUsd,
              amount_base_units: quote.amountBaseUnits,
              recipient: quote.recipient,
              mint: quote.mint,
              solana_pay_url: quote.solanaPayUrl,
              payment_method: quote.payment,
              shipping_json: JSON.stringify(ship.ok),
              referrer: req.data.referrer ?? null,
              status: 'awaiting_payment',
              expires_at: quote.expiresAt,
              signature: null,
              received_base_units: null,
              block_time: null,
              finalized: 0,
              confirmation_requested_at: null,
              created_at: at,
              updated_at: at,
            })
            .execute();
          await addHistory(trx, orderId, 'awaiting_payment', 'created', at);
          await trx
            .insertInto('idempotency_keys')
            .values({
              key: idempotencyKey,
              request_hash: hash,
              status_code: 201,
              response_json: JSON.stringify(created),
              order_id: orderId,
              created_at: at,
            })
            .execute();
        });
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        const again = await replayOrConflict(idempotencyKey, hash);
        if (again) return again;
        if (/reference/.test(uniqueViolationTarget(err))) {
          throw new ApiProblem(
            409,
            'quote_already_used',
            'This quote has already been used for an order. Please reload the page to get a new quote.',
            {
              field: 'quote',
            },
          );
        }
        throw err;
      }
      return { status: 201, body: created, replayed: false };
    },

    async getOrder(orderId) {
      checkOrderId(orderId);
      const o = await loadOrder(db, { orderId }, false);
      return o ? publicOf(db, o) : undefined;
    },

    async findOrder(target) {
      const o = await loadOrder(db, target, false);
      return o && isPriced(o) ? toWatched(o, await ledgerOf(db, o.id)) : undefined;
    },

    async recordPayment(target, report) {
      if (!SIGNATURE.test(report.signature))
        throw new Error(`recordPayment: malformed signature '${report.signature}'`);
      if (report.receivedBaseUnits <= 0n) throw new Error('recordPayment: the amount must be positive');
      let added = 0;
      const result = await db
        .transaction()
        .execute(async (trx): Promise<RecordPaymentResult> => {
          const o = await loadOrder(trx, target, true);
          if (!o) return { ok: false, reason: 'order_not_found' };
          // An unpriced order has no amount to verify against: the seller arranges its payment.
          if (!isPriced(o))
            return { ok: false, reason: 'refused', status: o.status, order: await publicOf(trx, o) };
          const recorded = await trx
            .selectFrom('payments')
            .selectAll()
            .where('signature', '=', report.signature)
            .executeTakeFirst();
          if (recorded && recorded.order_id !== o.id)
            return { ok: false, reason: 'signature_used', otherOrderId: recorded.order_id };
          const legacy = await trx
            .selectFrom('orders')
            .select('id')
            .where('signature', '=', report.signature)
            .where('id', '!=', o.id)
            .executeTakeFirst();
          if (legacy) return { ok: false, reason: 'signature_used', otherOrderId: legacy.id };
          const now = deps.now();
          const at = now.toISOString();
          const ledger = await ledgerOf(trx, o.id);
          const counting = (rows: PaymentRow[]) => rows.filter((p) => p.role !== 'extra');

          if (recorded) {
            // Seen before: only news of finality changes anything.
            if (!report.finalized || recorded.confirmation === 'finalized') {
              return {
                ok: true,
                changed: false,
                status: o.status,
                role: recorded.role,
                order: await publicOf(trx, o),
              };
            }
            await trx
              .updateTable('payments')
              .set({ confirmation: 'finalized' })
              .where('signature', '=', recorded.signature)
              .execute();
            const after = ledger.map((p) =>
              p.signature === recorded.signature ? { ...p, confirmation: 'finalized' as const } : p,
            );
            const allFinal = counting(after).every((p) => p.confirmation === 'finalized');
            let updated = o;
            if (allFinal && FULLY_PAID.has(o.status)) {
              const t = transition(o.status, { type: 'finalized' });
              const next = t.ok ? t.next : o.status;
              updated = { ...o, status: next, finalized: 1, updated_at: at };
              await trx
                .updateTable('orders')
                .set({ status: next, finalized: 1, updated_at: at })
                .where('id', '=', o.id)
                .execute();
              if (next !== o.status) await addHistory(trx, o.id, next, 'finalized', at);
            }
            return {
              ok: true,
              changed: true,
              status: updated.status,
              role: recorded.role,
              order: await publicOf(trx, updated),
            };
          }

          const before = sumOf(ledger);
          const paidAtMs = report.blockTime !== null ? report.blockTime * 1000 : now.getTime();
          const t = transition(o.status, {
            type: 'payment',
            receivedBaseUnits: report.receivedBaseUnits,
            paidBeforeBaseUnits: before,
            expectedBaseUnits: BigInt(o.amount_base_units),
            finalized: report.finalized && counting(ledger).every((p) => p.confirmation === 'finalized'),
            late: paidAtMs > Date.parse(o.expires_at),
          });
          if (!t.ok || !t.role)
            return { ok: false, reason: 'refused', status: o.status, order: await publicOf(trx, o) };
          const role = t.role;
          await trx
            .insertInto('payments')
            .values({
              signature: report.signature,
              order_id: o.id,
              seq: ledger.reduce((max, p) => Math.max(max, Number(p.seq)), 0) + 1,
              received_base_units: report.receivedBaseUnits.toString(),
              slot: report.slot ?? null,
              block_time: report.blockTime,
              confirmation: report.finalized ? 'finalized' : 'confirmed',
              role,
              recorded_at: at,
            })
            .execute();
          const completes = role === 'payment' || role === 'top_up';
          const sum = before + report.receivedBaseUnits;
          const updated: OrderRow = {
            ...o,
            status: t.next,
            signature: completes ? report.signature : o.signature,
            received_base_units: sum.toString(),
            block_time: completes ? report.blockTime : o.block_time,
            finalized:
              t.next === 'final' ||
              (completes && report.finalized && counting(ledger).every((p) => p.confirmation === 'finalized'))
                ? 1
                : o.finalized,
            updated_at: at,
          };
          await trx
            .updateTable('orders')
            .set({
              status: updated.status,
              signature: updated.signature,
              received_base_units: updated.received_base_units,
              block_time: updated.block_time,
              finalized: updated.finalized,
              updated_at: at,
            })
            .where('id', '=', o.id)
            .execute();
          if (t.next !== o.status)
            await addHistory(trx, o.id, t.next, role === 'top_up' ? 'top_up' : 'payment', at);
          // The payment that completes the amount (first time, or a top-up of an underpaid order) causes the
          // e-mails: wallet orders get the confirmation pair, QR orders a note to the seller (their confirmation
          // pair is the buyer's "Send Order Confirmation").
          if (completes && FULLY_PAID.has(t.next)) {
            added += await enqueue(
              trx,
              updated,
              o.payment_method === 'wallet' ? 'order_confirmation' : 'payment_received',
              true,
              at,
            );
          }
          // After the full amount: the seller is told of each extra payment (to refund or credit).
          if (role === 'extra') {
            added += await enqueue(trx, updated, 'payment_received', true, at, {
              signature: report.signature,
              receivedBaseUnits: report.receivedBaseUnits,
              extra: true,
            });
          }
          // A short sum once the window has closed is never dropped: the seller is told what arrived, once when the
          // order becomes underpaid and again for each later partial transfer.
          if (role === 'partial' && t.next === 'underpaid') {
            const again =
              o.status === 'underpaid'
                ? { signature: report.signature, receivedBaseUnits: report.receivedBaseUnits, extra: false }
                : undefined;
            added += await enqueue(trx, updated, 'payment_underpaid', true, at, again);
          }
          return { ok: true, changed: true, status: t.next, role, order: await publicOf(trx, updated) };
        })
        .catch((err: unknown) => {
          if (isUniqueViolation(err) && /signature/.test(uniqueViolationTarget(err))) {
            return { ok: false, reason: 'signature_used', otherOrderId: 'unknown' } as RecordPaymentResult;
          }
          throw err;
        });
      if (added > 0) deps.onOutboxChange?.();
      return result;
    },

    async requestConfirmation(orderId) {
      checkOrderId(orderId);
      let added = 0;
      const pub = await db.transaction().execute(async (trx) => {
        const o = await loadOrder(trx, { orderId }, true);
        if (!o) throw new ApiProblem(404, 'order_not_found', 'No such order.');
        if (o.payment_method !== 'qr') {
          throw new ApiProblem(
            409,
            'not_a_qr_order',
            'Wallet orders are confirmed by e-mail automatically once the payment is verified.',
          );
        }
        const at = deps.now().toISOString();
        if (!o.confirmation_requested_at) {
          await trx
            .updateTable('orders')
            .set({ confirmation_requested_at: at, updated_at: at })
            .where('id', '=', o.id)
            .execute();
        }
        added = await enqueue(trx, o, 'order_confirmation', FULLY_PAID.has(o.status), at);
        return publicOf(trx, o);
      });
      if (added > 0) deps.onOutboxChange?.();
      return pub;
    },

    async expireOrders(now = deps.now()) {
      const at = now.toISOString();
      // Unpriced orders have no payment window (the seller arranges payment): they stay awaiting_payment.
      const due = await db
        .selectFrom('orders')
        .select('id')
        .where('status', '=', 'awaiting_payment')
        .where('expires_at', '<=', at)
        .where('amount_base_units', 'is not', null)
        .execute();
      let n = 0;
      let added = 0;
      for (const { id } of due) {
        const changed = await db.transaction().execute(async (trx) => {
          const o = await loadOrder(trx, { orderId: id }, true);
          if (!o || Date.parse(o.expires_at) > now.getTime()) return false;
          // Partial transfers recorded while the quote was open: the order becomes underpaid (and the seller is told).
          const received = sumOf(await ledgerOf(trx, id));
          const t = transition(o.status, { type: 'expire', receivedBaseUnits: received });
          if (!t.ok) return false;
          await trx
            .updateTable('orders')
            .set({ status: t.next, updated_at: at })
            .where('id', '=', id)
            .where('status', '=', o.status)
            .execute();
          await addHistory(trx, id, t.next, 'expire', at);
          if (t.next === 'underpaid') {
            added += await enqueue(
              trx,
              { ...o, status: t.next, received_base_units: received.toString() },
              'payment_underpaid',
              true,
              at,
            );
          }
          return true;
        });
        if (changed) n++;
      }
      if (added > 0) deps.onOutboxChange?.();
      return n;
    },

    async ordersToWatch(opts = {}) {
      const since = new Date(deps.now().getTime() - (opts.expiredWithinMs ?? 24 * 3600_000)).toISOString();
      const rows = await db
        .selectFrom('orders')
        .selectAll()
        .where((eb) =>
          eb.or([
            eb('status', '=', 'awaiting_payment'),
            // Every status within the window: later transfers are recorded (top-ups, extras).
            eb('expires_at', '>=', since),
            eb.and([eb('status', 'in', ['paid', 'paid_late']), eb('finalized', '=', 0)]),
          ]),
        )
        .where('amount_base_units', 'is not', null)
        .orderBy('created_at')
        .execute();
      const priced = rows.filter(isPriced);
      const ledgers = new Map<string, PaymentRow[]>();
      for (let i = 0; i < priced.length; i += 500) {
        const ids = priced.slice(i, i + 500).map((o) => o.id);
        const rowsOf = await db
          .selectFrom('payments')
          .selectAll()
          .where('order_id', 'in', ids)
          .orderBy('seq')
          .execute();
        for (const p of rowsOf) ledgers.set(p.order_id, [...(ledgers.get(p.order_id) ?? []), p]);
      }
      return priced.map((o) => toWatched(o, ledgers.get(o.id) ?? []));
    },

    async isSignatureUsed(signature, exceptOrderId) {
      let q = db.selectFrom('payments').select('order_id').where('signature', '=', signature);
      if (exceptOrderId) q = q.where('order_id', '!=', exceptOrderId);
      if ((await q.executeTakeFirst()) !== undefined) return true;
      let legacy = db.selectFrom('orders').select('id').where('signature', '=', signature);
      if (exceptOrderId) legacy = legacy.where('id', '!=', exceptOrderId);
      return (await legacy.executeTakeFirst()) !== undefined;
    },

    async paymentHint(orderId, signature) {
      checkOrderId(orderId);
      if (typeof signature !== 'string' || !SIGNATURE.test(signature)) {
        throw new ApiProblem(400, 'invalid_signature', 'signature must be a base58 transaction signature.', {
          field: 'signature',
        });
      }
      const o = await loadOrder(db, { orderId }, false);
      if (!o) throw new ApiProblem(404, 'order_not_found', 'No such order.');
      if (!isPriced(o)) {
        throw new ApiProblem(
          409,
          'order_unpriced',
          'This order was placed without a price; the seller arranges its payment.',
        );
      }
      const handler = hintHandler;
      if (handler) {
        // The verifier decides; its work must not hold the request.
        const ledger = await ledgerOf(db, o.id);
        void Promise.resolve()
          .then(() => handler(toWatched(o, ledger), signature))
          .catch((err: unknown) => deps.onError?.(err));
      }
      return publicOf(db, o);
    },

    setPaymentHintHandler(handler) {
      hintHandler = handler;
    },
  };
  return service;
}

export type { ApiError };
