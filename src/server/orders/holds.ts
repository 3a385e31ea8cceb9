/**
 * Holding stock (docs/decisions/holds.md): an order that commits a buyer holds its quantity for a short time of
 * its own (settings.holds.holdMs, never past the quote's expiry), within the per-client cap checked in the
 * reservation's transaction; a QR record made to show a QR, and an order without a price, hold nothing.
 */
import type { Transaction } from 'kysely';
import type { StockRequest } from '../../core/stock';
import type { Database } from '../store/schema';
import type { OrderContext } from './types';

/** When a hold made at `at` lapses: `holdMs` later, or the quote's expiry if sooner. */
export function holdDeadline(ctx: OrderContext, at: string, quoteExpiresAt: string): string {
  const own = Date.parse(at) + ctx.deps.settings.holds.holdMs;
  return own < Date.parse(quoteExpiresAt) ? new Date(own).toISOString() : quoteExpiresAt;
}

/**
 * In the order's transaction: refuses (DomainError rate_limited, 429) when `holder` already holds the cap unpaid,
 * then holds the lines until the hold's deadline (OutOfStockError when more than is available).
 */
export async function hold(
  ctx: OrderContext,
  trx: Transaction<Database>,
  orderId: string,
  lines: readonly StockRequest[],
  quoteExpiresAt: string,
  at: string,
  holder: string | undefined,
): Promise<void> {
  await ctx.stock.reserve(
    trx,
    orderId,
    lines,
    holdDeadline(ctx, at, quoteExpiresAt),
    at,
    holder,
    holder ? ctx.deps.settings.holds.limitPerClient : undefined,
  );
}
