/**
 * The stock repository: stock lines, reservations and the change log in the store (SQLite or PostgreSQL,
 * migration 0006). The rules are pure (src/core/stock.ts); this module applies them atomically:
 *
 * - reserve: one conditional UPDATE per line (`on_hand - reserved >= n`), so of two orders racing for the last
 *   unit exactly one matches the row; the other reads 0 rows changed and the whole order transaction rolls back
 *   with OutOfStockError (PostgreSQL re-checks the WHERE after the first commit; SQLite runs one writer at a time).
 * - release (expiry), sell (payment) and restock (a paid order cancelled) move the order's reservations and the stock lines in the caller's
 *   transaction, so the order's status and its stock never disagree.
 * - sold out costs nothing (./sold-out.ts): a line with nothing free is refused before any write transaction, from
 *   memory for half a second once seen; every path here that gives units back drops that memory at once. A line
 *   seen with nothing free while one of its holds is past its deadline has that hold given back at once.
 *
 * Every change writes a `stock_changes` row: what changed, by whom (`actor`) and when.
 *
 * The parts: ./reads.ts (lines, availability, the change log), ./reservations.ts (an order's holds, sale and
 * restock), ./stock-counts.ts (the catalogue's seed and the seller's counts), ./sold-out.ts (the refusal before
 * any write), ./drop-line.ts (a drop's line; its statements ./drop-line-sql.ts), ./lines.ts (the row helpers they
 * share).
 */
import type { Catalog } from '../../core/catalog';
import type { DomainError } from '../../core/errors';
import type { StockRequest } from '../../core/stock';
import type { Store } from '../store/store';
import { createStockReads, type StockReads } from './reads';
import { releaseLapsed } from './hold-release';
import { createReservations, type Reservations } from './reservations';
import { createStockCounts, type StockCounts } from './stock-counts';
import { createSoldOutGate } from './sold-out';
import { createDropLine, type DropLine } from './drop-line';
import type { Db } from './lines';

export type { StockChange } from './reads';
export type { SaleResult } from './reservations';
export type { SetStockOptions } from './stock-counts';

export interface SoldOutChecks {
  /**
   * Before any write transaction (quotes and orders): throws the refusal in words ("Sold out", "Reserved: may come
   * back in N minutes", "Only N left") when a line has too few free. From memory when the line was seen with
   * nothing free in the last half second, else one read without a lock (./sold-out.ts).
   */
  assertNotSoldOut(lines: readonly StockRequest[], nowMs: number, q?: Db): Promise<void>;
  /** The refusal from memory only (no I/O), or undefined. */
  soldOutKnown(lines: readonly StockRequest[], nowMs: number): DomainError | undefined;
}

/** The stock lines, their reservations and change log; each part documents its methods. */
export interface StockRepository extends StockReads, StockCounts, Reservations, SoldOutChecks {
  /** The drops' lines (./drop-line.ts): who may try for a piece, in what order. */
  dropLine: DropLine;
}

export function createStockRepository(store: Store, catalog: Catalog): StockRepository {
  const gate = createSoldOutGate();
  const reservations = createReservations(store);
  const counts = createStockCounts(store, catalog);
  /** Runs a path that may give units back; the memory of sold-out lines is dropped before and after it. */
  const givesBack =
    <A extends unknown[], R>(f: (...a: A) => Promise<R>) =>
    async (...a: A): Promise<R> => {
      gate.forget();
      try {
        return await f(...a);
      } finally {
        gate.forget();
      }
    };
  /**
   * The holds of some products past their deadline at `now`, given back now (a read saw them: a quote, an order or
   * a drop's line), not at the next release sweep. One at a time per product set on this instance; the release is
   * conditional, so another instance giving back the same hold moves nothing twice.
   */
  const releasing = new Map<string, Promise<number>>();
  const releaseLapsedOf = (productIds: readonly string[], now: Date): Promise<number> => {
    const key = [...productIds].sort().join('\u0000');
    const running = releasing.get(key);
    if (running) return running;
    const run = givesBack(releaseLapsed)(store.db, now.toISOString(), productIds).finally(() =>
      releasing.delete(key),
    );
    releasing.set(key, run);
    return run;
  };
  return {
    ...createStockReads(store),
    ...counts,
    set: givesBack(counts.set),
    seed: givesBack(counts.seed),
    ...reservations,
    release: givesBack(reservations.release),
    releaseLapsed: givesBack(reservations.releaseLapsed),
    releaseHoldsOf: givesBack(reservations.releaseHoldsOf),
    releaseOverBalance: givesBack(reservations.releaseOverBalance),
    sell: givesBack(reservations.sell),
    restock: givesBack(reservations.restock),
    async assertNotSoldOut(lines, nowMs, q = store.db) {
      let refusal = gate.known(lines, nowMs) ?? (await gate.check(q, lines, nowMs));
      // Nothing free, but a hold on it is past its deadline: its piece comes back now, and the line is read again.
      const lapsed = refusal && q === store.db ? gate.lapsedIn(lines, nowMs) : [];
      if (lapsed.length > 0) {
        await releaseLapsedOf(lapsed, new Date(nowMs));
        refusal = await gate.check(q, lines, nowMs);
      }
      if (refusal) throw refusal;
    },
    soldOutKnown: (lines, nowMs) => gate.known(lines, nowMs),
    dropLine: createDropLine(store.db, store.dialect === 'postgres', (productId, now) =>
      releaseLapsedOf([productId], now),
    ),
  };
}
