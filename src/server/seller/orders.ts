/**
 * The seller console's view of orders: its own small repository over the store (orders, payments,
 * order_history, outbox, seller_actions), always scoped to the signed-in seller's vendors. Reads (list with
 * filter/search/pagination, detail, CSV) and the seller's actions (ship, deliver, resolve an exception, resend a
 * failed e-mail); every action is recorded in `seller_actions` with the payout address that did it.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import { buildShippedEmail, productLine, type OrderEmailFacts } from '../../core/email-payload';
import { formatCents } from '../../core/money';
import { joinShippingAddress, type ShippingInput } from '../../core/order';
import { HAS_PAYMENT, ORDER_STATUSES, transition } from '../../core/order-status';
import {
  SELLER_EXCEPTIONS,
  type SellerException,
  type SellerOrderDetail,
  type SellerOrderList,
  type SellerOrderSummary,
  type SellerStatusFilter,
} from '../../core/seller-api';
import type { Database, OrderRow } from '../store/schema';
import type { Store } from '../store/store';
import type { PaymentRpc } from '../payments/rpc';
import { addHistory } from '../orders/rows';
import { DomainError } from '../../core/errors';
import { checkRefund, parseRefundBody, recordedRefund, recordRefund } from './refund';

type Db = Kysely<Database> | Transaction<Database>;

export interface SellerOrdersDeps {
  store: Store;
  /** The payments' RPC port (the process's RPC budget), to check refunds on chain. Absent: refunds are refused. */
  rpc?: PaymentRpc;
  now: () => Date;
  /** Called after an e-mail was queued (wakes the outbox worker). */
  onOutboxChange?: () => void;
  /** This site's origin, for the buyer's order page link in e-mails. */
  origin?: () => string;
}

export interface OrderQuery {
  status?: SellerStatusFilter;
  /** Buyer name, buyer e-mail or order number (case-insensitive substring). */
  search?: string;
  page?: number;
  pageSize?: number;
}

export const MAX_PAGE_SIZE = 100;

interface StoredItem {
  name: string;
  variantLabel?: string;
  quantity: number;
  unitCents: number;
  lineCents: number;
}

function shippingOf(o: OrderRow): Partial<ShippingInput> {
  try {
    // NULL: a QR record paid before its shipping details arrived (migration 0007).
    if (o.shipping_json === null) return {};
    return (JSON.parse(o.shipping_json) as Partial<ShippingInput> | null) ?? {};
  } catch {
    return {};
  }
}

function itemsOf(o: OrderRow): StoredItem[] {
  return JSON.parse(o.items_json) as StoredItem[];
}

/** A LIKE pattern matching `text` literally anywhere (\ escapes % and _). */
function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function scoped(db: Db, vendorIds: readonly string[], q: OrderQuery) {
  let query = db.selectFrom('orders').where('vendor_id', 'in', vendorIds.length ? [...vendorIds] : ['']);
  if (q.status === 'exceptions') {
    query = query.where((eb) =>
      eb.or([
        eb('status', 'in', ['underpaid', 'paid_late', 'oversold']),
        eb.and([eb('shipping_json', 'is', null), eb('status', 'in', [...HAS_PAYMENT])]),
        eb.exists(
          eb
            .selectFrom('payments')
            .select('payments.signature')
            .whereRef('payments.order_id', '=', 'orders.id')
            .where('payments.role', '=', 'extra'),
        ),
      ]),
    );
  } else if (q.status !== undefined) {
    query = query.where('status', '=', q.status);
  }
  const search = q.search?.trim();
  if (search) {
    const pattern = containsPattern(search);
    // shipping_json holds the buyer's name and e-mail (JSON text); the order number is the id.
    query = query.where((eb) =>
      eb.or([
        eb(sql`lower(orders.shipping_json)`, 'like', sql`${pattern} escape '\\'`),
        eb(sql`lower(orders.id)`, 'like', sql`${pattern} escape '\\'`),
      ]),
    );
  }
  return query;
}

async function extrasOf(db: Db, orderIds: string[]): Promise<Set<string>> {
  if (orderIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('payments')
    .select('order_id')
    .where('order_id', 'in', orderIds)
    .where('role', '=', 'extra')
    .execute();
  return new Set(rows.map((r) => r.order_id));
}

/** Actions that settle an exception: "Record action" and "Mark refunded" (detail.exception names it). */
const RESOLVING_ACTIONS = ['resolved', 'refunded'];

async function resolvedOf(db: Db, orderIds: string[]): Promise<Map<string, SellerException[]>> {
  const out = new Map<string, SellerException[]>();
  if (orderIds.length === 0) return out;
  const rows = await db
    .selectFrom('seller_actions')
    .select(['order_id', 'detail_json'])
    .where('order_id', 'in', orderIds)
    .where('action', 'in', RESOLVING_ACTIONS)
    .execute();
  for (const r of rows) {
    const e = (JSON.parse(r.detail_json) as { exception?: SellerException }).exception;
    if (e) out.set(r.order_id, [...(out.get(r.order_id) ?? []), e]);
  }
  return out;
}

function exceptionsOf(o: OrderRow, hasExtra: boolean): SellerException[] {
  const out: SellerException[] = [];
  // A QR record paid before the buyer sent the shipping details (migration 0007: shipping_json NULL).
  if (o.shipping_json === null && HAS_PAYMENT.has(o.status)) out.push('no_shipping_details');
  if (o.status === 'underpaid') out.push('underpaid');
  if (o.status === 'paid_late') out.push('paid_late');
  // Paid after the reservation lapsed and the stock went to someone else (issue 12): refund the buyer.
  if (o.status === 'oversold') out.push('oversold');
  if (hasExtra) out.push('extra_payment');
  return out;
}

function summaryOf(o: OrderRow, hasExtra: boolean, resolved: SellerException[]): SellerOrderSummary {
  const shipping = shippingOf(o);
  return {
    orderId: o.id,
    createdAt: o.created_at,
    status: o.status,
    vendorId: o.vendor_id,
    paymentMethod: o.payment_method,
    buyerName: shipping.fullName ?? '',
    buyerEmail: shipping.email ?? '',
    product: productLine(itemsOf(o)),
    totalCents: o.total_cents,
    amountBaseUnits: o.amount_base_units,
    receivedBaseUnits: o.received_base_units ?? '0',
    exceptions: exceptionsOf(o, hasExtra),
    resolved,
  };
}

export function parseOrderQuery(raw: Record<string, unknown>): OrderQuery {
  const bad = (field: string, message: string) =>
    new DomainError('invalid', 'invalid_query', message, { field: field });
  const str = (k: string): string | undefined => {
    const v = raw[k];
    if (v === undefined || v === '') return undefined;
    if (typeof v !== 'string') throw bad(k, `${k} must be given once.`);
    return v;
  };
  const q: OrderQuery = {};
  const status = str('status');
  if (status !== undefined) {
    if (status !== 'exceptions' && !(ORDER_STATUSES as readonly string[]).includes(status))
      throw bad('status', `status must be one of ${[...ORDER_STATUSES, 'exceptions'].join(', ')}.`);
    q.status = status as SellerStatusFilter;
  }
  const search = str('q');
  if (search !== undefined) {
    if (search.length > 200) throw bad('q', 'The search is too long (at most 200 characters).');
    q.search = search;
  }
  const int = (k: string, min: number, max: number): number | undefined => {
    const v = str(k);
    if (v === undefined) return undefined;
    if (!/^\d{1,6}$/.test(v) || Number(v) < min || Number(v) > max)
      throw bad(k, `${k} must be a whole number from ${min} to ${max}.`);
    return Number(v);
  };
  const page = int('page', 1, 100_000);
  const pageSize = int('pageSize', 1, MAX_PAGE_SIZE);
  if (page !== undefined) q.page = page;
  if (pageSize !== undefined) q.pageSize = pageSize;
  return q;
}

export async function listOrders(
  deps: SellerOrdersDeps,
  vendorIds: readonly string[],
  q: OrderQuery,
): Promise<SellerOrderList> {
  const db = deps.store.db;
  const page = q.page ?? 1;
  const pageSize = q.pageSize ?? 25;
  const count = await scoped(db, vendorIds, q)
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirst();
  const rows = await scoped(db, vendorIds, q)
    .selectAll('orders')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(pageSize)
    .offset((page - 1) * pageSize)
    .execute();
  const ids = rows.map((r) => r.id);
  const [extras, resolved] = await Promise.all([extrasOf(db, ids), resolvedOf(db, ids)]);
  return {
    orders: rows.map((o) => summaryOf(o, extras.has(o.id), resolved.get(o.id) ?? [])),
    total: Number(count?.n ?? 0),
    page,
    pageSize,
  };
}

/** Every order matching the filter (no pagination), newest first, for the CSV export. */
export async function allOrders(
  deps: SellerOrdersDeps,
  vendorIds: readonly string[],
  q: OrderQuery,
): Promise<SellerOrderSummary[]> {
  const out: SellerOrderSummary[] = [];
  for (let page = 1; ; page++) {
    const batch = await listOrders(deps, vendorIds, { ...q, page, pageSize: MAX_PAGE_SIZE });
    out.push(...batch.orders);
    if (batch.orders.length < MAX_PAGE_SIZE) return out;
  }
}

async function ownOrder(db: Db, vendorIds: readonly string[], orderId: string): Promise<OrderRow> {
  const o =
    orderId.length <= 128
      ? await db
          .selectFrom('orders')
          .selectAll()
          .where('id', '=', orderId)
          .where('vendor_id', 'in', vendorIds.length ? [...vendorIds] : [''])
          .executeTakeFirst()
      : undefined;
  // Another vendor's order is "not found" too: its existence is not this seller's business.
  if (!o) throw new DomainError('not_found', 'order_not_found', 'No such order.');
  return o;
}

export async function orderDetail(
  deps: SellerOrdersDeps,
  vendorIds: readonly string[],
  orderId: string,
): Promise<SellerOrderDetail> {
  const db = deps.store.db;
  const o = await ownOrder(db, vendorIds, orderId);
  const [payments, history, emails, actions] = await Promise.all([
    db.selectFrom('payments').selectAll().where('order_id', '=', o.id).orderBy('seq').execute(),
    db.selectFrom('order_history').selectAll().where('order_id', '=', o.id).orderBy('seq').execute(),
    db
      .selectFrom('outbox')
      .selectAll()
      .where('order_id', '=', o.id)
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('seller_actions')
      .selectAll()
      .where('order_id', '=', o.id)
      .orderBy('at')
      .orderBy('id')
      .execute(),
  ]);
  const parsedActions = actions.map((a) => ({
    action: a.action,
    detail: JSON.parse(a.detail_json) as Record<string, string>,
    address: a.address,
    at: a.at,
  }));
  const hasExtra = payments.some((p) => p.role === 'extra');
  const resolved = parsedActions
    .filter((a) => RESOLVING_ACTIONS.includes(a.action) && a.detail.exception)
    .map((a) => a.detail.exception as SellerException);
  const shipping = shippingOf(o);
  const shippedAction = [...parsedActions].reverse().find((a) => a.action === 'shipped');
  return {
    ...summaryOf(o, hasExtra, resolved),
    reference: o.reference,
    recipient: o.recipient,
    expiresAt: o.expires_at,
    items: itemsOf(o).map((i) => ({
      name: i.name,
      ...(i.variantLabel ? { variantLabel: i.variantLabel } : {}),
      quantity: i.quantity,
      unitCents: i.unitCents,
      lineCents: i.lineCents,
    })),
    shipping: Object.fromEntries(Object.entries(shipping).map(([k, v]) => [k, String(v)])),
    shippingAddress: shipping.fullName ? joinShippingAddress(shipping as ShippingInput) : '',
    payments: payments.map((p) => ({
      signature: p.signature,
      receivedBaseUnits: p.received_base_units,
      role: p.role,
      at: p.block_time !== null ? new Date(p.block_time * 1000).toISOString() : p.recorded_at,
      confirmation: p.confirmation,
    })),
    history: history.map((h) => ({ status: h.status, event: h.event, at: h.at })),
    emails: emails.map((e) => ({
      id: e.id,
      kind: e.kind,
      recipient: e.role,
      to: e.recipient_email,
      state: e.state,
      attempts: e.attempts,
      lastError: e.last_error,
      deliveredAt: e.delivered_at,
      createdAt: e.created_at,
    })),
    actions: parsedActions,
    ...(shippedAction
      ? {
          shipment: {
            trackingNumber: shippedAction.detail.trackingNumber ?? '',
            ...(shippedAction.detail.carrier ? { carrier: shippedAction.detail.carrier } : {}),
            at: shippedAction.at,
          },
        }
      : {}),
  };
}

async function record(q: Db, orderId: string, action: string, detail: object, address: string, at: string) {
  await q
    .insertInto('seller_actions')
    .values({ id: randomUUID(), order_id: orderId, action, detail_json: JSON.stringify(detail), address, at })
    .execute();
}

function factsOf(o: OrderRow, origin: string | undefined): OrderEmailFacts {
  return {
    orderNumber: o.id.slice(0, 8).toUpperCase(),
    ...(o.public_token && origin
      ? { orderUrl: `${origin.replace(/\/+$/, '')}/order/${o.public_token}` }
      : {}),
    items: itemsOf(o).map((i) => ({
      name: i.name,
      quantity: i.quantity,
      ...(i.variantLabel ? { variantLabel: i.variantLabel } : {}),
    })),
    totalCents: o.total_cents,
    amountBaseUnits: o.amount_base_units === null ? undefined : BigInt(o.amount_base_units),
    shipping: shippingOf(o) as ShippingInput,
    paymentMethod: o.payment_method,
    solanaPayUrl: o.solana_pay_url ?? '',
  };
}

const TRACKING = /^[\x21-\x7e](?:[\x20-\x7e]{0,62}[\x21-\x7e])?$/;

export function parseShipBody(raw: unknown): { trackingNumber: string; carrier?: string } {
  const body = (raw ?? {}) as Record<string, unknown>;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new DomainError('invalid', 'invalid_request', 'Send the tracking number as JSON.');
  const extra = Object.keys(body).filter((k) => k !== 'trackingNumber' && k !== 'carrier');
  if (extra.length)
    throw new DomainError('invalid', 'invalid_request', `Unknown field ${extra[0]}.`, { field: extra[0] });
  const tracking = typeof body.trackingNumber === 'string' ? body.trackingNumber.trim() : '';
  if (!tracking)
    throw new DomainError('invalid', 'tracking_required', 'The tracking number is required.', {
      field: 'trackingNumber',
    });
  if (!TRACKING.test(tracking))
    throw new DomainError(
      'invalid',
      'invalid_tracking_number',
      'The tracking number must be 1–64 printable characters.',
      { field: 'trackingNumber' },
    );
  const carrierRaw = body.carrier;
  if (carrierRaw !== undefined && typeof carrierRaw !== 'string')
    throw new DomainError('invalid', 'invalid_carrier', 'The carrier must be text.', { field: 'carrier' });
  const carrier = carrierRaw?.trim();
  if (carrier && !TRACKING.test(carrier))
    throw new DomainError('invalid', 'invalid_carrier', 'The carrier must be 1–64 printable characters.', {
      field: 'carrier',
    });
  return { trackingNumber: tracking, ...(carrier ? { carrier } : {}) };
}

function refusedTransition(reason: string): DomainError {
  const messages: Record<string, string> = {
    not_paid_yet: 'Only a fully paid order can be shipped.',
    already_shipped: 'This order has already been shipped.',
    not_shipped: 'Only a shipped order can be marked delivered.',
  };
  return new DomainError('conflict', reason, messages[reason] ?? 'The order cannot do that now.');
}

/** Mark shipped: status `shipped`, the tracking number recorded, the buyer's e-mail queued (same transaction). */
export async function markShipped(
  deps: SellerOrdersDeps,
  seller: { address: string; vendorIds: readonly string[] },
  orderId: string,
  shipment: { trackingNumber: string; carrier?: string },
): Promise<SellerOrderDetail> {
  const at = deps.now().toISOString();
  await deps.store.db.transaction().execute(async (trx) => {
    const o = await ownOrder(trx, seller.vendorIds, orderId);
    const t = transition(o.status, { type: 'ship' });
    if (!t.ok) throw refusedTransition(t.refusal.reason);
    const moved = await trx
      .updateTable('orders')
      .set({ status: t.next, updated_at: at })
      .where('id', '=', o.id)
      .where('status', '=', o.status) // a concurrent change (payment, another click) makes this one retry
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1)
      throw new DomainError('conflict', 'order_changed', 'The order changed meanwhile. Please reload it.');
    await addHistory(trx, o.id, t.next, 'shipped', at);
    await record(trx, o.id, 'shipped', shipment, seller.address, at);
    if (o.shipping_json === null)
      throw new DomainError(
        'conflict',
        'no_shipping_details',
        'This order has no shipping details yet: it cannot be shipped.',
      );
    const mail = buildShippedEmail(factsOf(o, deps.origin?.()), shipment);
    await trx
      .insertInto('outbox')
      .values({
        id: randomUUID(),
        order_id: o.id,
        kind: 'order_shipped',
        role: mail.role,
        recipient_email: mail.to,
        payout_group: o.payout_group,
        payment_seen: 1,
        payload_json: JSON.stringify(mail.payload),
        after_id: null,
        state: 'pending',
        attempts: 0,
        next_attempt_at: at,
        locked_until: null,
        lock_token: null,
        last_error: null,
        delivered_at: null,
        created_at: at,
        payment_signature: '',
      })
      .execute();
  });
  deps.onOutboxChange?.();
  return orderDetail(deps, seller.vendorIds, orderId);
}

export async function markDelivered(
  deps: SellerOrdersDeps,
  seller: { address: string; vendorIds: readonly string[] },
  orderId: string,
): Promise<SellerOrderDetail> {
  const at = deps.now().toISOString();
  await deps.store.db.transaction().execute(async (trx) => {
    const o = await ownOrder(trx, seller.vendorIds, orderId);
    const t = transition(o.status, { type: 'deliver' });
    if (!t.ok) throw refusedTransition(t.refusal.reason);
    if (o.status === t.next) return; // already delivered: nothing to record twice
    await trx.updateTable('orders').set({ status: t.next, updated_at: at }).where('id', '=', o.id).execute();
    await addHistory(trx, o.id, t.next, 'delivered', at);
    await record(trx, o.id, 'delivered', {}, seller.address, at);
  });
  return orderDetail(deps, seller.vendorIds, orderId);
}

/** Re-queues a failed e-mail of the seller's order. */
export async function resendEmail(
  deps: SellerOrdersDeps,
  seller: { address: string; vendorIds: readonly string[] },
  orderId: string,
  emailId: string,
): Promise<SellerOrderDetail> {
  const at = deps.now().toISOString();
  await deps.store.db.transaction().execute(async (trx) => {
    const o = await ownOrder(trx, seller.vendorIds, orderId);
    const row = await trx
      .selectFrom('outbox')
      .select(['id', 'state'])
      .where('id', '=', emailId.slice(0, 128))
      .where('order_id', '=', o.id)
      .executeTakeFirst();
    if (!row) throw new DomainError('not_found', 'email_not_found', 'No such e-mail for this order.');
    if (row.state !== 'failed')
      throw new DomainError('conflict', 'email_not_failed', 'Only a failed e-mail can be sent again.');
    await trx
      .updateTable('outbox')
      .set({ state: 'pending', attempts: 0, next_attempt_at: at, locked_until: null, lock_token: null })
      .where('id', '=', row.id)
      .where('state', '=', 'failed')
      .execute();
    await record(trx, o.id, 'email_resent', { emailId: row.id }, seller.address, at);
  });
  deps.onOutboxChange?.();
  return orderDetail(deps, seller.vendorIds, orderId);
}

/** Records the action the seller took about an exception of the order (it must have that exception). */
export async function resolveException(
  deps: SellerOrdersDeps,
  seller: { address: string; vendorIds: readonly string[] },
  orderId: string,
  raw: unknown,
): Promise<SellerOrderDetail> {
  const body = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const exception = body.exception;
  const note = typeof body.note === 'string' ? body.note.trim() : '';
  if (!SELLER_EXCEPTIONS.includes(exception as SellerException))
    throw new DomainError(
      'invalid',
      'invalid_exception',
      `exception must be one of ${SELLER_EXCEPTIONS.join(', ')}.`,
      { field: 'exception' },
    );
  if (!note || note.length > 500)
    throw new DomainError('invalid', 'note_required', 'Say what you did (1–500 characters).', {
      field: 'note',
    });
  const at = deps.now().toISOString();
  await deps.store.db.transaction().execute(async (trx) => {
    const o = await ownOrder(trx, seller.vendorIds, orderId);
    const extras = await extrasOf(trx, [o.id]);
    if (!exceptionsOf(o, extras.has(o.id)).includes(exception as SellerException))
      throw new DomainError('conflict', 'no_such_exception', 'This order does not have that exception.');
    await record(trx, o.id, 'resolved', { exception: exception as string, note }, seller.address, at);
  });
  return orderDetail(deps, seller.vendorIds, orderId);
}

/**
 * "Mark refunded": checks on chain that the named transaction moved the order's mint from the vendor back to the
 * payer (./refund.ts), then records it (signature, amount) as the seller's action settling `exception`.
 */
export async function markRefunded(
  deps: SellerOrdersDeps,
  seller: { address: string; vendorIds: readonly string[] },
  orderId: string,
  raw: unknown,
): Promise<SellerOrderDetail> {
  const { exception, signature } = parseRefundBody(raw);
  const db = deps.store.db;
  const o = await ownOrder(db, seller.vendorIds, orderId);
  const extras = await extrasOf(db, [o.id]);
  if (!exceptionsOf(o, extras.has(o.id)).includes(exception))
    throw new DomainError('conflict', 'no_such_exception', 'This order does not have that exception.');
  if ((await resolvedOf(db, [o.id])).get(o.id)?.includes(exception))
    throw new DomainError('conflict', 'already_resolved', 'This exception is already resolved.');
  if (await recordedRefund(db, signature))
    throw new DomainError(
      'conflict',
      'refund_already_recorded',
      'This refund transaction is already recorded.',
      { field: 'signature' },
    );
  if (!deps.rpc)
    throw new DomainError(
      'unavailable',
      'rpc_unavailable',
      'Refunds cannot be checked: this store has no Solana RPC.',
    );
  const payments = await db
    .selectFrom('payments')
    .select(['signature', 'slot'])
    .where('order_id', '=', o.id)
    .orderBy('seq')
    .execute();
  const amount = await checkRefund(deps.rpc, {
    order: { id: o.id, recipient: o.recipient, mint: o.mint },
    payments: payments.map((p) => ({
      signature: p.signature,
      slot: p.slot === null ? null : Number(p.slot),
    })),
    signature,
  });
  await recordRefund(deps.store, {
    orderId: o.id,
    exception,
    signature,
    amountBaseUnits: amount,
    address: seller.address,
    at: deps.now().toISOString(),
  });
  return orderDetail(deps, seller.vendorIds, o.id);
}

/** RFC 4180 CSV of order summaries; cells starting with = + - @ are quoted with a leading ' (no formulas). */
export function ordersCsv(orders: SellerOrderSummary[]): string {
  const cell = (v: string | number): string => {
    let s = String(v);
    if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  const header = [
    'order',
    'created_at',
    'status',
    'vendor',
    'payment',
    'buyer_name',
    'buyer_email',
    'product',
    'total_usd',
    'amount_base_units',
    'received_base_units',
    'exceptions',
  ];
  const lines = orders.map((o) =>
    [
      o.orderId,
      o.createdAt,
      o.status,
      o.vendorId,
      o.paymentMethod,
      o.buyerName,
      o.buyerEmail,
      o.product,
      formatCents(o.totalCents),
      o.amountBaseUnits ?? '',
      o.receivedBaseUnits,
      o.exceptions.join(' '),
    ]
      .map(cell)
      .join(','),
  );
  return [header.join(','), ...lines].join('\r\n') + '\r\n';
}
