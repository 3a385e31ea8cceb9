import type { Catalog, Product, Vendor } from '../core/catalog';
import { products } from '../../catalog/products';
import { vendors } from '../../catalog/vendors';

/**
 * The catalogue as the browser sees it: the raw data of catalog/, without the zod schema (14 KB gzip that
 * every page would pay). The same data is validated by parseCatalog when the server starts (catalog/index.ts)
 * and by catalog/catalog.test.ts, so a broken entry never reaches a build that passes the tests.
 */
export const catalog: Catalog = { vendors: vendors as Vendor[], products: products as Product[] };

export function vendorById(id: string): Vendor | undefined {
  return catalog.vendors.find((v) => v.id === id);
}

export function productById(id: string): Product | undefined {
  return catalog.products.find((p) => p.id === id);
}

/** The vendor's grid: products with a grid position, in order. */
export function gridOf(vendorId: string): Product[] {
  return catalog.products
    .filter((p) => p.vendorId === vendorId && p.gridOrder !== undefined)
    .sort((a, b) => (a.gridOrder ?? 0) - (b.gridOrder ?? 0));
}

/** Unit price in cents (same rule as unitPriceCents of src/core/catalog, without pulling zod in). */
export function unitCents(product: Product, variantId: string | undefined): number {
  if (product.variants)
    return (
      (product.variants.find((v) => v.id === variantId) ?? product.variants[0])?.priceCents ??
      product.saleCents
    );
  return product.saleCents;
}
