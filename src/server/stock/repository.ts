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
 */
import { DomainError } from '../../core/errors';
import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { Catalog } from '../../core/catalog';
import {
  availableOf,
  isStockCount,
  OutOfStockError,
  saleOutcome,
  shortfall,
  stockKey,
  type StockAvailability,
  type StockKey,
  type StockLevel,
  type StockRequest,
} from '../../core/stock';
import type { Store } from '../store/store';
import { heldByLine, recordUnheld } from './holds';
import type { Database, ReservationState, StockChangeKind, StockChangesTable } from '../store/schema';

type Db = Kysely<Database> | Transaction<Database>;

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

/** What a payment that completes an order did to its stock. `none`: the order holds no reservation. */
export type SaleResult = 'sold' | 'oversold' | 'none';

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

export interface SetStockOptions {
  /**
   * Refuse (DomainError invalid_stock, nothing changed) a count below the units open orders hold: the seller console sets
   * stock this way, so a reservation that is later paid always has its unit.
   */
  notBelowReserved?: boolean;
}

export function createStockRepository(store: Store, catalog: Catalog): StockRepository {
  const db = store.db;
  const isPg = store.dialect === 'postgres';
  const variantOf = (k: StockKey) => k.variantId ?? '';
  const keyOf = (r: { product_id: string; variant_id: string }): StockKey =>
    r.variant_id !== '' ? { productId: r.product_id, variantId: r.variant_id } : { productId: r.product_id };

  /** The catalogue's stock lines: each variant of a product with variants, else the product. */
  const catalogueLines = new Map<string, { key: StockKey; initial: number }>();
  for (const p of catalog.products) {
    const keys: StockKey[] = p.variants
      ? p.variants.map((v) => ({ productId: p.id, variantId: v.id }))
      : [{ productId: p.id }];
    for (const key of keys) catalogueLines.set(stockKey(key), { key, initial: p.initialStock });
  }

  async function log(
    q: Db,
    key: StockKey,
    kind: StockChangeKind,
    delta: { onHand: number; reserved: number },
    after: { on_hand: number; reserved: number; change_seq: number },
    orderId: string | null,
    actor: string,
    at: string,
  ): Promise<void> {
    // Every caller has just written the line's stock row in this transaction, bumping its change_seq.
    await q
      .insertInto('stock_changes')
      .values({
        id: randomUUID(),
        product_id: key.productId,
        variant_id: variantOf(key),
        seq: Number(after.change_seq),
        kind,
        on_hand_delta: delta.onHand,
        reserved_delta: delta.reserved,
        on_hand_after: Number(after.on_hand),
        reserved_after: Number(after.reserved),
        order_id: orderId,
        actor,
        at,
      })
      .execute();
  }

  /**
   * PostgreSQL: the conditional UPDATE and its change-log row in one statement, so the stock row's lock (held to
   * the commit, and every order for the product waits for it) spans one round trip to the database, not two.
   * `u.change_seq` is the row version the UPDATE wrote (re-read after waiting for a concurrent order's lock).
   */
  async function reservePg(
    trx: Transaction<Database>,
    line: StockRequest,
    orderId: string,
    at: string,
  ): Promise<{ on_hand: number; reserved: number; change_seq: number } | undefined> {
    const variant = variantOf(line);
    const { rows } = await sql<{ on_hand: number; reserved: number; change_seq: number }>`
      with u as (
        update stock
        set reserved = reserved + ${line.quantity}::integer, change_seq = change_seq + 1, updated_at = ${at}::text
        where product_id = ${line.productId}::text and variant_id = ${variant}::text
          and on_hand - reserved >= ${line.quantity}::integer
        returning on_hand, reserved, change_seq
      ), logged as (
        insert into stock_changes (id, product_id, variant_id, seq, kind, on_hand_delta, reserved_delta,
          on_hand_after, reserved_after, order_id, actor, at)
        select ${randomUUID()}::text, ${line.productId}::text, ${variant}::text, u.change_seq, 'reserve', 0,
          ${line.quantity}::integer, u.on_hand, u.reserved, ${orderId}::text, 'order', ${at}::text
        from u
      )
      select on_hand, reserved, change_seq from u`.execute(trx);
    return rows[0];
  }

  /** Moves a line's counts and bumps its change_seq; returns the line after (for the change log). */
  const moveLine = (
    trx: Db,
    r: { product_id: string; variant_id: string },
    onHandDelta: number,
    reservedDelta: number,
    at: string,
  ) =>
    trx
      .updateTable('stock')
      .set((eb) => ({
        on_hand: eb('on_hand', '+', onHandDelta),
        reserved: eb('reserved', '+', reservedDelta),
        change_seq: eb('change_seq', '+', 1),
        updated_at: at,
      }))
      .where('product_id', '=', r.product_id)
      .where('variant_id', '=', r.variant_id)
      .returning(['on_hand', 'reserved', 'change_seq'])
      .executeTakeFirstOrThrow();

  /** Sets the state of an order's reservation of one line. */
  const markReservation = (
    trx: Db,
    r: { order_id: string; product_id: string; variant_id: string },
    state: ReservationState,
    at: string,
  ) =>
    trx
      .updateTable('reservations')
      .set({ state, updated_at: at })
      .where('order_id', '=', r.order_id)
      .where('product_id', '=', r.product_id)
      .where('variant_id', '=', r.variant_id)
      .execute();

  const toLevel = (r: {
    product_id: string;
    variant_id: string;
    on_hand: number;
    reserved: number;
  }): StockLevel => ({
    productId: r.product_id,
    ...(r.variant_id !== '' ? { variantId: r.variant_id } : {}),
    onHand: Number(r.on_hand),
    reserved: Number(r.reserved),
  });

  async function levels(q: Db = db): Promise<StockLevel[]> {
    const rows = await q
      .selectFrom('stock')
      .select(['product_id', 'variant_id', 'on_hand', 'reserved'])
      .orderBy('product_id')
      .orderBy('variant_id')
      .execute();
    return rows.map(toLevel);
  }

  async function availableMap(q: Db, lines: readonly StockKey[]): Promise<(k: StockKey) => number> {
    const ids = [...new Set(lines.map((l) => l.productId))];
    const rows = ids.length
      ? await q
          .selectFrom('stock')
          .select(['product_id', 'variant_id', 'on_hand', 'reserved'])
          .where('product_id', 'in', ids)
          .execute()
      : [];
    const map = new Map(rows.map((r) => [stockKey(toLevel(r)), availableOf(toLevel(r))]));
    return (k) => map.get(stockKey(k)) ?? 0; // no line: nothing to sell
  }

  return {
    async seed(cat, at) {
      let n = 0;
      for (const p of cat.products) {
        const keys: StockKey[] = p.variants
          ? p.variants.map((v) => ({ productId: p.id, variantId: v.id }))
          : [{ productId: p.id }];
        for (const key of keys) {
          const added = await db.transaction().execute(async (trx) => {
            const res = await trx
              .insertInto('stock')
              .values({
                product_id: key.productId,
                variant_id: variantOf(key),
                on_hand: p.initialStock,
                reserved: 0,
                change_seq: 1,
                updated_at: at,
              })
              .onConflict((oc) => oc.columns(['product_id', 'variant_id']).doNothing())
              .executeTakeFirst();
            if (Number(res.numInsertedOrUpdatedRows ?? 0n) === 0) return false;
            await log(
              trx,
              key,
              'seed',
              { onHand: p.initialStock, reserved: 0 },
              { on_hand: p.initialStock, reserved: 0, change_seq: 1 },
              null,
              'catalogue',
              at,
            );
            return true;
          });
          if (added) n++;
        }
      }
      return n;
    },

    levels,

    async availability(q = db) {
      const held = await heldByLine(q);
      return (await levels(q)).map((l) => {
        const h = held.get(stockKey(l));
        return {
          productId: l.productId,
          ...(l.variantId !== undefined ? { variantId: l.variantId } : {}),
          available: availableOf(l),
          ...(h ? { held: h.units, heldUntil: h.until } : {}),
        };
      });
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

    async set(key, onHand, actor, at, opts = {}) {
      if (!catalogueLines.has(stockKey(key))) {
        const product = catalog.products.find((p) => p.id === key.productId);
        throw new DomainError(
          'invalid',
          'invalid_stock',
          !product
            ? `Unknown product '${key.productId}'.`
            : product.variants
              ? `'${product.id}' has variants: name one (${product.variants.map((v) => `${product.id}:${v.id}`).join(', ')}).`
              : `'${product.id}' has no variant '${key.variantId ?? ''}'.`,
          { field: 'onHand' },
        );
      }
      if (!isStockCount(onHand))
        throw new DomainError(
          'invalid',
          'invalid_stock',
          'The stock must be a whole number from 0 to 1000000.',
          { field: 'onHand' },
        );
      if (!actor.trim())
        throw new DomainError('invalid', 'invalid_stock', 'Say who changes the stock.', { field: 'onHand' });
      return db.transaction().execute(async (trx) => {
        let sel = trx
          .selectFrom('stock')
          .select(['product_id', 'variant_id', 'on_hand', 'reserved'])
          .where('product_id', '=', key.productId)
          .where('variant_id', '=', variantOf(key));
        if (isPg) sel = sel.forUpdate();
        const before = await sel.executeTakeFirst();
        const initial = catalogueLines.get(stockKey(key))?.initial ?? 0;
        if (!before) {
          // Not seeded yet (the server has not started on this store): the line starts here.
          await trx
            .insertInto('stock')
            .values({
              product_id: key.productId,
              variant_id: variantOf(key),
              on_hand: onHand,
              reserved: 0,
              change_seq: 1,
              updated_at: at,
            })
            .execute();
          await log(
            trx,
            key,
            'set',
            { onHand: onHand - initial, reserved: 0 },
            { on_hand: onHand, reserved: 0, change_seq: 1 },
            null,
            actor,
            at,
          );
          return { ...key, onHand, reserved: 0 };
        }
        if (opts.notBelowReserved && onHand < Number(before.reserved))
          throw new DomainError(
            'invalid',
            'invalid_stock',
            `${Number(before.reserved)} ${Number(before.reserved) === 1 ? 'unit is' : 'units are'} reserved by open orders: set at least ${Number(before.reserved)}.`,
            { field: 'onHand' },
          );
        const { change_seq } = await trx
          .updateTable('stock')
          .set((eb) => ({ on_hand: onHand, change_seq: eb('change_seq', '+', 1), updated_at: at }))
          .where('product_id', '=', key.productId)
          .where('variant_id', '=', variantOf(key))
          .returning(['change_seq'])
          .executeTakeFirstOrThrow();
        const reserved = Number(before.reserved);
        await log(
          trx,
          key,
          'set',
          { onHand: onHand - Number(before.on_hand), reserved: 0 },
          { on_hand: onHand, reserved, change_seq },
          null,
          actor,
          at,
        );
        return { ...toLevel(before), onHand };
      });
    },

    async reserve(trx, orderId, lines, expiresAt, at, holder) {
      for (const line of lines) {
        if (!Number.isInteger(line.quantity) || line.quantity <= 0)
          throw new DomainError('invalid', 'invalid_stock', `bad quantity ${line.quantity}`, {
            field: 'quantity',
          });
        // The reservation row first: it touches no shared row. The stock row's UPDATE locks the line until the
        // commit (on PostgreSQL every order for the product queues behind it), so as little as possible follows it.
        await trx
          .insertInto('reservations')
          .values({
            order_id: orderId,
            product_id: line.productId,
            variant_id: variantOf(line),
            quantity: line.quantity,
            state: 'held',
            expires_at: expiresAt,
            created_at: at,
            updated_at: at,
            holder: holder ?? null,
          })
          // A QR record that changes its quantity reserves again after releasing (same order, same line).
          .onConflict((oc) =>
            oc.columns(['order_id', 'product_id', 'variant_id']).doUpdateSet({
              quantity: line.quantity,
              state: 'held',
              expires_at: expiresAt,
              updated_at: at,
              holder: holder ?? null,
            }),
          )
          .execute();
        const row = isPg
          ? await reservePg(trx, line, orderId, at)
          : await trx
              .updateTable('stock')
              .set((eb) => ({
                reserved: eb('reserved', '+', line.quantity),
                change_seq: eb('change_seq', '+', 1),
                updated_at: at,
              }))
              .where('product_id', '=', line.productId)
              .where('variant_id', '=', variantOf(line))
              .where((eb) => eb(eb('on_hand', '-', eb.ref('reserved')), '>=', line.quantity))
              .returning(['on_hand', 'reserved', 'change_seq'])
              .executeTakeFirst();
        if (!row) {
          const available = await availableMap(trx, [line]);
          throw new OutOfStockError(line.productId, line.variantId, line.name, available(line));
        }
        // PostgreSQL wrote the change-log row in the same statement.
        if (!isPg)
          await log(trx, line, 'reserve', { onHand: 0, reserved: line.quantity }, row, orderId, 'order', at);
      }
    },

    async release(trx, orderId, at, actor = 'expiry') {
      const held = await trx
        .selectFrom('reservations')
        .selectAll()
        .where('order_id', '=', orderId)
        .where('state', '=', 'held')
        .execute();
      let n = 0;
      for (const r of held) {
        const key = keyOf(r);
        const q = Number(r.quantity);
        const row = await moveLine(trx, r, 0, -q, at);
        await markReservation(trx, r, 'released', at);
        await log(trx, key, 'release', { onHand: 0, reserved: -q }, row, orderId, actor, at);
        n += q;
      }
      return n;
    },

    async sell(trx, orderId, at, lines) {
      const mineNow = () =>
        trx
          .selectFrom('reservations')
          .selectAll()
          .where('order_id', '=', orderId)
          .where('state', 'in', ['held', 'released'])
          .orderBy('product_id')
          .orderBy('variant_id')
          .execute();
      let mine = await mineNow();
      if (mine.length === 0 && lines?.length) {
        // Never held (paid before its details): sold like a released reservation, if the units are there.
        await recordUnheld(trx, orderId, lines, at);
        mine = await mineNow();
      }
      if (mine.length === 0) return 'none';
      // Lock the lines (PostgreSQL; SQLite has one writer), then decide for the whole order before changing any.
      const current = new Map<string, { on_hand: number; reserved: number }>();
      for (const r of mine) {
        let sel = trx
          .selectFrom('stock')
          .select(['on_hand', 'reserved'])
          .where('product_id', '=', r.product_id)
          .where('variant_id', '=', r.variant_id);
        if (isPg) sel = sel.forUpdate();
        const row = await sel.executeTakeFirst();
        current.set(`${r.product_id}/${r.variant_id}`, {
          on_hand: Number(row?.on_hand ?? 0),
          reserved: Number(row?.reserved ?? 0),
        });
      }
      const outcomes = mine.map((r) => {
        const s = current.get(`${r.product_id}/${r.variant_id}`) ?? { on_hand: 0, reserved: 0 };
        return saleOutcome(
          r.state === 'held',
          availableOf({ onHand: s.on_hand, reserved: s.reserved }),
          Number(r.quantity),
        );
      });
      const oversold = outcomes.includes('oversold');
      for (const r of mine) {
        const key = keyOf(r);
        const q = Number(r.quantity);
        const held = r.state === 'held';
        // Oversold: nothing is sold; a line still held is released (the whole order is refunded).
        const onHandDelta = oversold ? 0 : -q;
        const reservedDelta = held ? -q : 0;
        // Written even when no count moves (an oversold line no longer held): the change log's seq moves on.
        const row = await moveLine(trx, r, onHandDelta, reservedDelta, at);
        await markReservation(trx, r, oversold ? 'oversold' : 'sold', at);
        await log(
          trx,
          key,
          oversold ? 'oversold' : 'sale',
          { onHand: onHandDelta, reserved: reservedDelta },
          row,
          orderId,
          'payment',
          at,
        );
      }
      return oversold ? 'oversold' : 'sold';
    },

    async restock(trx, orderId, at, actor) {
      const mine = await trx
        .selectFrom('reservations')
        .selectAll()
        .where('order_id', '=', orderId)
        .where('state', 'in', ['held', 'sold'])
        .orderBy('product_id')
        .orderBy('variant_id')
        .execute();
      let n = 0;
      for (const r of mine) {
        const key = keyOf(r);
        const q = Number(r.quantity);
        const sold = r.state === 'sold';
        const delta = sold ? { onHand: q, reserved: 0 } : { onHand: 0, reserved: -q };
        const row = await moveLine(trx, r, delta.onHand, delta.reserved, at);
        await markReservation(trx, r, 'released', at);
        await log(trx, key, sold ? 'restock' : 'release', delta, row, orderId, actor, at);
        if (sold) n += q;
      }
      return n;
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
