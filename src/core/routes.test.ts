import { describe, expect, it } from 'vitest';
import { catalog } from '../../catalog';
import { allPagePaths, paths, productPath, resolveScreen } from './routes';

const kindOf = (path: string) => resolveScreen(catalog, path).kind;
const productOf = (path: string) => {
  const s = resolveScreen(catalog, path);
  return s.kind === 'product' ? s.product.id : undefined;
};

describe('route table (spec §2)', () => {
  it('resolves the fixed screens', () => {
    expect(kindOf('/')).toBe('home');
    expect(kindOf('/referrals')).toBe('guide');
    expect(kindOf('/about')).toBe('about');
    expect(kindOf('/giveaways')).toBe('giveaways');
    expect(kindOf('/vendors')).toBe('vendors');
    expect(kindOf('/seller')).toBe('seller');
    expect(kindOf('/seller/')).toBe('seller');
  });

  it('resolves both vendor catalogues; unknown vendors are not found', () => {
    const s = resolveScreen(catalog, '/vendors/coopersglass');
    expect(s.kind === 'vendor' && s.vendor.id).toBe('coopersglass');
    const g = resolveScreen(catalog, '/vendors/gorilla-pack-genetics');
    expect(g.kind === 'vendor' && g.vendor.id).toBe('gorilla-pack-genetics');
    expect(kindOf('/vendors/nobody')).toBe('not-found');
    expect(kindOf('/vendors/coopersglass/extra/segment')).toBe('not-found');
  });

  it('resolves product1..product12 to the design.md mapping', () => {
    const expected = [
      'sonic-crushed-opal-spillproof',
      'lilac-tiptop',
      'electric-neon-puffer',
      'mint-crushed-opal-puffer',
      'sonic-crushed-opal-puffer',
      'sonic-crushed-opal-puffer-ii',
      'electric-neon-hybrid-proxy-peak-spillproof',
      'lv-crushed-opal-puffer',
      'eagles-xl-joystick-cropal-stick',
      'proxy-recycler-clear',
      'blue-stardust-crushed-opal-puffer',
      'pivot-cropal-top',
    ];
    expected.forEach((id, i) => expect(productOf(`/vendors/coopersglass/product${i + 1}`)).toBe(id));
    expect(kindOf('/vendors/coopersglass/product13')).toBe('not-found');
    expect(kindOf('/vendors/coopersglass/product0')).toBe('not-found');
  });

  it('/proxrec and /dustcrop are the same products as product10 and product11', () => {
    expect(productOf('/proxrec')).toBe(productOf('/vendors/coopersglass/product10'));
    expect(productOf('/dustcrop')).toBe(productOf('/vendors/coopersglass/product11'));
    expect(productOf('/proxrec')).toBe('proxy-recycler-clear');
  });

  it('resolves the second vendor pages', () => {
    expect(productOf('/strawberry-fritter')).toBe('strawberry-fritter-live-rosin');
    expect(productOf('/plumz')).toBe('plumz-live-rosin');
    expect(productOf('/plumz1')).toBe('plumz1-live-rosin');
    expect(productOf('/honeydew-papaya')).toBe('honeydew-papaya-live-rosin');
    expect(productOf('/honey2')).toBe('honey-dew-papaya-live-rosin');
    expect(productOf('/bathsalts')).toBe('bathsalts-flower');
    expect(productOf('/garlic')).toBe('garlic-amaretto-live-resin');
  });

  it('ignores query, hash, trailing slashes and case; unknown paths are not found', () => {
    expect(productOf('/garlic/?ref=abc')).toBe('garlic-amaretto-live-resin');
    expect(productOf('/ProxRec#top')).toBe('proxy-recycler-clear');
    expect(kindOf('/about/')).toBe('about');
    for (const p of ['/nope', '/vendors/coopersglass/product', '/garlic/extra', '/api', '/referrals/1'])
      expect(kindOf(p), p).toBe('not-found');
  });

  it('allPagePaths lists every page once and every one resolves to a screen', () => {
    const all = allPagePaths(catalog);
    expect(new Set(all).size).toBe(all.length);
    for (const p of all) expect(kindOf(p), p).not.toBe('not-found');
    expect(all).toEqual(
      expect.arrayContaining([
        paths.home,
        paths.guide,
        '/proxrec',
        '/dustcrop',
        '/honey2',
        '/vendors/gorilla-pack-genetics',
        paths.seller,
      ]),
    );
    expect(all).toHaveLength(5 + 1 + 2 + 19 + 2); // fixed screens, the seller console, vendors, products, aliases
  });

  it('productPath is the canonical (first) route', () => {
    const p = catalog.products.find((x) => x.id === 'proxy-recycler-clear');
    expect(p && productPath(p)).toBe('/vendors/coopersglass/product10');
  });
});
