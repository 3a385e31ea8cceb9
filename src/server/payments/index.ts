/**
 * Payments: verification (verify.ts), the RPC port (rpc.ts), the WebSocket feed (feed.ts) and the watcher
 * (watcher.ts). `startPayments` is the composition the server uses: one Connection, one feed, one watcher,
 * the order service's hint hook.
 */
import { Connection } from '@solana/web3.js';
import type { OrderService } from '../orders/service';
import type { Settings } from '../settings';
import { WsLogsFeed } from './feed';
import { connectionPaymentRpc } from './rpc';
import { PaymentWatcher, type PaymentWatcherOptions, type WatcherEvent } from './watcher';

export * from './rpc';
export * from './verify';
export * from './feed';
export * from './watcher';

export interface StartPaymentsDeps {
  settings: Pick<Settings, 'solana' | 'claimMint' | 'recipients'>;
  orders: Pick<OrderService, 'ordersToWatch' | 'isSignatureUsed' | 'recordPayment' | 'setPaymentHintHandler'>;
  now?: () => Date;
  /** Watcher events (recorded, rejected, partial, final, error). Default: errors to console.warn, rate-limited. */
  onEvent?: (event: WatcherEvent) => void;
  /** Timing and limits (tests, benchmarks). */
  watcher?: Partial<
    Omit<PaymentWatcherOptions, 'rpc' | 'orders' | 'feed' | 'recipients' | 'mint' | 'now' | 'onEvent'>
  >;
  /** Time limit of each RPC call (ms). Default 5000. */
  rpcTimeoutMs?: number;
}

export interface RunningPayments {
  watcher: PaymentWatcher;
  feed: WsLogsFeed;
  stop(): Promise<void>;
}

function defaultOnEvent(): (event: WatcherEvent) => void {
  const lastLogged = new Map<string, number>();
  return (event) => {
    if (event.type !== 'error') return;
    const key = event.where.split(' ')[0] ?? event.where;
    const now = Date.now();
    if ((lastLogged.get(key) ?? 0) > now - 30_000) return;
    lastLogged.set(key, now);
    console.warn(
      `payments: ${event.where}:`,
      event.error instanceof Error ? event.error.message : event.error,
    );
  };
}

/** Starts watching payments for the order service; `stop()` undoes everything. */
export async function startPayments(deps: StartPaymentsDeps): Promise<RunningPayments> {
  const connection = new Connection(deps.settings.solana.rpcUrl, {
    commitment: 'confirmed',
    wsEndpoint: deps.settings.solana.wsUrl,
  });
  const rpc = connectionPaymentRpc(connection, { timeoutMs: deps.rpcTimeoutMs ?? 5_000 });
  const onEvent = deps.onEvent ?? defaultOnEvent();
  const feed = new WsLogsFeed(deps.settings.solana.wsUrl, {
    onError: (error) => onEvent({ type: 'error', where: 'websocket', error }),
  });
  const watcher = new PaymentWatcher({
    ...deps.watcher,
    rpc,
    orders: deps.orders,
    feed,
    recipients: Object.values(deps.settings.recipients),
    mint: deps.settings.claimMint,
    ...(deps.now ? { now: deps.now } : {}),
    onEvent,
  });
  deps.orders.setPaymentHintHandler(watcher.hintHandler());
  await watcher.start();
  return {
    watcher,
    feed,
    async stop() {
      deps.orders.setPaymentHintHandler(undefined);
      await watcher.stop();
      await feed.close();
    },
  };
}
