/**
 * The seller console's webhooks (issue 35): `/api/seller/webhooks` (GET the vendor's endpoints; POST `{url,
 * events?, includeShipping?, vendorId?}` adds one and answers its secret, the only time it is shown),
 * `/api/seller/webhooks/:id` (PATCH: url, events, includeShipping, paused, rotateSecret; DELETE),
 * `/api/seller/webhooks/:id/test` (a test event), `/api/seller/webhooks/:id/deliveries` (the log) and
 * `…/deliveries/:deliveryId/resend`. Registered inside the seller routes' scope (session, CSRF, no-store), so
 * every route sees only the signed-in wallet's vendors' endpoints.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES } from '../../core/webhook-events';
import { DomainError } from '../../core/errors';
import {
  createEndpoint,
  deleteEndpoint,
  listDeliveries,
  listEndpoints,
  resendDelivery,
  sendTestEvent,
  updateEndpoint,
  type EndpointDeps,
} from '../webhooks/endpoints';
import { optionalBody, parseWith } from './validate';

const URL_WORDS = 'Give the endpoint’s full address, starting with https://.';
const url = z
  .string({ required_error: URL_WORDS, invalid_type_error: URL_WORDS })
  .trim()
  .min(1, URL_WORDS)
  .max(2048, 'A webhook URL may be at most 2048 characters long.');
const EVENTS_WORDS = `Events are a list of: ${WEBHOOK_EVENT_TYPES.join(', ')} (or "*" for all).`;
const events = z
  .array(z.enum(['*', ...WEBHOOK_EVENT_TYPES], { errorMap: () => ({ message: EVENTS_WORDS }) }), {
    invalid_type_error: EVENTS_WORDS,
  })
  .max(WEBHOOK_EVENT_TYPES.length + 1, EVENTS_WORDS);
const includeShipping = z.boolean({ invalid_type_error: 'includeShipping is true or false.' });

const CreateBody = z
  .object({
    url,
    events: events.optional(),
    includeShipping: includeShipping.optional(),
    vendorId: z.string().max(100).optional(),
  })
  .strict();

const PatchBody = z
  .object({
    url: url.optional(),
    events: events.optional(),
    includeShipping: includeShipping.optional(),
    paused: z.boolean({ invalid_type_error: 'paused is true or false.' }).optional(),
    rotateSecret: z.literal(true, { errorMap: () => ({ message: 'rotateSecret is true.' }) }).optional(),
  })
  .strict();

const ID = /^[A-Za-z0-9_-]{1,64}$/;
const EndpointParams = z.object({ id: z.string().regex(ID) }).passthrough();
const DeliveryParams = z.object({ id: z.string().regex(ID), deliveryId: z.string().regex(ID) });
const DeliveriesQuery = z.object({ limit: z.coerce.number().int().min(1).max(200).optional() }).strict();

const noEndpoint = () => new DomainError('not_found', 'webhook_not_found', 'No such webhook endpoint.');

export function webhookRoutes(
  scope: FastifyInstance,
  deps: EndpointDeps,
  vendorIds: (req: FastifyRequest) => string[],
): void {
  const idOf = (req: FastifyRequest) =>
    parseWith(EndpointParams, req.params, { whole: 'No such webhook endpoint.', refuse: noEndpoint }).id;

  scope.get('/api/seller/webhooks', async (req) => listEndpoints(deps, vendorIds(req)));

  scope.post('/api/seller/webhooks', async (req, reply) => {
    const body = parseWith(CreateBody, req.body, {
      whole: 'Send the endpoint as JSON: {"url": "https://…", "events": […]}.',
      codes: { url: 'invalid_webhook_url', events: 'invalid_webhook_events' },
    });
    const created = await createEndpoint(deps, vendorIds(req), {
      url: body.url,
      ...(body.events ? { events: body.events } : {}),
      ...(body.includeShipping !== undefined ? { includeShipping: body.includeShipping } : {}),
      ...(body.vendorId !== undefined ? { vendorId: body.vendorId } : {}),
    });
    return reply.code(201).send(created);
  });

  scope.patch('/api/seller/webhooks/:id', async (req) => {
    const id = idOf(req);
    const body = parseWith(PatchBody, optionalBody(req.body), {
      whole: 'Send the changes as JSON.',
      codes: { url: 'invalid_webhook_url', events: 'invalid_webhook_events' },
    });
    return updateEndpoint(deps, vendorIds(req), id, {
      ...(body.url !== undefined ? { url: body.url } : {}),
      ...(body.events !== undefined ? { events: body.events } : {}),
      ...(body.includeShipping !== undefined ? { includeShipping: body.includeShipping } : {}),
      ...(body.paused !== undefined ? { paused: body.paused } : {}),
      ...(body.rotateSecret ? { rotateSecret: true as const } : {}),
    });
  });

  scope.delete('/api/seller/webhooks/:id', async (req) => {
    await deleteEndpoint(deps, vendorIds(req), idOf(req));
    return { ok: true };
  });

  scope.post('/api/seller/webhooks/:id/test', async (req) => ({
    delivery: await sendTestEvent(deps, vendorIds(req), idOf(req)),
  }));

  scope.get('/api/seller/webhooks/:id/deliveries', async (req) => {
    const id = idOf(req);
    const q = parseWith(DeliveriesQuery, req.query, { whole: 'limit is a number from 1 to 200.' });
    return listDeliveries(deps, vendorIds(req), id, q.limit);
  });

  scope.post('/api/seller/webhooks/:id/deliveries/:deliveryId/resend', async (req) => {
    const p = parseWith(DeliveryParams, req.params, {
      whole: 'No such delivery.',
      refuse: () => new DomainError('not_found', 'delivery_not_found', 'No such delivery for this endpoint.'),
    });
    return { delivery: await resendDelivery(deps, vendorIds(req), p.id, p.deliveryId) };
  });
}
