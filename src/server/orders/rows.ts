/** Row access shared by the order service's parts: load (locked on PostgreSQL), ledger, history, watcher view. */
import { openShipping } from '../privacy/order-data';
import type { Sealer } from '../privacy/seal';
import { randomUUID } from 'node:crypto';
import { sql, type Insertable, type RawBuilder, type Transaction } from 'kysely';
import type { OrderStatus } from '../../core/api';
import type { ShippingInput } from '../../core/order';
import type { Database, IdempotencyTable, OrderRow, OrdersTable, PaymentRow } from '../store/schema';
import { DomainError } from '../../core/errors';
import {
  ORDER_ID,
  type Db,
  type StoredItem,
  type OrderContext,
  type PaymentTarget,
  type WatchedOrder,
} from './types';

/** Unpriced QR orders (no amount) are never payment-watched: nothing to verify a payment against. */
export const toWatched = (
  o: OrderRow & { amount_base_units: string },
  ledger: PaymentRow[],
): WatchedOrder => ({
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

export async function ledgerOf(q: Db, orderId: string): Promise<PaymentRow[]> {
  return q.selectFrom('payments').selectAll().where('order_id', '=', orderId).orderBy('seq').execute();
}

export const sumOf = (ledger: PaymentRow[]): bigint =>
  ledger.reduce((sum, p) => sum + BigInt(p.received_base_units), 0n);

export const isPriced = (o: OrderRow): o is OrderRow & { amount_base_units: string } =>
  o.amount_base_units !== null;

export async function loadOrder(
  ctx: OrderContext,
  q: Db,
  target: PaymentTarget,
  lock: boolean,
): Promise<OrderRow | undefined> {
  let sel = q.selectFrom('orders').selectAll();
  sel =
    'orderId' in target
      ? sel.where('id', '=', target.orderId)
      : sel.where('reference', '=', target.reference);
  if (lock && ctx.isPg) sel = sel.forUpdate();
  return sel.executeTakeFirst();
}

/**
 * Appends a status change to the order's history, numbered 1, 2, … per order. One statement (the number is
 * read and written together): callers hold the order's row, and on PostgreSQL a round trip less inside the
 * order transactions.
 */
export async function addHistory(
  q: Db,
  orderId: string,
  status: OrderStatus,
  event: string,
  at: string,
): Promise<void> {
  await q
    .insertInto('order_history')
    .columns(['id', 'order_id', 'seq', 'status', 'event', 'at'])
    .expression((eb) =>
      eb
        .selectFrom('order_history')
        .select([
          sql<string>`cast(${randomUUID()} as text)`.as('id'),
          sql<string>`cast(${orderId} as text)`.as('order_id'),
          sql<number>`coalesce(max(seq), 0) + 1`.as('seq'),
          sql<string>`cast(${status} as text)`.as('status'),
          sql<string>`cast(${event} as text)`.as('event'),
          sql<string>`cast(${at} as text)`.as('at'),
        ])
        .where('order_id', '=', orderId),
    )
    .execute();
}

/**
 * A new order's row, its first history entry (numbered 1) and its Idempotency-Key's row (the stored answer),
 * in the order's transaction. PostgreSQL: one statement (the history row is inserted from the order insert's
 * `returning`, the key's row in a CTE beside it), round trips fewer while a drop's orders wait their turn for the
 * cores; SQLite (one writer, no insert in a WITH): one statement each.
 * `read` (PostgreSQL): a select of one row that the same statement carries after its writes (another module's read,
 * e.g. the hold's facts, stock/hold-facts.ts), its row returned: one round trip for both. It runs on the statement's
 * snapshot, so it does not see this order's rows.
 */
export async function insertOrder<R>(
  trx: Transaction<Database>,
  isPg: boolean,
  row: Insertable<OrdersTable> & { id: string },
  status: OrderStatus,
  event: string,
  at: string,
  key: Insertable<IdempotencyTable>,
  read?: RawBuilder<R>,
): Promise<R | undefined> {
  if (!isPg) {
    await trx.insertInto('orders').values(row).execute();
    await addHistory(trx, row.id, status, event, at);
    await trx.insertInto('idempotency_keys').values(key).execute();
    return undefined;
  }
  if (read) {
    const { rows } = await sql<R>`
      with o as (${trx.insertInto('orders').values(row).returning('id')}),
        k as (${trx.insertInto('idempotency_keys').values(key)}),
        h as (insert into order_history (id, order_id, seq, status, event, at)
          select cast(${randomUUID()} as text), o.id, 1, cast(${status} as text), cast(${event} as text),
            cast(${at} as text)
          from o)
      ${read}`.execute(trx);
    return rows[0];
  }
  await trx
    .with('o', (db) => db.insertInto('orders').values(row).returning('id'))
    .with('k', (db) => db.insertInto('idempotency_keys').values(key).returning('key'))
    .insertInto('order_history')
    .columns(['id', 'order_id', 'seq', 'status', 'event', 'at'])
    .expression((eb) =>
      eb
        .selectFrom('o')
        .select([
          sql<string>`cast(${randomUUID()} as text)`.as('id'),
          'o.id',
          sql<number>`1`.as('seq'),
          sql<string>`cast(${status} as text)`.as('status'),
          sql<string>`cast(${event} as text)`.as('event'),
          sql<string>`cast(${at} as text)`.as('at'),
        ]),
    )
    .execute();
  return undefined;
}

/** The stored answer of an Idempotency-Key, replaced in the order's transaction (its hold decided otherwise). */
export async function replaceAnswer(
  trx: Transaction<Database>,
  key: string,
  responseJson: string,
): Promise<void> {
  await trx
    .updateTable('idempotency_keys')
    .set({ response_json: responseJson })
    .where('key', '=', key)
    .execute();
}

export function checkOrderId(orderId: string): void {
  if (!ORDER_ID.test(orderId))
    throw new DomainError('invalid', 'invalid_order_id', 'That is not an order id.', { field: 'id' });
}

/** The base URL of the buyer's order pages (PUBLIC_URL, or what the server bound in tests on port 0). */
export function publicBase(ctx: OrderContext): string {
  return (ctx.deps.publicUrl?.() ?? ctx.deps.settings.publicUrl).replace(/\/+$/, '');
}

/** The buyer's order page of an order (every order has a token since migration 0007). */
export function orderUrlOf(ctx: OrderContext, o: Pick<OrderRow, 'public_token'>): string {
  return `${publicBase(ctx)}/order/${o.public_token ?? ''}`;
}

/** The short order number the pages and e-mails show (one rule, shared with the browser). */
export { orderNumberOf } from '../../core/order-number';

/** The order's items as stored at creation. */
export function itemsOf(o: Pick<OrderRow, 'items_json'>): StoredItem[] {
  return JSON.parse(o.items_json) as StoredItem[];
}

/** The buyer's shipping details; undefined for a QR record paid before its details arrived (NULL). */
export function shippingOf(
  sealer: Sealer,
  o: Pick<OrderRow, 'id' | 'shipping_json'>,
): ShippingInput | undefined {
  // Sealed (src/server/privacy): undefined too when erased or unreadable (no e-mail can quote them).
  const opened = openShipping(sealer, o.id, o.shipping_json);
  return opened.state === 'given' ? opened.shipping : undefined;
}
