export type PriceFetchErrorKind =
  'http' | 'timeout' | 'network' | 'malformed_json' | 'no_matching_pair' | 'bad_price';

export type PriceFetchResult =
  | {
      ok: true;
      priceUsd: string;
      /** The pool's liquidity in USD as a plain decimal string, when the answer had a valid one. */
      liquidityUsd?: string;
      /** Why there is no liquidityUsd (missing, zero, negative, not a number). */
      liquidityProblem?: string;
    }
  | {
      ok: false;
      kind: PriceFetchErrorKind;
      message: string;
      /** HTTP status for kind 'http' (429 included). */
      status?: number;
      /** From a Retry-After header (seconds form) on 429/503. */
      retryAfterMs?: number;
    };

/** The largest price answer read (a pair or pool answer is a few KB). */
export const MAX_BODY_CHARS = 2_000_000;

/**
 * One GET to a price source with a timeout (and an optional abort signal): the body text, or why not, as the
 * adapters' typed failure (HTTP status with Retry-After, timeout, network). Shared by every price adapter.
 */
export async function fetchPriceBody(
  source: string,
  url: string,
  req: { timeoutMs: number; signal?: AbortSignal; accept: string },
  fetchImpl: typeof fetch,
): Promise<{ ok: true; text: string } | Extract<PriceFetchResult, { ok: false }>> {
  const timeout = AbortSignal.timeout(req.timeoutMs);
  const signal = req.signal ? AbortSignal.any([timeout, req.signal]) : timeout;
  try {
    const res = await fetchImpl(url, { signal, headers: { accept: req.accept } });
    if (res.status !== 200) {
      await res.body?.cancel().catch(() => undefined);
      const retryAfter = Number(res.headers.get('retry-after'));
      return {
        ok: false,
        kind: 'http',
        status: res.status,
        message: res.status === 429 ? `${source} rate limit (429)` : `${source} answered HTTP ${res.status}`,
        ...(Number.isFinite(retryAfter) && retryAfter > 0
          ? { retryAfterMs: Math.min(retryAfter, 3600) * 1000 }
          : {}),
      };
    }
    return { ok: true, text: await res.text() };
  } catch (err) {
    if (timeout.aborted)
      return { ok: false, kind: 'timeout', message: `${source} did not answer within ${req.timeoutMs} ms` };
    return { ok: false, kind: 'network', message: `${source} unreachable: ${(err as Error).message}` };
  }
}
