/**
 * The data a page's first render needs, sent inside its HTML instead of by two more requests on a slow network
 * (docs/decisions/performance.md, "A phone on Slow 4G"): the public config (GET /api/config's body) and the current
 * price (GET /api/price's 200 body, when there is one). A JSON data block, `<script type="application/json"
 * id="boot-data">`: never executed, so the CSP (script-src 'self', no inline scripts) is unchanged. Only the public
 * config goes in: no secret, no seller e-mail (test/e2e/prerender.test.ts checks the keys).
 */
import type { PublicConfig } from '../../core/api';

export const BOOT_DATA_ID = 'boot-data';

export interface BootDataSource {
  config: () => PublicConfig;
  /** GET /api/price's answer now (status and body), or undefined when the server has no price service. */
  price?: () => { status: number; body: string };
}

/** `<` escaped so no value can close the block; the JSON stays the same once parsed. */
const safe = (json: string) => json.replace(/</g, '\\u003c');

/** The block for `</head>` (a 503 price is left out: the page asks /api/price and shows the spec's message). */
export function bootDataBlock(source: BootDataSource): string {
  const price = source.price?.();
  const priceJson = price && price.status === 200 ? price.body : 'null';
  // Re-parsed so a malformed body can never break the page's HTML.
  let priceValue: unknown = null;
  try {
    priceValue = JSON.parse(priceJson);
  } catch {
    priceValue = null;
  }
  const json = JSON.stringify({ config: source.config(), price: priceValue });
  return `<script type="application/json" id="${BOOT_DATA_ID}">${safe(json)}</script>`;
}
