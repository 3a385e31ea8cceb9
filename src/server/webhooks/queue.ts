/**
 * The webhooks' writes other modules ask for in their own transaction (as the outbox's, ../mail/queue.ts): the
 * order module queues an event in the same transaction as the change that caused it, one delivery per endpoint of
 * the vendor that wants the event type. The body is built here once per endpoint (the shipping address left out
 * where the endpoint says so) and sealed at rest: it may quote the buyer's name and address.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import {
  WEBHOOK_EVENT_VERSION,
  type WebhookAnyType,
  type WebhookEnvelope,
  type WebhookOrderData,
  type WebhookShipping,
  type WebhookStockData,
} from '../../core/webhook-events';
import type { Sealer } from '../privacy/seal';
import type { Database } from '../store/schema';

type Db = Kysely<Database> | Transaction<Database>;

/** Deliveries are retried for this long after they were queued (or resent): about three days. */
export const RETRY_FOR_MS = 3 * 24 * 3600_000;

/** `msg_…`: the `webhook-id` of every attempt of one delivery. */
export const newMessageId = () => `msg_${randomBytes(16).toString('base64url')}`;

export type QueuedEvent =
  | {
      type: WebhookAnyType;
      vendorId: string;
      orderId: string;
      data: WebhookOrderData;
      /** The buyer's name and address, added only for endpoints that want them. */
      shipping?: WebhookShipping;
      at: string;
    }
  | { type: 'stock.sold_out'; vendorId: string; orderId?: undefined; data: WebhookStockData; at: string };

/** The JSON body of an event for one endpoint. */
export function eventBody(e: QueuedEvent, includeShipping: boolean): string {
  let data: WebhookEnvelope['data'] = e.data;
  if (e.orderId !== undefined && includeShipping && e.shipping)
    data = { ...e.data, order: { ...e.data.order, shipping: e.shipping } };
  const envelope: WebhookEnvelope = { type: e.type, version: WEBHOOK_EVENT_VERSION, timestamp: e.at, data };
  return JSON.stringify(envelope);
}

export function wantsEvent(eventsJson: string, type: string): boolean {
  try {
    const list = JSON.parse(eventsJson) as unknown;
    return Array.isArray(list) && (list.includes('*') || list.includes(type));
  } catch {
    return false;
  }
}

/**
 * Queues `e` for every endpoint of its vendor that wants it (active or paused: a paused endpoint gets them when it
 * is resumed; a disabled one gets nothing). Returns how many deliveries were queued.
 */
export async function queueWebhookEvent(q: Db, sealer: Sealer, e: QueuedEvent): Promise<number> {
  const endpoints = await q
    .selectFrom('webhook_endpoints')
    .select(['id', 'events_json', 'include_shipping'])
    .where('vendor_id', '=', e.vendorId)
    .where('state', '<>', 'disabled')
    .execute();
  let n = 0;
  for (const ep of endpoints) {
    if (!wantsEvent(ep.events_json, e.type)) continue;
    await insertDelivery(q, sealer, {
      endpointId: ep.id,
      vendorId: e.vendorId,
      orderId: e.orderId ?? null,
      type: e.type,
      body: eventBody(e, Number(ep.include_shipping) === 1),
      at: e.at,
    });
    n++;
  }
  return n;
}

/** One delivery, pending, due at once. */
export async function insertDelivery(
  q: Db,
  sealer: Sealer,
  d: { endpointId: string; vendorId: string; orderId: string | null; type: string; body: string; at: string },
): Promise<string> {
  const id = newMessageId();
  await q
    .insertInto('webhook_deliveries')
    .values({
      id,
      endpoint_id: d.endpointId,
      vendor_id: d.vendorId,
      order_id: d.orderId,
      event_type: d.type,
      payload_json: sealer.seal(d.body, id, 'webhook.payload'),
      state: 'pending',
      attempts: 0,
      next_attempt_at: d.at,
      retry_until: new Date(Date.parse(d.at) + RETRY_FOR_MS).toISOString(),
      locked_until: null,
      lock_token: null,
      last_status: null,
      last_attempt_at: null,
      last_error: null,
      created_at: d.at,
      delivered_at: null,
    })
    .execute();
  return id;
}

/**
 * Something announced once (an order's exception opened, a stock line sold out at one change): true the first
 * time `key` is noted, false after (in the caller's transaction, so a rolled-back change notes nothing).
 */
export async function noteOnce(q: Db, key: string, at: string): Promise<boolean> {
  const res = await q
    .insertInto('webhook_notes')
    .values({ key: key.slice(0, 300), at })
    .onConflict((oc) => oc.column('key').doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export const ERASED_PAYLOAD = 'erased';

/**
 * The order's personal data is erased: every delivery body of the order becomes `erased`, and deliveries not yet
 * made are given up (the worker would fail them anyway: an erased body cannot be sent).
 */
export async function eraseWebhooksOf(q: Db, orderId: string): Promise<void> {
  await q
    .updateTable('webhook_deliveries')
    .set({
      state: 'failed',
      last_error: 'The event was erased with the buyer’s details before it was delivered.',
      locked_until: null,
      lock_token: null,
    })
    .where('order_id', '=', orderId)
    .where('state', 'in', ['pending', 'retrying'])
    .execute();
  await q
    .updateTable('webhook_deliveries')
    .set({ payload_json: ERASED_PAYLOAD })
    .where('order_id', '=', orderId)
    .execute();
}
