import type { FastifyPluginAsync } from 'fastify';
import type { PriceService } from '../price/service';

export interface PricePluginOptions {
  service: PriceService;
}

/**
 * GET /api/price and GET /api/price/history. Reads the service's precomputed body; never calls upstream.
 * A price older than 60 s is still served with its ageSeconds (the page shows it; quotes refuse it); past the
 * service's serve limit (15 min) the answer is 503 price_unavailable.
 */
export const pricePlugin: FastifyPluginAsync<PricePluginOptions> = async (app, opts) => {
  const { service } = opts;
  app.get('/api/price', (_req, reply) => {
    const r = service.priceResponse();
    return reply
      .status(r.status)
      .header('content-type', 'application/json; charset=utf-8')
      .header('cache-control', r.status === 200 ? 'public, max-age=5' : 'no-store')
      .send(r.body);
  });
  app.get('/api/price/history', (_req, reply) =>
    reply
      .header('content-type', 'application/json; charset=utf-8')
      .header('cache-control', 'public, max-age=5')
      .send(service.historyResponse()),
  );
};
