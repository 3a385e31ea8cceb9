/**
 * Sold out costs nothing (issue 32, docs/decisions/drops.md): a quote or an order for a line with no unit free
 * (counting holds) is refused in words before any write transaction, and, once a line is known to have nothing
 * free, without touching the store at all for `MEMO_MS`.
 *
 * - `known`: from memory only. A line this instance saw with nothing free less than `MEMO_MS` ago is refused.
 * - `check`: one read of the asked lines (the `stock` rows; the holds on them only when nothing is free, for the
 *   words); a line with nothing free is remembered and refused, a line with too few is refused as before ("Only
 *   N left"). No lock, no write: on PostgreSQL it never waits for the row an order has locked.
 * - `forget`: this instance gave units back (a release, a sale, a restock, the seller's count): memory is dropped
 *   at once. Another instance's memory lapses within `MEMO_MS`, so a unit released on one instance is on sale
 *   everywhere within a second, and a line that sells out on one is refused everywhere within one read.
 *
 * - `lapsedIn`: a line seen with nothing free while its first hold was past its deadline (the release sweep runs
 *   every 30 s) is not refused from memory; the caller gives those holds back at once and reads again.
 *
 * `nowMs` is the shop's clock (the words' N minutes); the memory's lifetime runs on the process's monotonic clock.
 *
 * The words: "Sold out" (the OutOfStockError of src/core/stock.ts, as before), or while unpaid holds may come
 * back, "Reserved: may come back in N minutes" (the first hold's own deadline).
 */
import { OutOfStockError, reservedRefusal, stockKey, type StockRequest } from '../../core/stock';
import type { DomainError } from '../../core/errors';
import { toLevel, variantOf, type Db } from './lines';

/** How long a line seen with nothing free is refused from memory (below the "within a second"). */
export const MEMO_MS = 500;

interface Memo {
  /** Monotonic ms (performance.now) until which the memory holds: its own clock, not the shop's (tests move that). */
  until: number;
  held: number;
  heldUntil: string | undefined;
}

export interface SoldOutGate {
  /** The refusal for a line remembered with nothing free (no I/O), or undefined. */
  known(lines: readonly StockRequest[], nowMs: number): DomainError | undefined;
  /** Reads the asked lines (no lock): the refusal when one has nothing free or too few, else undefined. */
  check(q: Db, lines: readonly StockRequest[], nowMs: number): Promise<DomainError | undefined>;
  /** Forget every remembered line (this instance gave units back). */
  forget(): void;
  /**
   * The products of `lines` last seen with nothing free while a hold on them was past its deadline at `nowMs`
   * (the release sweep has not come yet): the caller gives those holds back now.
   */
  lapsedIn(lines: readonly StockRequest[], nowMs: number): string[];
}

/** A memory whose first hold's deadline has passed: its piece is coming back, so it refuses no one. */
const lapsedMemo = (m: Memo, nowMs: number) =>
  m.held > 0 && m.heldUntil !== undefined && Date.parse(m.heldUntil) <= nowMs;

function refusalOf(line: StockRequest, memo: Memo, nowMs: number): DomainError {
  return memo.held > 0 && memo.heldUntil
    ? reservedRefusal(line.productId, line.variantId, line.name, memo.heldUntil, nowMs)
    : new OutOfStockError(line.productId, line.variantId, line.name, 0);
}

export function createSoldOutGate(): SoldOutGate {
  const memory = new Map<string, Memo>();
  return {
    known(lines, nowMs) {
      for (const line of lines) {
        const m = memory.get(stockKey(line));
        if (m && m.until > performance.now() && !lapsedMemo(m, nowMs)) return refusalOf(line, m, nowMs);
      }
      return undefined;
    },

    async check(q, lines, nowMs) {
      const ids = [...new Set(lines.map((l) => l.productId))];
      if (ids.length === 0) return undefined;
      const rows = await q
        .selectFrom('stock')
        .select(['product_id', 'variant_id', 'on_hand', 'reserved'])
        .where('product_id', 'in', ids)
        .execute();
      const free = new Map(rows.map((r) => [stockKey(toLevel(r)), Number(r.on_hand) - Number(r.reserved)]));
      const asked = new Map<string, number>();
      for (const line of lines) {
        const k = stockKey(line);
        const have = Math.max(0, free.get(k) ?? 0); // no line: nothing to sell
        if (have <= 0) {
          const held = await q
            .selectFrom('reservations')
            .select((eb) => [
              eb.fn.sum<number>('quantity').as('units'),
              eb.fn.min<string>('expires_at').as('next'),
            ])
            .where('product_id', '=', line.productId)
            .where('variant_id', '=', variantOf(line))
            .where('state', '=', 'held')
            .executeTakeFirst();
          const memo: Memo = {
            until: performance.now() + MEMO_MS,
            held: Number(held?.units ?? 0),
            heldUntil: held?.next ?? undefined,
          };
          memory.set(k, memo);
          return refusalOf(line, memo, nowMs);
        }
        memory.delete(k);
        const total = (asked.get(k) ?? 0) + line.quantity;
        asked.set(k, total);
        if (total > have) return new OutOfStockError(line.productId, line.variantId, line.name, have);
      }
      return undefined;
    },

    forget: () => memory.clear(),

    lapsedIn(lines, nowMs) {
      const ids = new Set<string>();
      for (const line of lines) {
        const m = memory.get(stockKey(line));
        if (m && lapsedMemo(m, nowMs)) ids.add(line.productId);
      }
      return [...ids];
    },
  };
}
