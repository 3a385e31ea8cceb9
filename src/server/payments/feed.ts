/**
 * Push notifications of transactions mentioning an address: one JSON-RPC `logsSubscribe({mentions:[address]})`
 * per watched address over one WebSocket, re-subscribed after every reconnect. A notification is only a
 * trigger: the watcher re-verifies on the chain. `healthy()` tells the watcher when to fall back to polling.
 */
import WebSocket from 'ws';

export interface ReferenceFeed {
  /** Follow `address`; `onSignature` gets the signature of each confirmed transaction mentioning it. */
  watch(address: string, onSignature: (signature: string) => void): void;
  unwatch(address: string): void;
  /** Connected, and every watched address acknowledged by the node. */
  healthy(): boolean;
  close(): Promise<void>;
}

export interface WsLogsFeedOptions {
  /** Delay before the first reconnect (doubles up to maxReconnectMs). Default 250 ms. */
  reconnectMs?: number;
  maxReconnectMs?: number;
  commitment?: 'confirmed' | 'finalized';
  /** Errors worth logging (connection failures, refused subscriptions). */
  onError?: (err: Error) => void;
}

interface Watch {
  onSignature: (signature: string) => void;
  subscription: number | null;
  requestId: number | null;
}

export class WsLogsFeed implements ReferenceFeed {
  private socket: WebSocket | null = null;
  private open = false;
  private closed = false;
  private nextId = 1;
  private delay: number;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private readonly watches = new Map<string, Watch>();
  private readonly pending = new Map<number, { address: string; kind: 'subscribe' | 'unsubscribe' }>();
  private readonly bySubscription = new Map<number, string>();

  constructor(
    private readonly wsUrl: string,
    private readonly options: WsLogsFeedOptions = {},
  ) {
    this.delay = options.reconnectMs ?? 250;
    this.connect();
  }

  watch(address: string, onSignature: (signature: string) => void): void {
    const existing = this.watches.get(address);
    if (existing) {
      existing.onSignature = onSignature;
      return;
    }
    const w: Watch = { onSignature, subscription: null, requestId: null };
    this.watches.set(address, w);
    if (this.open) this.subscribe(address, w);
  }

  unwatch(address: string): void {
    const w = this.watches.get(address);
    if (!w) return;
    this.watches.delete(address);
    if (w.subscription !== null) {
      this.bySubscription.delete(w.subscription);
      if (this.open) this.send('logsUnsubscribe', [w.subscription], { address, kind: 'unsubscribe' });
    }
  }

  healthy(): boolean {
    if (!this.open) return false;
    for (const w of this.watches.values()) if (w.subscription === null) return false;
    return true;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    const socket = this.socket;
    this.socket = null;
    this.open = false;
    if (!socket || socket.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      socket.once('close', () => resolve());
      socket.terminate();
    });
  }

  private connect(): void {
    if (this.closed) return;
    const socket = new WebSocket(this.wsUrl);
    this.socket = socket;
    socket.on('open', () => {
      if (this.socket !== socket) return;
      this.open = true;
      this.delay = this.options.reconnectMs ?? 250;
      for (const [address, w] of this.watches) this.subscribe(address, w);
    });
    socket.on('message', (data) => this.onMessage(String(data)));
    socket.on('error', (err) => this.options.onError?.(err));
    socket.on('close', () => {
      if (this.socket !== socket) return;
      this.open = false;
      this.socket = null;
      this.pending.clear();
      this.bySubscription.clear();
      for (const w of this.watches.values()) {
        w.subscription = null;
        w.requestId = null;
      }
      this.scheduleReconnect();
    });
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer) return;
    const delay = this.delay;
    this.delay = Math.min(this.delay * 2, this.options.maxReconnectMs ?? 5_000);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.connect();
    }, delay);
    this.reconnectTimer.unref?.();
  }

  private subscribe(address: string, w: Watch): void {
    w.requestId = this.send(
      'logsSubscribe',
      [{ mentions: [address] }, { commitment: this.options.commitment ?? 'confirmed' }],
      {
        address,
        kind: 'subscribe',
      },
    );
  }

  private send(
    method: string,
    params: unknown[],
    pending: { address: string; kind: 'subscribe' | 'unsubscribe' },
  ): number {
    const id = this.nextId++;
    this.pending.set(id, pending);
    // A send racing a close fails through the callback (the close handler resubscribes); never throws.
    this.socket?.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }), (err) => {
      if (err) this.options.onError?.(err);
    });
    return id;
  }

  private onMessage(text: string): void {
    let msg: {
      id?: unknown;
      result?: unknown;
      error?: { message?: string };
      method?: unknown;
      params?: unknown;
    };
    try {
      msg = JSON.parse(text) as typeof msg;
    } catch {
      return;
    }
    if (typeof msg.id === 'number') {
      const p = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      if (!p || p.kind !== 'subscribe') return;
      const w = this.watches.get(p.address);
      if (msg.error || typeof msg.result !== 'number') {
        this.options.onError?.(
          new Error(`logsSubscribe ${p.address} refused: ${msg.error?.message ?? 'no subscription id'}`),
        );
        return;
      }
      if (!w || w.requestId !== msg.id) {
        // Unwatched (or re-subscribed) while the request was in flight: drop the stale subscription.
        this.send('logsUnsubscribe', [msg.result], { address: p.address, kind: 'unsubscribe' });
        return;
      }
      w.subscription = msg.result;
      this.bySubscription.set(msg.result, p.address);
      return;
    }
    if (msg.method !== 'logsNotification') return;
    const params = msg.params as
      { subscription?: unknown; result?: { value?: { signature?: unknown } } } | undefined;
    const sub = params?.subscription;
    const signature = params?.result?.value?.signature;
    if (typeof sub !== 'number' || typeof signature !== 'string') return;
    const address = this.bySubscription.get(sub);
    const w = address === undefined ? undefined : this.watches.get(address);
    w?.onSignature(signature);
  }
}
