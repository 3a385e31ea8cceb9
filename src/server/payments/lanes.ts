/**
 * The payment watcher's lanes as the rest of the server reaches them, made first in the composition (server.ts)
 * and handed to the order service at construction, to the hint route and to the watcher: the chain clock (how far
 * the watcher has judged; expiry follows it), the awaited lane (someone polls an order with its page token) and
 * the hint lane (a wallet's "I sent it"). The watcher serves them while it runs (startPayments); until then, and
 * after it stops, the clock is unset (the wall clock decides expiry), nobody is awaited and hints are dropped.
 * Nothing calls back into the order service: the order module reads the clock and tells the awaited lane; the
 * hint route hands the hint to the hint lane itself.
 */
import type { AwaitedHandler, ChainClock, OrderLanes, PaymentHintHandler } from '../orders/types';

/** What a running watcher serves (any part may be missing: tests serve only the one they drive). */
export interface LaneServer {
  chainClock?: ChainClock;
  awaited?: AwaitedHandler;
  hint?: PaymentHintHandler;
}

export interface WatchLanes extends OrderLanes {
  /** The wallet page's hint for `order`; does nothing while no watcher serves the lanes. */
  hint: PaymentHintHandler;
  /** A watcher serves the lanes from now on; the returned function stops serving (if still the one served). */
  serve(server: LaneServer): () => void;
}

export function createWatchLanes(): WatchLanes {
  let current: LaneServer = {};
  return {
    chainClock: async () => (current.chainClock ? await current.chainClock() : undefined),
    awaitedLane: () => current.awaited,
    hint: async (order, signature) => {
      await current.hint?.(order, signature);
    },
    serve(server) {
      const served = { ...server };
      current = served;
      return () => {
        if (current === served) current = {};
      };
    },
  };
}
