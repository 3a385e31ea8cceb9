/**
 * Holding stock on intent (src/core/stock.ts, "Holds on intent"): an order with its details (wallet Buy Now, QR
 * details) holds its quantity, within the per-client cap; a QR record made to show a QR holds nothing.
 */
import type { Transaction } from 'kysely';
import { holdLimitRefusal, type StockRequest } from '../../core/stock';
import { heldBy } from '../stock/holds';
import type { Database } from '../store/schema';
import type { OrderContext } from './types';

/**
 * In the order's transaction: refuses (DomainError rate_limited, 429) when `holder` already holds the cap unpaid,
 * then holds the lines until `expiresAt` (OutOfStockError when more than is available).
 */
export async function hold(
  ctx: OrderContext,
  trx: Transaction<Database>,
  orderId: string,
  lines: readonly StockRequest[],
  expiresAt: string,
  at: string,
  holder: string | undefined,
): Promise<void> {
  if (holder) {
    const limit = ctx.deps.settings.holds.limitPerClient;
    const held = await heldBy(trx, holder, at, orderId);
    const asking = lines.reduce((n, l) => n + l.quantity, 0);
    const refusal = holdLimitRefusal(held.units, asking, limit, held.nextRelease);
    if (refusal) throw refusal;
  }
  await ctx.stock.reserve(trx, orderId, lines, expiresAt, at, holder);
}
