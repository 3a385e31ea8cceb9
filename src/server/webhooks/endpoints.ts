/**
 * A vendor's webhook endpoints, for the seller console (src/server/http/webhook-routes.ts): list, add (the secret
 * answered once), change, pause and resume, rotate the secret (the previous one keeps signing for a day), delete,
 * send a test event, read the delivery log and resend a delivery. Every operation is scoped to the signed-in
 * wallet's vendors: another vendor's endpoint is "not found". Secrets are sealed at rest (field webhook.secret,
 * bound to the endpoint), and only creation and rotation answer with one.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { DomainError } from '../../core/errors';
import { WEBHOOK_EVENT_VERSION } from '../../core/webhook-events';
import type {
  WebhookCreateBody,
  WebhookDeliveriesView,
  WebhookDeliveryView,
  WebhookEndpointView,
  WebhookEndpointWithSecret,
  WebhookPatchBody,
} from '../../core/webhook-api';
import type { Sealer } from '../privacy/seal';
import type { Database, WebhookEndpointRow } from '../store/schema';
import { checkDestination, DestinationRefused, type DestinationPolicy } from './address';
import { insertDelivery, RETRY_FOR_MS } from './queue';
import { newSecret } from './sign';

export interface EndpointDeps {
  db: Kysely<Database>;
  sealer: Sealer;
  policy: DestinationPolicy;
  now: () => Date;
  /** A delivery was queued or made due (the sender runs soon). */
  onQueued?: () => void;
}

/** Endpoints per vendor. */
export const MAX_ENDPOINTS = 10;
/** The previous secret keeps signing this long after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 3600_000;

const notFound = () => new DomainError('not_found', 'webhook_not_found', 'No such webhook endpoint.');

function viewOf(e: WebhookEndpointRow, waiting: number): WebhookEndpointView {
  return {
    id: e.id,
    vendorId: e.vendor_id,
    url: e.url,
    events: JSON.parse(e.events_json) as WebhookEndpointView['events'],
    includeShipping: Number(e.include_shipping) === 1,
    state: e.state as WebhookEndpointView['state'],
    stateReason: (e.state_reason ?? null) as WebhookEndpointView['stateReason'],
    failingSince: e.failing_since,
    previousSecretUntil: e.previous_secret ? e.previous_secret_until : null,
    createdAt: e.created_at,
    waiting,
  };
}

async function waitingOf(db: Kysely<Database>, ids: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (ids.length === 0) return out;
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select(['endpoint_id', (eb) => eb.fn.countAll<string | number>().as('n')])
    .where('endpoint_id', 'in', ids)
    .where('state', 'in', ['pending', 'retrying'])
    .groupBy('endpoint_id')
    .execute();
  for (const r of rows) out.set(r.endpoint_id, Number(r.n));
  return out;
}

async function ownEndpoint(deps: EndpointDeps, vendorIds: readonly string[], id: string) {
  if (vendorIds.length === 0 || id.length > 64) throw notFound();
  const row = await deps.db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', id)
    .where('vendor_id', 'in', [...vendorIds])
    .executeTakeFirst();
  if (!row) throw notFound();
  return row;
}

async function checkedUrl(deps: EndpointDeps, raw: string): Promise<string> {
  try {
    return (await checkDestination(raw, deps.policy)).toString();
  } catch (err) {
    if (err instanceof DestinationRefused)
      throw new DomainError('invalid', 'webhook_url_refused', err.message, { field: 'url' });
    throw err;
  }
}

export async function listEndpoints(
  deps: EndpointDeps,
  vendorIds: readonly string[],
): Promise<{ endpoints: WebhookEndpointView[] }> {
  if (vendorIds.length === 0) return { endpoints: [] };
  const rows = await deps.db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('vendor_id', 'in', [...vendorIds])
    .orderBy('created_at')
    .execute();
  const waiting = await waitingOf(
    deps.db,
    rows.map((r) => r.id),
  );
  return { endpoints: rows.map((r) => viewOf(r, waiting.get(r.id) ?? 0)) };
}

export async function createEndpoint(
  deps: EndpointDeps,
  vendorIds: readonly string[],
  body: WebhookCreateBody,
): Promise<WebhookEndpointWithSecret> {
  const vendorId = body.vendorId ?? (vendorIds.length === 1 ? vendorIds[0] : undefined);
  if (vendorId === undefined || !vendorIds.includes(vendorId))
    throw new DomainError(
      'invalid',
      'webhook_vendor_needed',
      vendorIds.length > 1
        ? 'Name which of your shops the endpoint is for.'
        : 'This wallet pays out for no shop.',
      { field: 'vendorId' },
    );
  const url = await checkedUrl(deps, body.url);
  const count = await deps.db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('vendor_id', '=', vendorId)
    .executeTakeFirst();
  if (Number(count?.n ?? 0) >= MAX_ENDPOINTS)
    throw new DomainError(
      'conflict',
      'webhook_limit',
      `A shop can have ${MAX_ENDPOINTS} webhook endpoints; delete one first.`,
    );
  const id = `ep_${randomBytes(12).toString('base64url')}`;
  const secret = newSecret();
  const at = deps.now().toISOString();
  const row: WebhookEndpointRow = {
    id,
    vendor_id: vendorId,
    url,
    events_json: JSON.stringify(body.events?.length ? [...new Set(body.events)] : ['*']),
    include_shipping: body.includeShipping === false ? 0 : 1,
    secret: deps.sealer.seal(secret, id, 'webhook.secret'),
    previous_secret: null,
    previous_secret_until: null,
    state: 'active',
    state_reason: null,
    failing_since: null,
    created_at: at,
    updated_at: at,
  };
  await deps.db.insertInto('webhook_endpoints').values(row).execute();
  return { endpoint: viewOf(row, 0), secret };
}

export async function updateEndpoint(
  deps: EndpointDeps,
  vendorIds: readonly string[],
  id: string,
  body: WebhookPatchBody,
): Promise<WebhookEndpointView | WebhookEndpointWithSecret> {
  const before = await ownEndpoint(deps, vendorIds, id);
  const at = deps.now();
  const atIso = at.toISOString();
  const set: Partial<WebhookEndpointRow> = { updated_at: atIso };
  if (body.url !== undefined) set.url = await checkedUrl(deps, body.url);
  if (body.events !== undefined)
    set.events_json = JSON.stringify(body.events.length ? [...new Set(body.events)] : ['*']);
  if (body.includeShipping !== undefined) set.include_shipping = body.includeShipping ? 1 : 0;
  if (body.paused === true) {
    set.state = 'paused';
    set.state_reason = 'vendor';
  } else if (body.paused === false) {
    set.state = 'active';
    set.state_reason = null;
    set.failing_since = null;
  }
  let secret: string | undefined;
  if (body.rotateSecret) {
    secret = newSecret();
    set.secret = deps.sealer.seal(secret, id, 'webhook.secret');
    set.previous_secret = before.secret;
    set.previous_secret_until = new Date(at.getTime() + ROTATION_OVERLAP_MS).toISOString();
  }
  await deps.db.updateTable('webhook_endpoints').set(set).where('id', '=', before.id).execute();
  if (body.paused === false) deps.onQueued?.();
  const after = await ownEndpoint(deps, vendorIds, id);
  const view = viewOf(after, (await waitingOf(deps.db, [id])).get(id) ?? 0);
  return secret !== undefined ? { endpoint: view, secret } : view;
}

/** Deletes the endpoint with its delivery log (nothing more is sent to it). */
export async function deleteEndpoint(
  deps: EndpointDeps,
  vendorIds: readonly string[],
  id: string,
): Promise<void> {
  const ep = await ownEndpoint(deps, vendorIds, id);
  await deps.db.transaction().execute(async (trx) => {
    await trx
      .deleteFrom('webhook_attempts')
      .where('delivery_id', 'in', (eb) =>
        eb.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', ep.id),
      )
      .execute();
    await trx.deleteFrom('webhook_deliveries').where('endpoint_id', '=', ep.id).execute();
    await trx.deleteFrom('webhook_endpoints').where('id', '=', ep.id).execute();
  });
}

/** Queues a `webhook.test` event for this endpoint alone (whatever it subscribes to). */
export async function sendTestEvent(
  deps: EndpointDeps,
  vendorIds: readonly string[],
  id: string,
): Promise<WebhookDeliveryView> {
  const ep = await ownEndpoint(deps, vendorIds, id);
  const at = deps.now().toISOString();
  const body = JSON.stringify({
    type: 'webhook.test',
    version: WEBHOOK_EVENT_VERSION,
    timestamp: at,
    data: { message: 'A test event from the $CLAIM store: your endpoint receives and verifies webhooks.' },
  });
  const deliveryId = await insertDelivery(deps.db, deps.sealer, {
    endpointId: ep.id,
    vendorId: ep.vendor_id,
    orderId: null,
    type: 'webhook.test',
    body,
    at,
  });
  deps.onQueued?.();
  const d = await deps.db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('id', '=', deliveryId)
    .executeTakeFirstOrThrow();
  return deliveryViewOf(d);
}

function deliveryViewOf(d: {
  id: string;
  event_type: string;
  order_id: string | null;
  state: string;
  attempts: number;
  last_status: number | null;
  last_attempt_at: string | null;
  last_error: string | null;
  next_attempt_at: string;
  created_at: string;
  delivered_at: string | null;
}): WebhookDeliveryView {
  const waiting = d.state === 'pending' || d.state === 'retrying';
  return {
    id: d.id,
    eventType: d.event_type,
    orderId: d.order_id,
    state: d.state as WebhookDeliveryView['state'],
    attempts: Number(d.attempts),
    lastStatus: d.last_status === null ? null : Number(d.last_status),
    lastAttemptAt: d.last_attempt_at,
    lastError: d.last_error,
    nextAttemptAt: waiting ? d.next_attempt_at : null,
    createdAt: d.created_at,
    deliveredAt: d.delivered_at,
  };
}

/** The endpoint's latest deliveries, newest first (at most `limit`). */
export async function listDeliveries(
  deps: EndpointDeps,
  vendorIds: readonly string[],
  id: string,
  limit = 50,
): Promise<WebhookDeliveriesView> {
  const ep = await ownEndpoint(deps, vendorIds, id);
  const rows = await deps.db
    .selectFrom('webhook_deliveries')
    .select([
      'id',
      'event_type',
      'order_id',
      'state',
      'attempts',
      'last_status',
      'last_attempt_at',
      'last_error',
      'next_attempt_at',
      'created_at',
      'delivered_at',
    ])
    .where('endpoint_id', '=', ep.id)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(Math.min(200, Math.max(1, limit)))
    .execute();
  return { deliveries: rows.map(deliveryViewOf) };
}

/**
 * Sends a delivery again, with the same `webhook-id` (a receiver that has it already may drop it): due now, and
 * retried for another three days. Its earlier attempts stay in the log.
 */
export async function resendDelivery(
  deps: EndpointDeps,
  vendorIds: readonly string[],
  id: string,
  deliveryId: string,
): Promise<WebhookDeliveryView> {
  const ep = await ownEndpoint(deps, vendorIds, id);
  const at = deps.now();
  const d = await deps.db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('id', '=', deliveryId.slice(0, 64))
    .where('endpoint_id', '=', ep.id)
    .executeTakeFirst();
  if (!d) throw new DomainError('not_found', 'delivery_not_found', 'No such delivery for this endpoint.');
  if (d.payload_json === 'erased')
    throw new DomainError(
      'conflict',
      'delivery_erased',
      'This event was erased with the buyer’s details: it cannot be sent again.',
    );
  await deps.db
    .updateTable('webhook_deliveries')
    .set({
      state: d.state === 'retrying' ? 'retrying' : 'pending',
      next_attempt_at: at.toISOString(),
      retry_until: new Date(at.getTime() + RETRY_FOR_MS).toISOString(),
    })
    .where('id', '=', d.id)
    .execute();
  deps.onQueued?.();
  const after = await deps.db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('id', '=', d.id)
    .executeTakeFirstOrThrow();
  return deliveryViewOf(after);
}
