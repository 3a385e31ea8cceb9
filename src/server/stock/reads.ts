/**
 * The stock repository's reads (./repository.ts): lines and what is available now (with what unpaid orders
 * hold), the check a quote makes (a read, no hold), the change log and the units sold.
 */
import type { Selectable } from 'kysely';
import {
  availableOf,
  OutOfStockError,
  shortfall,
  type StockAvailability,
  type StockKey,
  type StockLevel,
  type StockRequest,
} from '../../core/stock';
import type { Store } from '../store/store';
import { availableMap, keyOf, levels, toLevel, variantOf, type Db } from './lines';
import type { StockChangeKind, StockChangesTable } from '../store/schema';

/** One entry of the change log. */
export interface StockChange extends StockKey {
  kind: StockChangeKind;
  onHandDelta: number;
  reservedDelta: number;
  onHandAfter: number;
  reservedAfter: number;
  orderId: string | null;
  actor: string;
  at: string;
}

export interface StockReads {
  /** Every stock line. */
  levels(q?: Db): Promise<StockLevel[]>;
  /** Units available now, per line (GET /api/stock). */
  availability(q?: Db): Promise<StockAvailability[]>;
  /** One product's lines: units free now, held by unpaid orders, and when the first hold lapses (a drop's page). */
  productAvailability(productId: string): Promise<{ available: number; held: number; heldUntil?: string }>;
  /** One product's reservations by state (a drop's console): units held, sold, released. */
  reservationCounts(productId: string): Promise<{ held: number; sold: number; released: number }>;
  /** Throws OutOfStockError when a line asks for more than is available now (quotes: a read, no hold). */
  assertAvailable(lines: readonly StockRequest[], q?: Db): Promise<void>;
  /** The change log, newest last (optionally of one line). */
  changes(key?: StockKey): Promise<StockChange[]>;
  /** The latest `limit` changes of these products' lines, newest first (the seller console's recent changes). */
  recentChanges(productIds: readonly string[], limit: number): Promise<StockChange[]>;
  /** Units sold per line (reservations turned into sales), lines with sales only. */
  soldUnits(): Promise<(StockKey & { sold: number })[]>;
}

export function createStockReads(store: Store): StockReads {
  const db = store.db;
  return {
    levels: (q = db) => levels(q),

    // One statement (GET /api/stock during a drop): every line with its unpaid holds' units and earliest expiry.
    async availability(q = db) {
      const rows = await q
        .selectFrom('stock as s')
        .leftJoin(
          (eb) =>
            eb
              .selectFrom('reservations')
              .select((e) => [
                'product_id',
                'variant_id',
                e.fn.sum<number>('quantity').as('units'),
                e.fn.min<string>('expires_at').as('until'),
              ])
              .where('state', '=', 'held')
              .groupBy(['product_id', 'variant_id'])
              .as('h'),
          (join) =>
            join.onRef('h.product_id', '=', 's.product_id').onRef('h.variant_id', '=', 's.variant_id'),
        )
        .select(['s.product_id', 's.variant_id', 's.on_hand', 's.reserved', 'h.units', 'h.until'])
        .orderBy('s.product_id')
        .orderBy('s.variant_id')
        .execute();
      return rows.map((r) => {
        const l = toLevel(r);
        const units = Number(r.units ?? 0);
        return {
          productId: l.productId,
          ...(l.variantId !== undefined ? { variantId: l.variantId } : {}),
          available: availableOf(l),
          ...(units > 0 && r.until ? { held: units, heldUntil: r.until } : {}),
        };
      });
    },

    async reservationCounts(productId) {
      const rows = await db
        .selectFrom('reservations')
        .select(['state', (eb) => eb.fn.sum<number>('quantity').as('units')])
        .where('product_id', '=', productId)
        .groupBy('state')
        .execute();
      const of = (state: string) => Number(rows.find((r) => r.state === state)?.units ?? 0);
      return { held: of('held'), sold: of('sold'), released: of('released') };
    },

    async productAvailability(productId) {
      const rows = await db
        .selectFrom('stock')
        .select(['product_id', 'variant_id', 'on_hand', 'reserved'])
        .where('product_id', '=', productId)
        .execute();
      const held = await db
        .selectFrom('reservations')
        .select((eb) => [
          eb.fn.sum<number>('quantity').as('units'),
          eb.fn.min<string>('expires_at').as('until'),
        ])
        .where('product_id', '=', productId)
        .where('state', '=', 'held')
        .executeTakeFirst();
      const units = Number(held?.units ?? 0);
      return {
        available: rows.reduce((n, r) => n + availableOf(toLevel(r)), 0),
        held: units,
        ...(units > 0 && held?.until ? { heldUntil: held.until } : {}),
      };
    },

    async assertAvailable(lines, q = db) {
      const available = await availableMap(q, lines);
      const short = shortfall(lines, available);
      if (short)
        throw new OutOfStockError(
          short.line.productId,
          short.line.variantId,
          short.line.name,
          short.available,
        );
    },

    async changes(key) {
      let q = db.selectFrom('stock_changes').selectAll();
      if (key) q = q.where('product_id', '=', key.productId).where('variant_id', '=', variantOf(key));
      const rows = await q.orderBy('product_id').orderBy('variant_id').orderBy('seq').execute();
      return rows.map(toChange);
    },

    async recentChanges(productIds, limit) {
      if (productIds.length === 0) return [];
      const rows = await db
        .selectFrom('stock_changes')
        .selectAll()
        .where('product_id', 'in', [...productIds])
        .orderBy('at', 'desc')
        .orderBy('seq', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      return rows.map(toChange);
    },

    async soldUnits() {
      const rows = await db
        .selectFrom('reservations')
        .select((eb) => ['product_id', 'variant_id', eb.fn.sum<string | number>('quantity').as('sold')])
        .where('state', '=', 'sold')
        .groupBy(['product_id', 'variant_id'])
        .execute();
      return rows.map((r) => ({ ...keyOf(r), sold: Number(r.sold) }));
    },
  };
}

function toChange(r: Selectable<StockChangesTable>): StockChange {
  return {
    productId: r.product_id,
    ...(r.variant_id !== '' ? { variantId: r.variant_id } : {}),
    kind: r.kind,
    onHandDelta: Number(r.on_hand_delta),
    reservedDelta: Number(r.reserved_delta),
    onHandAfter: Number(r.on_hand_after),
    reservedAfter: Number(r.reserved_after),
    orderId: r.order_id,
    actor: r.actor,
    at: r.at,
  };
}
