/**
 * What /api/health/ready and /metrics read from the parts of the process, through one small interface so the
 * HTTP edge never reaches into the payment watcher or the RPC client. Every provider is optional: the payments
 * service supplies `rpcStats` and `watcherLag` when it runs (returned by its `services` entry in
 * startServer); without them the RPC is still checked by `rpcReachable` (one getSlot, cached a few seconds).
 */
export interface RpcStats {
  /** JSON-RPC requests this process sent (HTTP and WebSocket), since start. */
  requests: number;
  /** Of those, answered with HTTP 429 (rate limited). */
  rateLimited: number;
}

export interface WatcherLag {
  /** This instance holds the watch (else the figures are the holder's, read from the database). */
  watching: boolean;
  /**
   * Seconds since the watcher last caught up with every vendor token account (listed to the chain's head, all
   * judged); before the first catch-up, since the watch (or this instance) started.
   */
  lagSeconds: number;
  /** When it last caught up (null: not yet). */
  caughtUpAt: Date | null;
  /**
   * This instance's backlog: vendor transfers waiting to be judged, and whether payments are still seen on time
   * meanwhile (the orders someone waits on were checked by reference recently). Absent: not watching here.
   */
  backlog?: { transfers: number; paymentsOnTime: boolean };
  /**
   * This instance took the watch and has not caught up once since (a fresh instance, a new holder): how far
   * behind the chain it is (seconds), and whether the catch-up moved lately. Absent: not watching here.
   */
  catchUp?: { catchingUp: boolean; behindSeconds: number; progressing: boolean };
}

export interface OpsProbes {
  rpcStats?: () => RpcStats;
  /** How far the payment watcher is behind the chain (absent: no watcher runs in this process). */
  watcherLag?: () => Promise<WatcherLag>;
  /** True when the Solana RPC answers. */
  rpcReachable?: () => Promise<boolean>;
}

/** Merges providers as services start (later ones win per function). */
export function mergeProbes(target: OpsProbes, more: OpsProbes | undefined): void {
  if (!more) return;
  if (more.rpcStats) target.rpcStats = more.rpcStats;
  if (more.watcherLag) target.watcherLag = more.watcherLag;
  if (more.rpcReachable) target.rpcReachable = more.rpcReachable;
}
