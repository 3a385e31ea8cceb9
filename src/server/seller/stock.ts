/**
 * The seller console's stock page: the signed-in vendor's stock lines (in stock, reserved, available, sold) and
 * the recent changes of them, and "Set stock" for one of its own lines. Same repository as `npm run stock`
 * (src/server/stock/repository.ts); every change is recorded there with the actor `seller:<payout address>`.
 */
import type { Catalog } from '../../core/catalog';
import type { SellerDrop, SellerStock, SellerStockChange, SellerStockLine } from '../../core/seller-api';
import { dropRules } from '../../core/drop';
import { availableOf, stockKey, type StockKey } from '../../core/stock';
import { DomainError } from '../../core/errors';
import type { StockRepository } from '../stock/repository';

export interface SellerStockDeps {
  stock: StockRepository;
  catalog: Catalog;
  now: () => Date;
}

/** How many changes the page shows. */
export const RECENT_STOCK_CHANGES = 50;

export function sellerActor(address: string): string {
  return `seller:${address}`;
}

export async function sellerStock(deps: SellerStockDeps, vendorIds: readonly string[]): Promise<SellerStock> {
  const products = deps.catalog.products.filter((p) => vendorIds.includes(p.vendorId));
  const ids = products.map((p) => p.id);
  const [levels, sold, changes] = await Promise.all([
    deps.stock.levels(),
    deps.stock.soldUnits(),
    deps.stock.recentChanges(ids, RECENT_STOCK_CHANGES),
  ]);
  const levelOf = new Map(levels.map((l) => [stockKey(l), l]));
  const soldOf = new Map(sold.map((s) => [stockKey(s), s.sold]));
  const lines: SellerStockLine[] = [];
  for (const p of products) {
    const keys: { key: StockKey; label?: string }[] = p.variants
      ? p.variants.map((v) => ({ key: { productId: p.id, variantId: v.id }, label: v.label }))
      : [{ key: { productId: p.id } }];
    for (const { key, label } of keys) {
      const level = levelOf.get(stockKey(key)) ?? { onHand: 0, reserved: 0 };
      lines.push({
        ...key,
        productName: p.name,
        ...(label !== undefined ? { variantLabel: label } : {}),
        vendorId: p.vendorId,
        onHand: level.onHand,
        reserved: level.reserved,
        available: availableOf(level),
        sold: soldOf.get(stockKey(key)) ?? 0,
      });
    }
  }
  // The vendor's drops: their live state (docs/decisions/drops.md).
  const drops: SellerDrop[] = [];
  for (const p of products) {
    const rules = dropRules(p);
    if (!rules) continue;
    const now = deps.now();
    const [counts, free, line] = await Promise.all([
      deps.stock.reservationCounts(p.id),
      deps.stock.productAvailability(p.id),
      deps.stock.dropLine.stats(p.id, now),
    ]);
    const onHand = lines.filter((l) => l.productId === p.id).reduce((n, l) => n + l.onHand, 0);
    drops.push({
      productId: p.id,
      productName: p.name,
      ...(rules.batch !== undefined ? { batch: rules.batch } : {}),
      startsAt: rules.startsAt.toISOString(),
      holdMinutes: rules.holdMs / 60_000,
      perBuyer: rules.perBuyer,
      onHand,
      available: free.available,
      held: counts.held,
      sold: counts.sold,
      released: counts.released,
      line,
    });
  }
  return {
    lines,
    ...(drops.length ? { drops } : {}),
    changes: changes.map((c): SellerStockChange => ({
      productId: c.productId,
      ...(c.variantId !== undefined ? { variantId: c.variantId } : {}),
      kind: c.kind,
      onHandDelta: c.onHandDelta,
      reservedDelta: c.reservedDelta,
      onHandAfter: c.onHandAfter,
      reservedAfter: c.reservedAfter,
      orderId: c.orderId,
      actor: c.actor,
      at: c.at,
    })),
  };
}

/** Sets one of the vendor's lines; records `seller:<address>` and the time. Returns the page's new state. */
export async function setSellerStock(
  deps: SellerStockDeps,
  seller: { address: string; vendorIds: readonly string[] },
  input: { key: StockKey; onHand: number },
): Promise<SellerStock> {
  ownLine(deps, seller, input.key);
  // A bad count, or one below the units open orders hold: DomainError invalid_stock (field onHand).
  await deps.stock.set(input.key, input.onHand, sellerActor(seller.address), deps.now().toISOString(), {
    notBelowReserved: true,
  });
  return sellerStock(deps, seller.vendorIds);
}

/**
 * Releases everything held on one of the vendor's lines (docs/decisions/holds.md): the units are back on sale (and
 * the stock may then be set below what was held). The orders stay open: a payment that still comes is taken if
 * the unit is free, otherwise the order is oversold and refunded. Returns the page's new state and the units.
 */
export async function releaseSellerHolds(
  deps: SellerStockDeps,
  seller: { address: string; vendorIds: readonly string[] },
  key: StockKey,
): Promise<SellerStock & { released: number }> {
  ownLine(deps, seller, key);
  const released = await deps.stock.releaseHoldsOf(
    key,
    sellerActor(seller.address),
    deps.now().toISOString(),
  );
  return { ...(await sellerStock(deps, seller.vendorIds)), released };
}

/** One of the seller's own stock lines, or a refusal in words (another vendor's product is "not found"). */
function ownLine(deps: SellerStockDeps, seller: { vendorIds: readonly string[] }, key: StockKey): void {
  const input = { key };
  const product = deps.catalog.products.find((p) => p.id === input.key.productId);
  // Another vendor's product is "not found" too, as its orders are.
  if (!product || !seller.vendorIds.includes(product.vendorId))
    throw new DomainError('not_found', 'product_not_found', 'No such product.', { field: 'productId' });
  if (product.variants && input.key.variantId === undefined)
    throw new DomainError(
      'invalid',
      'variant_required',
      `${product.name} has variants: choose one (${product.variants.map((v) => v.id).join(', ')}).`,
      { field: 'variantId' },
    );
  if (input.key.variantId !== undefined && !product.variants?.some((v) => v.id === input.key.variantId))
    throw new DomainError(
      'invalid',
      'invalid_variant',
      `${product.name} has no variant '${input.key.variantId}'.`,
      { field: 'variantId' },
    );
}
