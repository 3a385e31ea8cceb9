/**
 * The data a page's first render needs, sent inside its HTML instead of by more requests on a slow network
 * (docs/decisions/performance.md, "A phone on Slow 4G"): the public config (GET /api/config's body), the current
 * price (GET /api/price's 200 body, when there is one) and the page's own part (./boot-page.ts: the stock of the
 * products it shows; a QR product page's first quote, only beside a price). A JSON data block, `<script type="application/json"
 * id="boot-data">`: never executed, so the CSP (script-src 'self', no inline scripts) is unchanged. Only the public
 * config goes in: no secret, no seller e-mail (test/e2e/prerender.test.ts checks the keys).
 */
import type { PublicConfig } from '../../core/api';
import type { Screen } from '../../core/routes';
import type { PageBoot } from './boot-page';

export const BOOT_DATA_ID = 'boot-data';

export interface BootDataSource {
  config: () => PublicConfig;
  /** GET /api/price's answer now (status and body), or undefined when the server has no price service. */
  price?: () => { status: number; body: string };
  /** The page's own data (./boot-page.ts), read per request; omitted: none. */
  page?: (screen: Screen) => Promise<PageBoot>;
}

/** `<` escaped so no value can close the block; the JSON stays the same once parsed. */
const safe = (json: string) => json.replace(/</g, '\\u003c');

/**
 * The block for `</head>` (a 503 price is left out: the page asks /api/price and shows the spec's message; a quote
 * goes only beside a price, so the page that takes it has the price it was made at).
 */
export function bootDataBlock(source: BootDataSource, page: PageBoot = {}): string {
  const price = source.price?.();
  const priceJson = price && price.status === 200 ? price.body : 'null';
  // Re-parsed so a malformed body can never break the page's HTML.
  let priceValue: unknown = null;
  try {
    priceValue = JSON.parse(priceJson);
  } catch {
    priceValue = null;
  }
  const { stock, qrQuote } = page;
  const json = JSON.stringify({
    config: source.config(),
    price: priceValue,
    ...(stock ? { stock } : {}),
    ...(qrQuote && priceValue !== null ? { qrQuote } : {}),
  });
  return `<script type="application/json" id="${BOOT_DATA_ID}">${safe(json)}</script>`;
}
