/**
 * Restocking for tests and journeys: through the store, as the seller does (`npm run stock`), so the change log
 * records it. The spec's sold-out products (BathSalts, Strawberry Fritter, …) start with no stock, and each glass
 * piece with one: a test that buys them restocks first.
 */
import type { StockKey } from '../../src/core/stock';
import type { RunningServer } from '../../src/server/server';

export async function restock(
  server: Pick<RunningServer, 'stock'>,
  key: StockKey | string,
  units: number,
): Promise<void> {
  const k = typeof key === 'string' ? { productId: key } : key;
  await server.stock.set(k, units, 'test:restock', new Date().toISOString());
}

/** Makes `units` more available than now (open orders keep their reservations). */
export async function addStock(
  server: Pick<RunningServer, 'stock'>,
  key: StockKey | string,
  units: number,
): Promise<void> {
  const k = typeof key === 'string' ? { productId: key } : key;
  const level = (await server.stock.levels()).find(
    (l) => l.productId === k.productId && l.variantId === k.variantId,
  );
  const onHand = Math.max(level?.onHand ?? 0, level?.reserved ?? 0) + units;
  await server.stock.set(k, onHand, 'test:restock', new Date().toISOString());
}
