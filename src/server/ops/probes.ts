/**
 * What /api/health/ready and /metrics read from the parts of the process, through one small interface so the
 * HTTP edge never reaches into the payment watcher or the RPC client. Every provider is optional: the payments
 * service supplies `rpcStats` and `watcherLagSeconds` when it runs (returned by its `services` entry in
 * startServer); without them the RPC is still checked by `rpcReachable` (one getSlot, cached a few seconds).
 */
export interface RpcStats {
  /** JSON-RPC requests this process sent (HTTP and WebSocket), since start. */
  requests: number;
  /** Of those, answered with HTTP 429 (rate limited). */
  rateLimited: number;
}

export interface OpsProbes {
  rpcStats?: () => RpcStats;
  /** Seconds the payment watcher is behind the chain (undefined: not known yet). */
  watcherLagSeconds?: () => number | undefined;
  /** True when the Solana RPC answers. */
  rpcReachable?: () => Promise<boolean>;
}

/** Merges providers as services start (later ones win per function). */
export function mergeProbes(target: OpsProbes, more: OpsProbes | undefined): void {
  if (!more) return;
  if (more.rpcStats) target.rpcStats = more.rpcStats;
  if (more.watcherLagSeconds) target.watcherLagSeconds = more.watcherLagSeconds;
  if (more.rpcReachable) target.rpcReachable = more.rpcReachable;
}
