import { paths, type Screen } from '../../core/routes';

/**
 * The four navigation bars of the specification and which screen shows which (docs/decisions/web.md):
 * - main: home, guide, about, giveaways, vendor catalogues, 404;
 * - vendors: the vendors list (only Home and Shop, as the spec says);
 * - short: wallet product pages;
 * - qr: QR order pages.
 */
export type NavVariant = 'main' | 'short' | 'vendors' | 'qr';
export interface NavItem {
  label: string;
  to: string;
}

export const NAVS: Record<NavVariant, readonly NavItem[]> = {
  main: [
    { label: 'Home', to: paths.home },
    { label: 'Buy $Claim', to: paths.guide },
    { label: 'Shop', to: paths.vendors },
    { label: 'About Us', to: paths.about },
    { label: 'AirDrops & Giveaways', to: paths.giveaways },
  ],
  short: [
    { label: 'Home', to: paths.home },
    { label: 'Vendors', to: paths.vendors },
    { label: 'About', to: paths.about },
    { label: 'AirDrops & Giveaways', to: paths.giveaways },
  ],
  vendors: [
    { label: 'Home', to: paths.home },
    { label: 'Shop', to: paths.vendors },
  ],
  qr: [
    { label: 'Home', to: paths.home },
    { label: 'Buy $Claim Now', to: paths.guide },
    { label: 'Vendors', to: paths.vendors },
    { label: 'About Us', to: paths.about },
    { label: 'AirDrops & Giveaways', to: paths.giveaways },
  ],
};

export function navFor(screen: Screen): NavVariant {
  switch (screen.kind) {
    case 'vendors':
      return 'vendors';
    case 'product':
      return screen.product.payment === 'qr' ? 'qr' : 'short';
    default:
      return 'main';
  }
}
