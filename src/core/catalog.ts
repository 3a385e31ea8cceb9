import { z } from 'zod';
import { DropSchema } from './drop-schema';
import { batchProblems } from './drop';

/**
 * The catalogue is data: vendors and products live in `catalog/` and are validated by this schema at build
 * and at start. One product page template renders every product; routes (including legacy aliases such as
 * /proxrec) are part of the data.
 */

const slug = z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be a lowercase slug (a-z, 0-9, dashes)');
const route = z
  .string()
  .regex(
    /^\/[a-z0-9\-/]*[a-z0-9]$/,
    'must be an absolute path of lowercase segments, e.g. /vendors/x/product1',
  );
const cents = z.number().int('must be a whole number of cents').positive('must be greater than zero');
const imagePath = z
  .string()
  .regex(/^\/images\/[\w\-./]+\.(svg|webp|png|jpg|avif)$/, 'must be /images/<file>');
const url = z.string().url('must be a URL');

export const VendorSchema = z
  .object({
    id: slug,
    name: z.string().min(1),
    /** Shown in the vendors list. */
    listed: z.boolean(),
    description: z.string().min(1),
    headerImage: imagePath,
    tileImage: imagePath,
    social: z.object({ label: z.string().min(1), url }).strict(),
    /** The vendor's Telegram link (https://t.me/<username>), given to buyers in their e-mails when set. */
    telegram: z
      .string()
      .regex(/^https:\/\/t\.me\/[A-Za-z0-9_]{5,32}$/, 'must be https://t.me/<username>')
      .optional(),
    /**
     * The vendor's settings key: its payout wallet, seller e-mail and e-mail templates are the settings named
     * after it (RECIPIENT_<KEY>, VENDOR_<KEY>_EMAIL, EMAILJS_TEMPLATE_SELLER_<KEY>; src/server/settings/).
     * Adding a vendor is this data plus those settings, no code.
     */
    payoutGroup: slug,
  })
  .strict();

export const VariantSchema = z
  .object({
    id: slug,
    label: z.string().min(1),
    priceCents: cents,
  })
  .strict();

export const ProductSchema = z
  .object({
    id: slug,
    vendorId: slug,
    name: z.string().min(1),
    /** First route is canonical; the rest are legacy aliases rendering the same page. */
    routes: z.array(route).min(1),
    image: imagePath,
    imageAlt: z.string().min(1),
    retailCents: cents.optional(),
    saleCents: cents,
    /** A radio choice of variants with their own prices (BathSalts: 18ths / zips). */
    variants: z.array(VariantSchema).min(2).optional(),
    payment: z.enum(['wallet', 'qr']),
    /**
     * Units the store starts with, for the product or for each of its variants: seeded into the store's stock
     * the first time the product is seen, and never again (the seller changes stock in the store, not here).
     * Sold out is derived from the store's stock (nothing available), never a flag.
     */
    initialStock: z.number().int('must be a whole number').nonnegative('must be 0 or more'),
    freeShipping: z.boolean(),
    /** Show a quantity input (min 1, default 1). */
    quantity: z.boolean(),
    description: z.string().optional(),
    /** Position in the vendor's grid; omitted products are not in the grid. */
    gridOrder: z.number().int().nonnegative().optional(),
    /** Where the original data disagreed with itself; kept for the record. */
    notes: z.string().optional(),
    /**
     * A drop (src/core/drop.ts, docs/decisions/drops.md): on sale from `startsAt` to the second, each piece held
     * `holdMinutes` (default 5) for a buyer who has not paid, at most `perBuyer` (default 1) to one buyer (of the
     * whole `batch` when it names the vendor's batch). Wallet products only (a drop's piece is sold only to an order
     * that holds it).
     */
    drop: DropSchema.optional(),
  })
  .strict()
  .superRefine((p, ctx) => {
    if (p.retailCents !== undefined && p.retailCents < p.saleCents) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['retailCents'],
        message: 'retail price is below the sale price',
      });
    }
    if (p.drop && p.payment !== 'wallet')
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['drop'],
        message: 'a drop is sold by wallet (payment "wallet"): its pieces are held at Buy Now',
      });
    if (p.variants) {
      const ids = new Set<string>();
      for (const [i, v] of p.variants.entries()) {
        if (ids.has(v.id))
          ctx.addIssue({
            code: z.ZodIssueCode.custom,
            path: ['variants', i, 'id'],
            message: `duplicate variant id '${v.id}'`,
          });
        ids.add(v.id);
      }
    }
  });

export type Vendor = z.infer<typeof VendorSchema>;
export type Product = z.infer<typeof ProductSchema>;

export interface Catalog {
  vendors: Vendor[];
  products: Product[];
}

export class CatalogError extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`Invalid catalogue (${file}):\n  - ${problems.join('\n  - ')}`);
    this.name = 'CatalogError';
  }
}

function describeIssues(error: z.ZodError, entryName: (index: number) => string): string[] {
  return error.issues.map((issue) => {
    const [index, ...rest] = issue.path;
    const entry = typeof index === 'number' ? entryName(index) : String(index ?? '(root)');
    const field = rest.length ? rest.join('.') : '(entry)';
    return `${entry}, field '${field}': ${issue.message}`;
  });
}

/** Validates raw catalogue data; throws CatalogError naming the file, entry and field of every problem. */
export function parseCatalog(
  raw: { vendors: unknown; products: unknown },
  files = { vendors: 'catalog/vendors.ts', products: 'catalog/products.ts' },
): Catalog {
  const rawVendors = Array.isArray(raw.vendors) ? (raw.vendors as unknown[]) : [];
  const rawProducts = Array.isArray(raw.products) ? (raw.products as unknown[]) : [];
  const nameOf = (list: unknown[]) => (i: number) => {
    const e = list[i] as { id?: unknown } | undefined;
    return `entry #${i}${typeof e?.id === 'string' ? ` (${e.id})` : ''}`;
  };

  const vendors = z.array(VendorSchema).safeParse(raw.vendors);
  if (!vendors.success)
    throw new CatalogError(files.vendors, describeIssues(vendors.error, nameOf(rawVendors)));
  const products = z.array(ProductSchema).safeParse(raw.products);
  if (!products.success)
    throw new CatalogError(files.products, describeIssues(products.error, nameOf(rawProducts)));

  const problems: string[] = [];
  const vendorIds = new Set<string>();
  for (const v of vendors.data) {
    if (vendorIds.has(v.id)) problems.push(`vendor '${v.id}': duplicate id`);
    vendorIds.add(v.id);
  }
  const productIds = new Set<string>();
  const routes = new Map<string, string>();
  for (const p of products.data) {
    if (productIds.has(p.id)) problems.push(`product '${p.id}', field 'id': duplicate id`);
    productIds.add(p.id);
    if (!vendorIds.has(p.vendorId))
      problems.push(`product '${p.id}', field 'vendorId': unknown vendor '${p.vendorId}'`);
    for (const r of p.routes) {
      const owner = routes.get(r);
      if (owner)
        problems.push(`product '${p.id}', field 'routes': '${r}' is already the route of '${owner}'`);
      routes.set(r, p.id);
    }
  }
  // A vendor's batch is one drop: its products share the start, the hold and the per-buyer limit.
  problems.push(...batchProblems(products.data));
  if (problems.length) throw new CatalogError(files.products, problems);
  return { vendors: vendors.data, products: products.data };
}

/** Unit price of a product (or of one of its variants), in cents. */
export function unitPriceCents(product: Product, variantId?: string): number {
  if (product.variants) {
    const v = product.variants.find((x) => x.id === variantId);
    if (!v)
      throw new Error(
        `product '${product.id}' needs a variant (one of ${product.variants.map((x) => x.id).join(', ')})`,
      );
    return v.priceCents;
  }
  if (variantId !== undefined) throw new Error(`product '${product.id}' has no variants`);
  return product.saleCents;
}
