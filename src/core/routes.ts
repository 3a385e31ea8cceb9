import type { Catalog, Product, Vendor } from './catalog';

/** The site's screens. Typed paths, one registry: components link through `paths`, never raw strings. */
export const paths = {
  home: '/',
  guide: '/referrals',
  about: '/about',
  giveaways: '/giveaways',
  vendors: '/vendors',
  vendor: (vendorId: string) => `/vendors/${vendorId}`,
  /** The buyer's order page: a capability token (128 random bits, lower-case hex), never the order id. */
  order: (token: string) => `/order/${token}`,
  /** "Download my data": everything the shop keeps about the order, readable on a phone, the JSON beside it. */
  orderData: (token: string) => `/order/${token}/data`,
  /** The seller console (sign in with the payout wallet). */
  seller: '/seller',
} as const;

/** An order page token: 32 lower-case hex characters (16 random bytes). */
export const ORDER_TOKEN = /^[0-9a-f]{32}$/;

export type Screen =
  | { kind: 'home' }
  | { kind: 'guide' }
  | { kind: 'about' }
  | { kind: 'giveaways' }
  | { kind: 'vendors' }
  | { kind: 'seller' }
  | { kind: 'vendor'; vendor: Vendor }
  | { kind: 'product'; product: Product; vendor: Vendor }
  /** Client-rendered from GET /api/order-pages/:token; not prerendered (it depends on the visitor's order). */
  | { kind: 'order'; token: string; data?: true }
  | { kind: 'not-found' };

/** A request path as the route table sees it: no query or fragment, no trailing slash, lower case. */
export function normalisePath(path: string): string {
  const noQuery = path.split(/[?#]/, 1)[0] ?? '/';
  const trimmed = noQuery.replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed.toLowerCase();
}

/** Which screen a path shows. Unknown paths (and unknown vendors) are `not-found`, served with status 404. */
export function resolveScreen(catalog: Catalog, rawPath: string): Screen {
  const path = normalisePath(rawPath);
  switch (path) {
    case paths.home:
      return { kind: 'home' };
    case paths.guide:
      return { kind: 'guide' };
    case paths.about:
      return { kind: 'about' };
    case paths.giveaways:
      return { kind: 'giveaways' };
    case paths.vendors:
      return { kind: 'vendors' };
    case paths.seller:
      return { kind: 'seller' };
  }
  const product = catalog.products.find((p) => p.routes.includes(path));
  if (product) {
    const vendor = catalog.vendors.find((v) => v.id === product.vendorId);
    if (vendor) return { kind: 'product', product, vendor };
  }
  const order = /^\/order\/([^/]+)(\/data)?$/.exec(path);
  if (order?.[1] && ORDER_TOKEN.test(order[1]))
    return order[2] ? { kind: 'order', token: order[1], data: true } : { kind: 'order', token: order[1] };
  const m = /^\/vendors\/([^/]+)$/.exec(path);
  if (m) {
    const vendor = catalog.vendors.find((v) => v.id === m[1]);
    if (vendor) return { kind: 'vendor', vendor };
  }
  return { kind: 'not-found' };
}

/** Every path the site answers with a page (for prerendering and tests). */
export function allPagePaths(catalog: Catalog): string[] {
  return [
    paths.home,
    paths.guide,
    paths.about,
    paths.giveaways,
    paths.vendors,
    paths.seller,
    ...catalog.vendors.map((v) => paths.vendor(v.id)),
    ...catalog.products.flatMap((p) => p.routes),
  ];
}

/** The canonical route of a product (its first). */
export function productPath(product: Product): string {
  return product.routes[0] ?? '/';
}
