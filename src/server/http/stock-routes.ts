/**
 * GET /api/stock: units available now per product / variant. The pages read stock here after hydration (it is
 * never baked into the prerendered build), so the tiles and product pages show the store's live stock.
 */
import type { FastifyInstance } from 'fastify';
import type { StockResponse } from '../../core/api';
import type { StockRepository } from '../stock/repository';

export function stockRoutes(app: FastifyInstance, deps: { stock: StockRepository }): void {
  app.get('/api/stock', async (_req, reply) => {
    const body: StockResponse = { lines: await deps.stock.availability() };
    return reply.header('cache-control', 'no-store').send(body);
  });
}
