/**
 * The buyer's personal data, from the order page (the capability link is the only key):
 *
 * - GET    /api/order-pages/:token/data     "Download my data": JSON of everything kept (attachment);
 * - DELETE /api/order-pages/:token/details  "Delete my details" (409 order_will_ship before shipping);
 * - POST   /api/order-pages/:token/cancel   "Cancel instead" before shipping.
 *
 * Every unknown or malformed token is the same 404 as the order page's. All three are rate-limited per client
 * IP like the order page (security.ts). The token never reaches a log line (redact.ts).
 */
import type { FastifyInstance } from 'fastify';
import { DomainError } from '../../core/errors';
import type { OrderService } from '../orders/service';
import { pageTokenParam } from './validate';

export interface PrivacyRoutesDeps {
  orders: Pick<OrderService, 'exportMyData' | 'deleteMyDetails' | 'cancelInstead'>;
}

const notFound = () => new DomainError('not_found', 'order_not_found', 'No such order.');

export async function privacyRoutes(app: FastifyInstance, deps: PrivacyRoutesDeps): Promise<void> {
  app.get('/api/order-pages/:token/data', async (req, reply) => {
    const data = await deps.orders.exportMyData(pageTokenParam(req.params));
    if (!data) throw notFound();
    return reply
      .header('cache-control', 'no-store')
      .header('x-robots-tag', 'noindex')
      .header('content-disposition', `attachment; filename="order-${data.order.number}-my-data.json"`)
      .send(data);
  });

  app.delete('/api/order-pages/:token/details', async (req, reply) => {
    const view = await deps.orders.deleteMyDetails(pageTokenParam(req.params));
    if (!view) throw notFound();
    return reply.header('cache-control', 'no-store').send(view);
  });

  app.post('/api/order-pages/:token/cancel', async (req, reply) => {
    const view = await deps.orders.cancelInstead(pageTokenParam(req.params));
    if (!view) throw notFound();
    return reply.header('cache-control', 'no-store').send(view);
  });
}
