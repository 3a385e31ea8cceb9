/**
 * The public mainnet endpoint's published per-IP limits, as an option of the localnet (`publicLimits`,
 * `LOCALNET_PUBLIC_LIMITS=1`): in any 10 s window at most 100 requests in all and 40 per method. A request over
 * either limit gets HTTP 429 with `Retry-After` (seconds until the window has room again). A JSON-RPC batch
 * counts one request per entry, as the public endpoint does.
 */

export interface PublicLimits {
  windowMs: number;
  total: number;
  perMethod: number;
}

export const PUBLIC_LIMITS: PublicLimits = { windowMs: 10_000, total: 100, perMethod: 40 };

export interface RateLimitStats {
  /** JSON-RPC requests accepted (batch entries counted one each). */
  accepted: number;
  /** HTTP requests refused with 429. */
  throttled: number;
  /** Accepted requests per method. */
  byMethod: Record<string, number>;
}

interface Hit {
  at: number;
  method: string;
}

export class PerIpLimiter {
  private readonly hits = new Map<string, Hit[]>();
  private readonly stats: RateLimitStats = { accepted: 0, throttled: 0, byMethod: {} };

  constructor(
    private readonly limits: PublicLimits = PUBLIC_LIMITS,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * Admits the HTTP request of `ip` carrying `methods` (all or nothing). Returns 0 when admitted, else the
   * seconds to wait (Retry-After, at least 1).
   */
  admit(ip: string, methods: string[]): number {
    const now = this.clock();
    const from = now - this.limits.windowMs;
    const list = (this.hits.get(ip) ?? []).filter((h) => h.at > from);
    this.hits.set(ip, list);
    const perMethod = new Map<string, number>();
    for (const h of list) perMethod.set(h.method, (perMethod.get(h.method) ?? 0) + 1);
    const adding = new Map<string, number>();
    for (const m of methods) adding.set(m, (adding.get(m) ?? 0) + 1);
    let waitUntil = 0;
    if (list.length + methods.length > this.limits.total) {
      // Room once enough of the oldest hits leave the window.
      const needed = list.length + methods.length - this.limits.total;
      const h = list[Math.min(needed, list.length) - 1];
      waitUntil = Math.max(waitUntil, (h?.at ?? now) + this.limits.windowMs);
    }
    for (const [m, n] of adding) {
      const have = perMethod.get(m) ?? 0;
      if (have + n > this.limits.perMethod) {
        const same = list.filter((h) => h.method === m);
        const needed = have + n - this.limits.perMethod;
        const h = same[Math.min(needed, same.length) - 1];
        waitUntil = Math.max(waitUntil, (h?.at ?? now) + this.limits.windowMs);
      }
    }
    if (waitUntil > 0) {
      this.stats.throttled += 1;
      return Math.max(1, Math.ceil((waitUntil - now) / 1000));
    }
    for (const m of methods) {
      list.push({ at: now, method: m });
      this.stats.byMethod[m] = (this.stats.byMethod[m] ?? 0) + 1;
    }
    this.stats.accepted += methods.length;
    return 0;
  }

  snapshot(): RateLimitStats {
    return { ...this.stats, byMethod: { ...this.stats.byMethod } };
  }
}

/** The methods named by a JSON-RPC body (single or batch); malformed entries count as method ''. */
export function methodsOf(body: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [''];
  }
  const list = Array.isArray(parsed) ? parsed : [parsed];
  if (list.length === 0) return [''];
  return list.map((r) =>
    typeof r === 'object' && r !== null && typeof (r as { method?: unknown }).method === 'string'
      ? (r as { method: string }).method
      : '',
  );
}
