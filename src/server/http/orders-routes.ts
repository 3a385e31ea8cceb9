/**
 * Thin routes over the quote and order services. Every input is validated (zod) before anything happens; every
 * refusal is an ApiProblem with the ApiError body of src/core/api.ts.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { OrderService } from '../orders/service';
import { issueQuote, type QuoteDeps } from '../orders/quotes';
import { ApiProblem } from './errors';

export interface OrderRoutesDeps {
  orders: OrderService;
  quotes: QuoteDeps;
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,128}$/;
const HintSchema = z
  .object({ signature: z.string({ required_error: 'signature is required' }).min(1).max(128) })
  .strict();

function idOf(params: unknown): string {
  const id = (params as { id?: unknown }).id;
  if (typeof id !== 'string')
    throw new ApiProblem(400, 'invalid_order_id', 'That is not an order id.', { field: 'id' });
  return id;
}

export async function orderRoutes(app: FastifyInstance, deps: OrderRoutesDeps): Promise<void> {
  app.post('/api/quotes', async (req, reply) => {
    const { response } = issueQuote(deps.quotes, req.body);
    return reply.header('cache-control', 'no-store').status(200).send(response);
  });

  app.post('/api/orders', async (req, reply) => {
    const raw = req.headers['idempotency-key'];
    const key = Array.isArray(raw) ? undefined : raw;
    if (key === undefined || !IDEMPOTENCY_KEY.test(key)) {
      throw new ApiProblem(
        400,
        'idempotency_key_required',
        'The Idempotency-Key header is required (1–128 visible ASCII characters).',
        {
          field: 'Idempotency-Key',
        },
      );
    }
    const result = await deps.orders.createOrder(req.body, key);
    return reply
      .header('cache-control', 'no-store')
      .header('idempotent-replayed', String(result.replayed))
      .status(result.status)
      .send(result.body);
  });

  app.get('/api/orders/:id', async (req, reply) => {
    const order = await deps.orders.getOrder(idOf(req.params));
    if (!order) throw new ApiProblem(404, 'order_not_found', 'No such order.');
    return reply.header('cache-control', 'no-store').send(order);
  });

  app.post('/api/orders/:id/confirmation', async (req, reply) => {
    if (
      req.body !== undefined &&
      req.body !== null &&
      (typeof req.body !== 'object' || Object.keys(req.body).length > 0)
    ) {
      throw new ApiProblem(400, 'invalid_request', 'This request takes no body fields.');
    }
    const order = await deps.orders.requestConfirmation(idOf(req.params));
    return reply.header('cache-control', 'no-store').send(order);
  });

  app.post('/api/orders/:id/payment', async (req, reply) => {
    const id = idOf(req.params);
    const body = HintSchema.safeParse(req.body);
    if (!body.success) {
      throw new ApiProblem(
        400,
        'invalid_signature',
        body.error.issues[0]?.message ?? 'signature is required',
        { field: 'signature' },
      );
    }
    const order = await deps.orders.paymentHint(id, body.data.signature);
    return reply.header('cache-control', 'no-store').status(202).send(order);
  });
}
