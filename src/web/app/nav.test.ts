import { describe, expect, it } from 'vitest';
import { catalog } from '../../../catalog';
import { resolveScreen } from '../../core/routes';
import { NAVS, navFor } from './nav';

const navOf = (path: string) => NAVS[navFor(resolveScreen(catalog, path))].map((i) => i.label);

describe('navigation variants', () => {
  it('main nav on home, guide, about, giveaways, catalogues and 404', () => {
    for (const p of ['/', '/referrals', '/about', '/giveaways', '/vendors/coopersglass', '/nope'])
      expect(navOf(p), p).toEqual(['Home', 'Buy $Claim', 'Shop', 'About Us', 'AirDrops & Giveaways']);
  });
  it('only Home and Shop on the vendors list', () => {
    expect(navOf('/vendors')).toEqual(['Home', 'Shop']);
  });
  it('short nav on wallet product pages, QR nav on QR pages', () => {
    expect(navOf('/garlic')).toEqual(['Home', 'Vendors', 'About', 'AirDrops & Giveaways']);
    expect(navOf('/proxrec')).toEqual(['Home', 'Vendors', 'About', 'AirDrops & Giveaways']);
    for (const p of ['/strawberry-fritter', '/honey2', '/vendors/coopersglass/product9'])
      expect(navOf(p), p).toEqual(['Home', 'Buy $Claim Now', 'Vendors', 'About Us', 'AirDrops & Giveaways']);
  });
});
