/**
 * Every API route module of the store, in one list for buildApp (./app.ts registers them before the pages): the
 * orders, the seller console, the buyer's personal data, stock, the payment QR, the price and, in demo mode, the
 * demo price feeds and controls and the dev mailbox. Each route module is thin and gets only the services it
 * asks for; server.ts composes them.
 */
import type { FastifyInstance } from 'fastify';
import type { DemoMarket, PriceService } from '../price/index';
import type { Settings } from '../settings';
import { demoPriceControlPlugin } from './demo-price-control-routes';
import { demoPriceFeedPlugin } from './demo-price-routes';
import { devMailPlugin } from './dev-mail-routes';
import { orderRoutes, type OrderRoutesDeps } from './orders-routes';
import { pricePlugin } from './price-routes';
import { privacyRoutes } from './privacy-routes';
import { qrRoute } from './qr-route';
import type { QrLinkCheck } from '../orders/shop-links';
import { sellerRoutes, type SellerRoutesDeps } from './seller-routes';
import { stockRoutes } from './stock-routes';
import { dropRoutes } from './drop-routes';
import { payRoutes, type PayRoutesDeps } from './pay-routes';

export type RoutePlugin = (app: FastifyInstance) => Promise<void> | void;

export interface ApiRouteDeps {
  settings: Settings;
  orders: OrderRoutesDeps;
  seller: SellerRoutesDeps;
  /** GET /api/qr.svg draws only what this accepts (the shop's own payment links). */
  shopLinks: QrLinkCheck;
  /** The price service (/api/price); absent when a test injects a price source. */
  price?: PriceService;
  /** Demo mode: the market the demo feeds answer from (pushed by /dev/price and `npm run demo:price`). */
  demoMarket: DemoMarket;
  /** Demo mode with the file transport: the folder /dev/mail lists. */
  devMailDir?: string;
  /** The Solana Pay transaction request routes (/api/pay/:token). */
  pay: PayRoutesDeps;
}

export function apiRoutes(deps: ApiRouteDeps): RoutePlugin[] {
  const { settings, price } = deps;
  const plugins: RoutePlugin[] = [
    (a) => orderRoutes(a, deps.orders),
    // The seller console's API.
    (a) => sellerRoutes(a, deps.seller),
    // The buyer's personal data from the order page: download, delete, cancel instead.
    (a) => privacyRoutes(a, { orders: deps.orders.orders }),
    (a) => stockRoutes(a, { stock: deps.orders.stock }),
    // A drop's line from the product page (POST /api/drops/:productId/line).
    (a) =>
      dropRoutes(a, {
        catalog: deps.orders.quotes.catalog,
        stock: deps.orders.stock,
        secret: deps.orders.quotes.settings.quote.secret,
        now: deps.orders.quotes.now,
      }),
    // GET /api/qr.svg: the payment QR of the QR pages and the wallet's payment link, drawn here instead of in the
    // browser; only the shop's own payment links.
    (a) => qrRoute(a, deps.shopLinks),
    // The Solana Pay transaction request of a QR record (its QR in HTTPS mode): GET label, POST transaction.
    (a) => payRoutes(a, deps.pay),
  ];
  if (price) plugins.push(async (a) => void (await a.register(pricePlugin, { service: price })));
  if (settings.demo) {
    plugins.push(
      async (a) =>
        void (await a.register(demoPriceFeedPlugin, { market: deps.demoMarket, mint: settings.claimMint })),
    );
    if (price)
      plugins.push(
        async (a) => void (await a.register(demoPriceControlPlugin, { market: deps.demoMarket, price })),
      );
    const dir = deps.devMailDir;
    if (dir !== undefined) plugins.push(async (a) => void (await a.register(devMailPlugin, { dir })));
  }
  return plugins;
}
