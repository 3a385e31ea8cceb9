/**
 * The stock repository: stock lines, reservations and the change log in the store (SQLite or PostgreSQL,
 * migration 0006). The rules are pure (src/core/stock.ts); this module applies them atomically:
 *
 * - reserve: one conditional UPDATE per line (`on_hand - reserved >= n`), so of two orders racing for the last
 *   unit exactly one matches the row; the other reads 0 rows changed and the whole order transaction rolls back
 *   with OutOfStockError (PostgreSQL re-checks the WHERE after the first commit; SQLite runs one writer at a time).
 * - release (expiry), sell (payment) and restock (a paid order cancelled) move the order's reservations and the stock lines in the caller's
 *   transaction, so the order's status and its stock never disagree.
 *
 * Every change writes a `stock_changes` row: what changed, by whom (`actor`) and when.
 *
 * The parts: ./reads.ts (lines, availability, the change log), ./reservations.ts (an order's holds, sale and
 * restock), ./stock-counts.ts (the catalogue's seed and the seller's counts), ./lines.ts (the row helpers they share).
 */
import type { Catalog } from '../../core/catalog';
import type { Store } from '../store/store';
import { createStockReads, type StockReads } from './reads';
import { createReservations, type Reservations } from './reservations';
import { createStockCounts, type StockCounts } from './stock-counts';

export type { StockChange } from './reads';
export type { SaleResult } from './reservations';
export type { SetStockOptions } from './stock-counts';

/** The stock lines, their reservations and change log; each part documents its methods. */
export interface StockRepository extends StockReads, StockCounts, Reservations {}

export function createStockRepository(store: Store, catalog: Catalog): StockRepository {
  return { ...createStockReads(store), ...createStockCounts(store, catalog), ...createReservations(store) };
}
