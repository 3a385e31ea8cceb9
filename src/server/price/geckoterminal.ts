import { parseLiquidityUsd, parsePositiveDecimal } from './decimal';
import { fetchPriceBody, MAX_BODY_CHARS } from './fetch-body';
import type { PriceFetchResult } from './dexscreener';

/**
 * The second, independent price source: GeckoTerminal's pool endpoint, behind its own small adapter.
 * GET {apiUrl}/networks/solana/pools/{poolAddress} (header `Accept: application/json;version=20230302`) →
 * {"data":{"id":"solana_<pool>","type":"pool","attributes":{"address":"<pool>","name":"CLAIM / SOL",
 *   "base_token_price_usd":"0.0042","quote_token_price_usd":"141.2","reserve_in_usd":"48210.5512",…},
 *   "relationships":{"base_token":{"data":{"id":"solana_<mint>","type":"token"}},
 *                    "quote_token":{"data":{"id":"solana_So111…","type":"token"}},…}}}
 * Prices and the reserve are decimal strings. $CLAIM may be either side of the pool: the side whose token id is
 * `solana_<CLAIM_MINT>` gives the price. GeckoTerminal caches each answer for about a minute (free tier: 30
 * calls per minute; one call per price refresh stays under it).
 */

export interface GeckoTerminalRequest {
  apiUrl: string;
  poolAddress: string;
  /** The $CLAIM mint: picks the pool side whose price is $CLAIM's. */
  mint: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

export function geckoTerminalPoolUrl(apiUrl: string, poolAddress: string): string {
  return `${apiUrl.replace(/\/+$/, '')}/networks/solana/pools/${encodeURIComponent(poolAddress)}`;
}

export async function fetchGeckoTerminalPrice(
  req: GeckoTerminalRequest,
  fetchImpl: typeof fetch = fetch,
): Promise<PriceFetchResult> {
  const body = await fetchPriceBody(
    'GeckoTerminal',
    geckoTerminalPoolUrl(req.apiUrl, req.poolAddress),
    {
      timeoutMs: req.timeoutMs,
      accept: 'application/json;version=20230302',
      ...(req.signal ? { signal: req.signal } : {}),
    },
    fetchImpl,
  );
  if (!body.ok) return body;
  return parseGeckoTerminalPool(body.text, req.poolAddress, req.mint);
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function tokenId(relationships: Record<string, unknown>, side: string): unknown {
  const rel = relationships[side];
  if (!isObject(rel) || !isObject(rel.data)) return undefined;
  return rel.data.id;
}

/** Pure: the response body → $CLAIM's USD price in that pool (and the pool's reserve), or why not. */
export function parseGeckoTerminalPool(text: string, poolAddress: string, mint: string): PriceFetchResult {
  if (text.length > MAX_BODY_CHARS)
    return { ok: false, kind: 'malformed_json', message: 'GeckoTerminal response too large' };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, kind: 'malformed_json', message: 'GeckoTerminal response is not JSON' };
  }
  if (!isObject(body) || !isObject(body.data))
    return { ok: false, kind: 'malformed_json', message: 'GeckoTerminal "data" is not an object' };
  const data = body.data;
  const attributes = data.attributes;
  if (!isObject(attributes))
    return { ok: false, kind: 'malformed_json', message: 'GeckoTerminal "attributes" is not an object' };
  if (data.type !== 'pool' || attributes.address !== poolAddress)
    return { ok: false, kind: 'no_matching_pair', message: `GeckoTerminal returned no pool ${poolAddress}` };
  const relationships = isObject(data.relationships) ? data.relationships : {};
  const wanted = `solana_${mint}`;
  const field =
    tokenId(relationships, 'base_token') === wanted
      ? 'base_token_price_usd'
      : tokenId(relationships, 'quote_token') === wanted
        ? 'quote_token_price_usd'
        : undefined;
  if (!field)
    return {
      ok: false,
      kind: 'no_matching_pair',
      message: `GeckoTerminal pool ${poolAddress} does not hold $CLAIM`,
    };
  const price = parsePositiveDecimal(attributes[field], field);
  if (!price.ok) return { ok: false, kind: 'bad_price', message: price.reason };
  const reserve = parseLiquidityUsd(attributes.reserve_in_usd, 'reserve_in_usd');
  return reserve.ok
    ? { ok: true, priceUsd: price.value, liquidityUsd: reserve.value }
    : { ok: true, priceUsd: price.value, liquidityProblem: reserve.reason };
}
