/**
 * The page's own part of the boot data block (./boot-data.ts), read when the page is requested
 * (docs/decisions/performance.md, "A phone on Slow 4G"):
 *
 * - `stock`: GET /api/stock's lines of the products the page shows (a product page: its product; a vendor's page:
 *   the vendor's products). Public, as the route is. The page knows at once what is on sale, so a sold-out QR page
 *   never asks for a quote, and the stock read after the scripts is one round trip less.
 * - `qrQuote`: on a QR product page that is on sale, POST /api/quotes' answer for the request the page makes first
 *   (one unit of its first variant, priced). A quote is signed and written nowhere (orders/quotes.ts): it holds no
 *   stock and costs no row, so a page view still takes nothing. Left out whenever POST /api/quotes would refuse
 *   (no price, sold out, the vendor's token account not known to exist), for a drop (its quote is a turn in the
 *   line), and when the read fails: the page then asks as before and shows the refusal in words. A quote makes
 *   one order only (its reference is unique), so a page carrying one is never stored by a cache (http/pages.ts).
 */
import type { QuoteResponse, StockResponse } from '../../core/api';
import type { Screen } from '../../core/routes';
import { issueQuote, type QuoteDeps } from '../orders/quotes';
import type { PayoutAccounts } from '../payments/payout-accounts';
import type { StockRepository } from '../stock/repository';

export interface PageBoot {
  stock?: StockResponse['lines'];
  qrQuote?: QuoteResponse;
}

export interface PageBootDeps {
  stock: Pick<StockRepository, 'availability' | 'assertNotSoldOut'>;
  quotes: QuoteDeps;
  payoutAccounts: Pick<PayoutAccounts, 'peek'>;
  /** Over HTTPS the QR carries a transaction request, which creates a missing token account (no refusal then). */
  transactionRequests: boolean;
}

/** The products a screen shows its stock for. */
function productsOf(screen: Screen, quotes: QuoteDeps): string[] {
  if (screen.kind === 'product') return [screen.product.id];
  if (screen.kind === 'vendor')
    return quotes.catalog.products.filter((p) => p.vendorId === screen.vendor.id).map((p) => p.id);
  return [];
}

/** The page's first QR quote, or undefined wherever POST /api/quotes would refuse it or wait for the chain. */
async function firstQrQuote(deps: PageBootDeps, screen: Screen): Promise<QuoteResponse | undefined> {
  if (screen.kind !== 'product' || screen.product.payment !== 'qr' || screen.product.drop) return undefined;
  const variantId = screen.product.variants?.[0]?.id;
  const { quote, response } = issueQuote(deps.quotes, {
    items: [{ productId: screen.product.id, ...(variantId ? { variantId } : {}), quantity: 1 }],
  });
  if (response.amount === null) return undefined;
  await deps.stock.assertNotSoldOut(quote.items, deps.quotes.now().getTime());
  // Never waits for the chain: the cached state only (peek starts a read in the background when it is stale).
  const account = deps.payoutAccounts.peek?.(quote.payoutGroup);
  if (!deps.transactionRequests && account !== 'exists') return undefined;
  return response;
}

/** The page's boot data for a screen; nothing for the pages that show no stock. */
export function pageBootData(deps: PageBootDeps): (screen: Screen) => Promise<PageBoot> {
  return async (screen) => {
    const products = new Set(productsOf(screen, deps.quotes));
    if (products.size === 0) return {};
    let stock: StockResponse['lines'];
    try {
      stock = (await deps.stock.availability()).filter((l) => products.has(l.productId));
    } catch {
      return {};
    }
    const qrQuote = await firstQrQuote(deps, screen).catch(() => undefined);
    return { stock, ...(qrQuote ? { qrQuote } : {}) };
  };
}
