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
import type { Transaction } from 'kysely';
import type { Catalog } from '../../core/catalog';
import type { StockAvailability, StockKey, StockLevel, StockRequest } from '../../core/stock';
import type { Store } from '../store/store';
import type { Database } from '../store/schema';
import type { Db } from './lines';
import { createStockReads, type StockChange } from './reads';
import { createReservations, type SaleResult } from './reservations';
import { createStockCounts, type SetStockOptions } from './stock-counts';

export type { StockChange } from './reads';
export type { SaleResult } from './reservations';
export type { SetStockOptions } from './stock-counts';

export interface StockRepository {
  /** Creates the stock line of every catalogue product/variant the store does not have yet. Returns how many. */
  seed(catalog: Catalog, at: string): Promise<number>;
  /** Every stock line. */
  levels(q?: Db): Promise<StockLevel[]>;
  /** Units available now, per line (GET /api/stock). */
  availability(q?: Db): Promise<StockAvailability[]>;
  /** Throws OutOfStockError when a line asks for more than is available now (quotes: a read, no hold). */
  assertAvailable(lines: readonly StockRequest[], q?: Db): Promise<void>;
  /**
   * Sets a line's units in stock (not yet sold, reservations included); records who and when. Throws
   * DomainError (invalid_stock) for a line the catalogue does not have or a bad count.
   */
  set(key: StockKey, onHand: number, actor: string, at: string, opts?: SetStockOptions): Promise<StockLevel>;
  /**
   * In the order's transaction: holds the lines until `expiresAt`, or throws OutOfStockError (roll back).
   * `holder`: the client making the hold (keyed hash), for the per-client cap (./holds.ts).
   */
  reserve(
    trx: Transaction<Database>,
    orderId: string,
    lines: readonly StockRequest[],
    expiresAt: string,
    at: string,
    holder?: string,
  ): Promise<void>;
  /**
   * In the expiry's transaction: the order's held reservations are released (`actor`: 'expiry', or 'requote' when
   * a QR record changes its quantity and reserves again). Returns units released.
   */
  release(trx: Transaction<Database>, orderId: string, at: string, actor?: string): Promise<number>;
  /**
   * In the payment's transaction, when the payment completes the order: held reservations become a sale; released
   * ones are sold when the units are still available, and otherwise the order is oversold (nothing is sold).
   * `lines`: the order's items, for an order that never held stock (a QR record paid before its details): sold
   * like a released reservation.
   */
  sell(
    trx: Transaction<Database>,
    orderId: string,
    at: string,
    lines?: readonly StockRequest[],
  ): Promise<SaleResult>;
  /**
   * In the cancellation's transaction (the seller cancels a paid order before shipping): the units the order
   * bought go back on sale (`restock`, its reservations become `released`), and any still held are released.
   * Returns the units put back.
   */
  restock(trx: Transaction<Database>, orderId: string, at: string, actor: string): Promise<number>;
  /** The change log, newest last (optionally of one line). */
  changes(key?: StockKey): Promise<StockChange[]>;
  /** The latest `limit` changes of these products' lines, newest first (the seller console's recent changes). */
  recentChanges(productIds: readonly string[], limit: number): Promise<StockChange[]>;
  /** Units sold per line (reservations turned into sales), lines with sales only. */
  soldUnits(): Promise<(StockKey & { sold: number })[]>;
}

export function createStockRepository(store: Store, catalog: Catalog): StockRepository {
  return { ...createStockReads(store), ...createStockCounts(store, catalog), ...createReservations(store) };
}
