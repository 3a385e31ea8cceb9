import { describe, expect, it } from 'vitest';
import { CatalogError, parseCatalog } from '../src/core/catalog';
import { catalog } from './index';
import { products } from './products';
import { vendors } from './vendors';

/** Parses and returns the CatalogError (fails the test when parsing succeeds). */
function problemsOf(raw: { vendors: unknown; products: unknown }): CatalogError {
  try {
    parseCatalog(raw);
  } catch (err) {
    if (err instanceof CatalogError) return err;
    throw err;
  }
  throw new Error('expected the catalogue to be rejected');
}

const clone = <T>(v: T): T => structuredClone(v);

describe('the catalogue data', () => {
  it('is valid: 2 vendors, 12 glass products, 7 of the second vendor', () => {
    expect(catalog.vendors.map((v) => v.id)).toEqual(['coopersglass', 'gorilla-pack-genetics']);
    expect(catalog.products.filter((p) => p.vendorId === 'coopersglass')).toHaveLength(12);
    expect(catalog.products.filter((p) => p.vendorId === 'gorilla-pack-genetics')).toHaveLength(7);
  });

  it('has the spec prices: glass retail list, $50 second-vendor items, BathSalts 18ths $40 / zips $200', () => {
    const glass = catalog.products
      .filter((p) => p.vendorId === 'coopersglass')
      .sort((a, b) => (a.gridOrder ?? 0) - (b.gridOrder ?? 0));
    expect(glass.slice(0, 9).map((p) => (p.retailCents ?? 0) / 100)).toEqual([
      475, 125, 325, 375, 350, 375, 650, 425, 115,
    ]);
    for (const p of catalog.products.filter((x) => x.vendorId === 'gorilla-pack-genetics' && !x.variants))
      expect(p.saleCents, p.id).toBe(5000);
    const bath = catalog.products.find((p) => p.id === 'bathsalts-flower');
    expect(bath?.variants?.map((v) => [v.id, v.priceCents])).toEqual([
      ['18ths', 4000],
      ['zips', 20000],
    ]);
  });

  it('pays by QR exactly on Strawberry Fritter, Honey Dew Papaya (/honey2) and Eagles XL (product9)', () => {
    expect(catalog.products.filter((p) => p.payment === 'qr').map((p) => p.routes[0])).toEqual([
      '/vendors/coopersglass/product9',
      '/honey2',
      '/strawberry-fritter',
    ]);
  });

  it('has an image file name per product and vendor under /images/', () => {
    for (const p of catalog.products) expect(p.image).toBe(`/images/products/${p.id}.svg`);
    for (const v of catalog.vendors)
      expect([v.headerImage, v.tileImage]).toEqual([
        `/images/vendors/${v.id}-header.svg`,
        `/images/vendors/${v.id}-tile.svg`,
      ]);
  });
});

describe('parseCatalog rejects bad entries with file, entry and field named', () => {
  it('a product with a bad price', () => {
    const bad = clone(products);
    (bad[1] as { saleCents: number }).saleCents = 12.5;
    const err = problemsOf({ vendors, products: bad });
    expect(err.file).toBe('catalog/products.ts');
    expect(err.message).toContain(
      "entry #1 (lilac-tiptop), field 'saleCents': must be a whole number of cents",
    );
  });

  it('a product with a missing name and an unknown field', () => {
    const bad = clone(products) as Record<string, unknown>[];
    delete bad[0]!.name;
    bad[2]!.colour = 'neon';
    const err = problemsOf({ vendors, products: bad });
    expect(err.message).toMatch(/entry #0 \(sonic-crushed-opal-spillproof\), field 'name': Required/);
    expect(err.message).toMatch(
      /entry #2 \(electric-neon-puffer\), field '\(entry\)': Unrecognized key\(s\) in object: 'colour'/,
    );
  });

  it('a bad route and a retail price below the sale price', () => {
    const bad = clone(products) as Record<string, unknown>[];
    bad[3]!.routes = ['vendors/no-slash'];
    bad[4]!.retailCents = 100;
    const err = problemsOf({ vendors, products: bad });
    expect(err.message).toContain(
      "entry #3 (mint-crushed-opal-puffer), field 'routes.0': must be an absolute path",
    );
    expect(err.message).toContain(
      "entry #4 (sonic-crushed-opal-puffer), field 'retailCents': retail price is below the sale price",
    );
  });

  it('a vendor with a bad social URL names catalog/vendors.ts', () => {
    const bad = clone(vendors);
    bad[1]!.social.url = 'not a url';
    const err = problemsOf({ vendors: bad, products });
    expect(err.file).toBe('catalog/vendors.ts');
    expect(err.message).toContain("entry #1 (gorilla-pack-genetics), field 'social.url': must be a URL");
  });

  it('duplicate product ids, duplicate routes, duplicate vendors and unknown vendors', () => {
    const bad = clone(products) as Record<string, unknown>[];
    bad.push({ ...bad[0]!, routes: ['/copy'] }); // same id
    bad[5]!.routes = ['/proxrec']; // taken by product10
    bad[6]!.vendorId = 'nobody';
    expect(problemsOf({ vendors, products: bad }).problems).toEqual(
      expect.arrayContaining([
        "product 'sonic-crushed-opal-spillproof', field 'id': duplicate id",
        "product 'proxy-recycler-clear', field 'routes': '/proxrec' is already the route of 'sonic-crushed-opal-puffer-ii'",
        "product 'electric-neon-hybrid-proxy-peak-spillproof', field 'vendorId': unknown vendor 'nobody'",
      ]),
    );
    const twoVendors = [...clone(vendors), clone(vendors)[0]!];
    expect(problemsOf({ vendors: twoVendors, products }).problems).toContain(
      "vendor 'coopersglass': duplicate id",
    );
  });

  it('duplicate variant ids', () => {
    const bad = clone(products) as { id: string; variants?: { id: string }[] }[];
    const bath = bad.find((p) => p.id === 'bathsalts-flower');
    bath!.variants![1]!.id = '18ths';
    expect(problemsOf({ vendors, products: bad }).message).toContain(
      "field 'variants.1.id': duplicate variant id '18ths'",
    );
  });
});
