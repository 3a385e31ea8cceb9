/**
 * Stock lines' counts set from outside any order (./repository.ts): the catalogue seeds a line the store does not
 * have yet, and the seller (console or `npm run stock`) sets a line's units in stock. Each writes its change-log row.
 */
import { DomainError } from '../../core/errors';
import type { Catalog } from '../../core/catalog';
import { isStockCount, stockKey, type StockKey, type StockLevel } from '../../core/stock';
import type { Store } from '../store/store';
import { log, toLevel, variantOf } from './lines';

export interface SetStockOptions {
  /**
   * Refuse (DomainError invalid_stock, nothing changed) a count below the units open orders hold: the seller console sets
   * stock this way, so a reservation that is later paid always has its unit.
   */
  notBelowReserved?: boolean;
}

export interface StockCounts {
  /** Creates the stock line of every catalogue product/variant the store does not have yet. Returns how many. */
  seed(catalog: Catalog, at: string): Promise<number>;
  /**
   * Sets a line's units in stock (not yet sold, reservations included); records who and when. Throws
   * DomainError (invalid_stock) for a line the catalogue does not have or a bad count.
   */
  set(key: StockKey, onHand: number, actor: string, at: string, opts?: SetStockOptions): Promise<StockLevel>;
}

export function createStockCounts(store: Store, catalog: Catalog): StockCounts {
  const db = store.db;
  const isPg = store.dialect === 'postgres';

  /** The catalogue's stock lines: each variant of a product with variants, else the product. */
  const catalogueLines = new Map<string, { key: StockKey; initial: number }>();
  for (const p of catalog.products) {
    const keys: StockKey[] = p.variants
      ? p.variants.map((v) => ({ productId: p.id, variantId: v.id }))
      : [{ productId: p.id }];
    for (const key of keys) catalogueLines.set(stockKey(key), { key, initial: p.initialStock });
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
            `${Number(before.reserved)} ${Number(before.reserved) === 1 ? 'unit is' : 'units are'} reserved by open orders: set at least ${Number(before.reserved)}, or release the reserved units first.`,
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
  };
}
