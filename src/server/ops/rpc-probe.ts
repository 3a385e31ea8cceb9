/**
 * Is the Solana RPC reachable? One `getSlot` JSON-RPC call, cached for `cacheMs` (default 5 s) so health checks
 * and scrapes cost at most one request per window, with a timeout. Concurrent callers share the call in flight.
 * A call our own side refused before asking the RPC (`notAsked`: the process's RPC budget had no slot in time,
 * e.g. while the watcher works through a dust burst) says nothing about the RPC: the last answer stands.
 */
export interface RpcProbeOptions {
  cacheMs?: number;
  timeoutMs?: number;
  fetch?: typeof fetch;
  now?: () => number;
  /** True for an error of `fetch` that means the request was never sent (the last known answer stands). */
  notAsked?: (err: unknown) => boolean;
}

export function createRpcProbe(rpcUrl: string, opts: RpcProbeOptions = {}): () => Promise<boolean> {
  const cacheMs = opts.cacheMs ?? 5_000;
  const timeoutMs = opts.timeoutMs ?? 2_000;
  const fetchImpl = opts.fetch ?? fetch;
  const now = opts.now ?? Date.now;
  let last: { at: number; ok: boolean } | undefined;
  let inFlight: Promise<boolean> | undefined;

  async function check(): Promise<boolean> {
    try {
      const res = await fetchImpl(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'getSlot',
          params: [{ commitment: 'confirmed' }],
        }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (!res.ok) return false;
      const body = (await res.json()) as { result?: unknown };
      return typeof body.result === 'number';
    } catch (err) {
      if (opts.notAsked?.(err)) return last?.ok ?? true;
      return false;
    }
  }

  return async () => {
    if (last && now() - last.at < cacheMs) return last.ok;
    inFlight ??= check().then((ok) => {
      last = { at: now(), ok };
      inFlight = undefined;
      return ok;
    });
    return inFlight;
  };
}
