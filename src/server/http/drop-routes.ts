/**
 * A drop's line from the product page (docs/decisions/drops.md): `POST /api/drops/:productId/line` joins the
 * client to the drop's line (once; asking again changes nothing) and answers where they stand, with the drop's
 * start by the server's clock and its stock now (a buyer done on another piece of the vendor's batch is told whether
 * they have their piece of it). The page asks every few seconds while the buyer waits.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Catalog } from '../../core/catalog';
import { dropGroupOf, dropRules } from '../../core/drop';
import { DomainError } from '../../core/errors';
import type { DropLineResponse } from '../../core/api';
import type { StockRepository } from '../stock/repository';
import { holderOf } from '../stock/holds';
import { clientKey } from './security';
import { parseWith } from './validate';

export interface DropRoutesDeps {
  catalog: Catalog;
  stock: StockRepository;
  /** The hold keys' secret (the client's key in the line is the hold key: a keyed hash, never the address). */
  secret: string;
  now: () => Date;
}

const Params = z.object({ productId: z.string().max(100) });
const noSuchDrop = () => new DomainError('not_found', 'drop_not_found', 'No such drop.');

export function dropRoutes(app: FastifyInstance, deps: DropRoutesDeps): void {
  const holder = (req: FastifyRequest) => holderOf(deps.secret, clientKey(req));
  app.post('/api/drops/:productId/line', async (req, reply) => {
    const { productId } = parseWith(Params, req.params, { whole: 'No such drop.', refuse: noSuchDrop });
    const product = deps.catalog.products.find((p) => p.id === productId);
    const rules = product ? dropRules(product) : undefined;
    if (!product || !rules) throw noSuchDrop();
    const now = deps.now();
    const client = holder(req);
    const place = await deps.stock.dropLine.place(product.id, rules, client, now);
    const stock = await deps.stock.productAvailability(product.id);
    // Done on another piece of the vendor's batch: whether they have their pieces of it, or their turn passed.
    const group =
      place.state === 'done' && place.elsewhere ? dropGroupOf(deps.catalog.products, product) : undefined;
    const body: DropLineResponse = {
      productId: product.id,
      startsAt: rules.startsAt.toISOString(),
      serverTime: now.toISOString(),
      place: group
        ? {
            state: 'done',
            batch: {
              name: group.name,
              hasPiece: (await deps.stock.dropLine.piecesOf(client, group.productIds)) > 0,
            },
          }
        : place.state === 'done'
          ? { state: 'done' }
          : place,
      ...stock,
    };
    return reply.header('cache-control', 'no-store').send(body);
  });
}
