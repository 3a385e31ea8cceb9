import { parseLiquidityUsd, parsePositiveDecimal } from './decimal';
import { fetchPriceBody, MAX_BODY_CHARS } from './fetch-body';

/**
 * The DexScreener pairs endpoint, behind one small adapter:
 * GET {apiUrl}/latest/dex/pairs/solana/{pairAddress} →
 * {"schemaVersion":"1.0.0","pairs":[{"chainId":"solana","pairAddress":"…","priceUsd":"0.0001234",
 *   "liquidity":{"usd":48210.55,"base":5739350,"quote":171.3},…}] | null,"pair":{…}}
 * The entry whose pairAddress matches is taken and its priceUsd kept as the exact decimal string. Its
 * `liquidity.usd` (a JSON number: the pool's both sides in USD) is kept as a decimal string too, or, when it is
 * missing or not a positive finite number, left out with the reason (the price guards then refuse quotes).
 */

export type { PriceFetchErrorKind, PriceFetchResult } from './fetch-body';
import type { PriceFetchResult } from './fetch-body';

export interface DexScreenerRequest {
  apiUrl: string;
  pairAddress: string;
  timeoutMs: number;
  /** Aborts the call early (service stop). */
  signal?: AbortSignal;
}

export function dexScreenerPairUrl(apiUrl: string, pairAddress: string): string {
  return `${apiUrl.replace(/\/+$/, '')}/latest/dex/pairs/solana/${encodeURIComponent(pairAddress)}`;
}

export async function fetchDexScreenerPrice(
  req: DexScreenerRequest,
  fetchImpl: typeof fetch = fetch,
): Promise<PriceFetchResult> {
  const body = await fetchPriceBody(
    'DexScreener',
    dexScreenerPairUrl(req.apiUrl, req.pairAddress),
    { timeoutMs: req.timeoutMs, accept: 'application/json', ...(req.signal ? { signal: req.signal } : {}) },
    fetchImpl,
  );
  if (!body.ok) return body;
  return parseDexScreenerPairs(body.text, req.pairAddress);
}

/** Pure: the response body → the price of the matching pair, or why there is none. */
export function parseDexScreenerPairs(text: string, pairAddress: string): PriceFetchResult {
  if (text.length > MAX_BODY_CHARS)
    return { ok: false, kind: 'malformed_json', message: 'DexScreener response too large' };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, kind: 'malformed_json', message: 'DexScreener response is not JSON' };
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, kind: 'malformed_json', message: 'DexScreener response is not a JSON object' };
  }
  const pairs = (body as { pairs?: unknown }).pairs;
  if (pairs !== null && pairs !== undefined && !Array.isArray(pairs)) {
    return { ok: false, kind: 'malformed_json', message: 'DexScreener "pairs" is not an array' };
  }
  const entry = (pairs ?? []).find(
    (p: unknown): p is Record<string, unknown> =>
      typeof p === 'object' && p !== null && (p as { pairAddress?: unknown }).pairAddress === pairAddress,
  );
  if (!entry)
    return { ok: false, kind: 'no_matching_pair', message: `DexScreener returned no pair ${pairAddress}` };
  const price = parsePositiveDecimal(entry.priceUsd);
  if (!price.ok) return { ok: false, kind: 'bad_price', message: price.reason };
  const liquidity = entry.liquidity;
  const usd =
    typeof liquidity === 'object' && liquidity !== null && !Array.isArray(liquidity)
      ? parseLiquidityUsd((liquidity as { usd?: unknown }).usd, 'liquidity.usd')
      : { ok: false as const, reason: 'liquidity is missing' };
  return usd.ok
    ? { ok: true, priceUsd: price.value, liquidityUsd: usd.value }
    : { ok: true, priceUsd: price.value, liquidityProblem: usd.reason };
}
