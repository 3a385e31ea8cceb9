/**
 * Who waits on which order, and in what order the priority lane checks them (payments.md, "The payment lane
 * cannot be bought"). An order page polled with its page token makes that order waiting for the poller's client
 * (the hold key of the rate limits: IPv4 address or IPv6 /64, hashed); the order service says what is at stake:
 * `money` (a wallet order, a QR record with shipping details, anything already paid towards it) or `free` (a QR
 * record with nothing sent: free for anyone to make and poll).
 *
 * - Each client has at most `perClient` waiting orders (its most recent polls; an older one goes when a new one
 *   comes), so 1,000 records polled by one client take two places, not a thousand.
 * - The clients take turns (round-robin): every client's least recently checked order before any client's
 *   second, clients served longest ago (or never) first.
 * - Money first: every waiting `money` order comes before any `free` one (the caller also keeps part of the lane
 *   for them: `reserveFor`).
 * - An order stops waiting `forMs` after its last poll; at most `maxClients` clients are remembered (the least
 *   recent go).
 */
export type Stake = 'money' | 'free';

/** Who waits: the poller's client key (hashed) and what is at stake on the order. */
export interface Waiter {
  client: string;
  stake: Stake;
}

interface Entry {
  client: string;
  stake: Stake;
  at: number;
}

export interface WaitingOptions {
  /** Waiting orders per client at most. Default 2. */
  perClient?: number;
  /** Clients remembered at most. Default 1,000. */
  maxClients?: number;
  /** An order waits this long after its last poll. Default 30 s. */
  forMs?: number;
  now?: () => number;
}

export class WaitingOrders {
  /** client → its waiting orders (insertion order = least recently polled first); map order = least recent client first. */
  private readonly byClient = new Map<string, Map<string, Entry>>();
  /** orderId → its entry (the client that polled it last). */
  private readonly entries = new Map<string, Entry>();
  /** client → the turn (a sequence number) at which one of its orders was last checked: the round-robin's order. */
  private readonly served = new Map<string, number>();
  /** orderId → the turn at which it was last checked. */
  private readonly turnOf = new Map<string, number>();
  private turn = 0;
  private readonly perClient: number;
  private readonly maxClients: number;
  private readonly forMs: number;
  private readonly now: () => number;

  constructor(opts: WaitingOptions = {}) {
    this.perClient = Math.max(1, opts.perClient ?? 2);
    this.maxClients = Math.max(1, opts.maxClients ?? 1_000);
    this.forMs = opts.forMs ?? 30_000;
    this.now = opts.now ?? Date.now;
  }

  /** `waiter.client` polls `orderId`'s page now. */
  note(orderId: string, waiter: Waiter): void {
    this.forget(orderId);
    const entry: Entry = { client: waiter.client, stake: waiter.stake, at: this.now() };
    let mine = this.byClient.get(waiter.client);
    if (mine) this.byClient.delete(waiter.client);
    else mine = new Map();
    // The client moves to the most recent end; its new order too.
    this.byClient.set(waiter.client, mine);
    mine.set(orderId, entry);
    this.entries.set(orderId, entry);
    while (mine.size > this.perClient) {
      const oldest = mine.keys().next().value;
      if (oldest === undefined) break;
      this.forget(oldest);
    }
    while (this.byClient.size > this.maxClients) {
      const [client, orders] = this.byClient.entries().next().value ?? [];
      if (client === undefined || !orders) break;
      for (const id of [...orders.keys()]) this.forget(id);
      this.byClient.delete(client);
      this.served.delete(client);
    }
  }

  /** The order no longer waits (paid, expired, or its client moved on). */
  forget(orderId: string): void {
    const entry = this.entries.get(orderId);
    if (!entry) return;
    this.entries.delete(orderId);
    this.turnOf.delete(orderId);
    const mine = this.byClient.get(entry.client);
    mine?.delete(orderId);
    if (mine?.size === 0) {
      this.byClient.delete(entry.client);
      this.served.delete(entry.client);
    }
  }

  /** Forgets the orders not polled within `forMs`. */
  prune(): void {
    const from = this.now() - this.forMs;
    for (const [id, e] of [...this.entries]) if (e.at < from) this.forget(id);
  }

  /** An order was checked now: it and its client go to the back of their turns. */
  checked(orderId: string): void {
    const entry = this.entries.get(orderId);
    if (!entry) return;
    this.turn++;
    this.served.set(entry.client, this.turn);
    this.turnOf.set(orderId, this.turn);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Waiting orders with money at stake. */
  moneyWaiting(): number {
    let n = 0;
    for (const e of this.entries.values()) if (e.stake === 'money') n++;
    return n;
  }

  /** Every waiting order, most recently polled first. */
  orderIds(): string[] {
    return [...this.entries.entries()].sort((a, b) => b[1].at - a[1].at).map(([id]) => id);
  }

  stakeOf(orderId: string): Stake | undefined {
    return this.entries.get(orderId)?.stake;
  }

  /**
   * The order in which to check: `money` before `free`; within each, the clients take turns (served longest ago
   * or never first), each client's least recently checked order (never first) before its next.
   */
  due(): { orderId: string; stake: Stake }[] {
    const lastChecked = (id: string) => this.turnOf.get(id) ?? 0;
    const out: { orderId: string; stake: Stake }[] = [];
    for (const stake of ['money', 'free'] as const) {
      const queues: string[][] = [];
      const clients = [...this.byClient.keys()].sort(
        (a, b) => (this.served.get(a) ?? 0) - (this.served.get(b) ?? 0),
      );
      for (const client of clients) {
        const ids = [...(this.byClient.get(client)?.entries() ?? [])]
          .filter(([, e]) => e.stake === stake)
          .map(([id]) => id)
          .sort((a, b) => lastChecked(a) - lastChecked(b));
        if (ids.length) queues.push(ids);
      }
      for (let turn = 0; queues.some((q) => q.length > turn); turn++)
        for (const q of queues) {
          const id = q[turn];
          if (id !== undefined) out.push({ orderId: id, stake });
        }
    }
    return out;
  }
}
