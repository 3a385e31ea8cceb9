/**
 * The process-wide Solana RPC budget: every JSON-RPC request the server sends over HTTP goes through one
 * `RpcBudget` (the payments Connection is built with `budgetedFetch`), so the whole process never sends more
 * than `perWindow` requests in any `windowMs` (and `perMethod` of one method), whatever the number of open
 * orders, hints or the WebSocket's state.
 *
 * 429 and 5xx answers are honoured: a 429 pauses the whole budget until its `Retry-After` (or an exponential
 * backoff when absent), a 5xx or a transport failure backs the request off with jitter; each is retried a few
 * times, never in a tight loop, and counted (`stats()`). A request that cannot get a slot before its deadline
 * fails at once (`RpcBudgetExhaustedError`) rather than queueing without end.
 *
 * On PostgreSQL the budget is the fleet's: `shared` (fleet-budget.ts) grants each request a slot of one budget
 * every instance on the store spends from; this process's queue, lanes and priority reserve decide the order in
 * which its own requests ask. On SQLite (one instance) the process's window is the whole budget.
 */

import { AsyncLocalStorage } from 'node:async_hooks';
import type { SharedBudget, SharedBudgetStats } from './fleet-budget';

/**
 * Requests made inside `rpcPriority.run(true, …)` take the next free slot without queueing behind the others (the
 * watcher's checks of orders someone waits on; their own lane bounds how many there are). The slots held back
 * for them (`reserveForPriority`) are theirs alone, and while one waits for a method, no other request takes a
 * slot of that method.
 */
export const rpcPriority = new AsyncLocalStorage<boolean>();

/**
 * Requests made inside `rpcBackground.run(true, …)` never wait in the queue: when no slot is free now they are
 * refused at once (RpcBudgetExhaustedError with the time until one frees), so a backlog working through the
 * budget (the watcher judging a dust flood) never holds up the requests behind it (readiness's getSlot, a
 * refund check); its caller waits out of the queue and asks again.
 */
export const rpcBackground = new AsyncLocalStorage<boolean>();

export interface RpcStats {
  /** JSON-RPC requests sent (batch entries counted one each), retries included. */
  requests: number;
  /** Answers refused with HTTP 429. */
  throttled: number;
  /** 5xx answers and transport failures. */
  errors: number;
  /** Requests refused locally because no slot was free before their deadline. */
  shed: number;
  /**
   * Background requests (rpcBackground) refused because no slot was free at once: not lost, their caller asks
   * again when the budget says a slot frees (the watcher judging a backlog).
   */
  deferred: number;
  /** Requests waiting for a slot now. */
  waiting: number;
  /** The configured budget: requests per window. */
  perWindow: number;
  windowMs: number;
  /** Requests sent in the last window. */
  inWindow: number;
  /** The fleet's budget (PostgreSQL): its claims in the store. Absent when the budget is the process's own. */
  shared?: SharedBudgetStats;
}

export interface RpcBudgetOptions {
  /** Requests in any window. */
  perWindow: number;
  /** Default 10 s. */
  windowMs?: number;
  /** Requests of one method in any window. Default 40 % of perWindow (the public endpoint's 40 of 100). */
  perMethod?: number;
  now?: () => number;
  /**
   * The budget several instances share (fleet-budget.ts, on PostgreSQL): every request also takes a grant from it,
   * within the same limits (`perWindow`, `perMethod`, less the priority reserve for others).
   */
  shared?: SharedBudget;
}

export class RpcBudgetExhaustedError extends Error {
  override name = 'RpcBudgetExhaustedError';
  constructor(
    message: string,
    /** When a slot for the refused request frees (ms from the refusal), as far as the budget knows. */
    readonly retryInMs?: number,
  ) {
    super(message);
  }
}

/**
 * The budget refused the request (no slot before its deadline): how long until a slot frees, found through the
 * error's causes (an RPC port wraps it). Undefined for any other failure.
 */
export function budgetRetryInMs(err: unknown): number | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && e instanceof Error; depth++) {
    if (e instanceof RpcBudgetExhaustedError) return Math.max(0, e.retryInMs ?? 1000);
    e = e.cause;
  }
  return undefined;
}

/** Slots of every window held back for priority requests (rpcPriority): others may not take them. */
export interface PriorityReserve {
  /** Of the window's total. */
  total: number;
  /** Of each method's share. */
  perMethod: number;
}

interface Sent {
  at: number;
  method: string;
}

export class RpcBudget {
  readonly perWindow: number;
  readonly windowMs: number;
  readonly perMethod: number;
  private readonly now: () => number;
  private readonly shared: SharedBudget | undefined;
  private sent: Sent[] = [];
  private pausedUntil = 0;
  private chain: Promise<void> = Promise.resolve();
  private readonly counters = { requests: 0, throttled: 0, errors: 0, shed: 0, deferred: 0, waiting: 0 };
  private reserve: PriorityReserve = { total: 0, perMethod: 0 };
  /** Methods priority requests are waiting for now (with how many). */
  private readonly priorityWaiting = new Map<string, number>();

  constructor(options: RpcBudgetOptions) {
    this.perWindow = Math.max(1, Math.floor(options.perWindow));
    this.windowMs = options.windowMs ?? 10_000;
    this.perMethod = Math.max(1, Math.floor(options.perMethod ?? this.perWindow * 0.4));
    this.now = options.now ?? Date.now;
    this.shared = options.shared;
  }

  /**
   * Holds back slots of every window for priority requests (the payment watcher's checks of awaited orders), so
   * they never wait behind a backlog that took the whole share of a method.
   */
  reserveForPriority(reserve: PriorityReserve): void {
    this.reserve = {
      total: Math.max(0, Math.min(this.perWindow - 1, Math.floor(reserve.total))),
      perMethod: Math.max(0, Math.min(this.perMethod - 1, Math.floor(reserve.perMethod))),
    };
  }

  /**
   * Waits for a slot for `methods` (one HTTP request; a batch names several) and counts them as sent. Slots are
   * handed out in arrival order. Throws RpcBudgetExhaustedError when none is free before `deadline` (epoch ms).
   */
  acquire(methods: string[], deadline = Infinity): Promise<void> {
    if (rpcPriority.getStore()) return this.acquireFirst(methods, deadline);
    const background = rpcBackground.getStore() === true;
    if (background) deadline = Math.min(deadline, this.now());
    this.counters.waiting++;
    const turn = this.chain.then(async () => {
      for (;;) {
        let wait = this.waitFor(methods, false);
        if (wait <= 0) wait = await this.takeShared(methods, false);
        if (wait <= 0) break;
        if (this.now() + wait > deadline) {
          if (background) this.counters.deferred++;
          else this.counters.shed++;
          throw new RpcBudgetExhaustedError(
            `RPC budget: no slot within the deadline (${this.perWindow} per ${this.windowMs / 1000} s)`,
            wait,
          );
        }
        await sleep(wait);
      }
      const at = this.now();
      for (const method of methods) this.sent.push({ at, method });
      this.counters.requests += methods.length;
    });
    // The next caller waits for this one's turn, not for its failure.
    this.chain = turn.catch(() => undefined);
    return turn.finally(() => {
      this.counters.waiting--;
    });
  }

  /** A priority request: the next slot that is free, ahead of the queue (still within every limit). */
  private async acquireFirst(methods: string[], deadline: number): Promise<void> {
    this.counters.waiting++;
    for (const m of methods) this.priorityWaiting.set(m, (this.priorityWaiting.get(m) ?? 0) + 1);
    try {
      for (;;) {
        const local = this.waitFor(methods, true);
        // The fleet's answer is a time to ask again (not polled every 50 ms: each ask is a claim in the store).
        const wait = local > 0 ? local : await this.takeShared(methods, true);
        if (wait <= 0) break;
        if (this.now() + wait > deadline) {
          this.counters.shed++;
          throw new RpcBudgetExhaustedError(
            `RPC budget: no slot within the deadline (${this.perWindow} per ${this.windowMs / 1000} s)`,
            wait,
          );
        }
        await sleep(local > 0 ? Math.min(local, 50) : wait);
      }
      const at = this.now();
      for (const method of methods) this.sent.push({ at, method });
      this.counters.requests += methods.length;
    } finally {
      this.counters.waiting--;
      for (const m of methods) {
        const n = (this.priorityWaiting.get(m) ?? 1) - 1;
        if (n > 0) this.priorityWaiting.set(m, n);
        else this.priorityWaiting.delete(m);
      }
    }
  }

  /** A grant from the fleet's budget (0: taken; else ms until asking again), within this request's limits. */
  private takeShared(methods: string[], priority: boolean): Promise<number> {
    if (!this.shared) return Promise.resolve(0);
    return this.shared.take(
      methods,
      priority
        ? { total: this.perWindow, perMethod: this.perMethod }
        : { total: this.perWindow - this.reserve.total, perMethod: this.perMethod - this.reserve.perMethod },
      priority,
    );
  }

  /** A 429: nobody sends before `until` (epoch ms). */
  pause(until: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, until);
  }

  noteThrottled(): void {
    this.counters.throttled++;
  }

  noteError(): void {
    this.counters.errors++;
  }

  stats(): RpcStats {
    this.prune();
    return {
      ...this.counters,
      perWindow: this.perWindow,
      windowMs: this.windowMs,
      inWindow: this.sent.length,
      ...(this.shared ? { shared: this.shared.stats() } : {}),
    };
  }

  private prune(): void {
    const from = this.now() - this.windowMs;
    let i = 0;
    while (i < this.sent.length && (this.sent[i]?.at ?? 0) <= from) i++;
    if (i > 0) this.sent = this.sent.slice(i);
  }

  /**
   * Milliseconds until `methods` fit in the window (0: now). A request that is not a priority one sees the
   * limits less the reserve, and waits while a priority request waits for one of its methods.
   */
  private waitFor(methods: string[], priority: boolean): number {
    const now = this.now();
    this.prune();
    let until = this.pausedUntil;
    const perWindow = priority ? this.perWindow : this.perWindow - this.reserve.total;
    const perMethod = priority ? this.perMethod : this.perMethod - this.reserve.perMethod;
    if (!priority && methods.some((m) => this.priorityWaiting.has(m))) until = Math.max(until, now + 25);
    const over = this.sent.length + methods.length - perWindow;
    if (over > 0) {
      const s = this.sent[Math.min(over, this.sent.length) - 1];
      until = Math.max(until, (s?.at ?? now) + this.windowMs + 1);
    }
    const adding = new Map<string, number>();
    for (const m of methods) adding.set(m, (adding.get(m) ?? 0) + 1);
    for (const [m, n] of adding) {
      const same = this.sent.filter((s) => s.method === m);
      const overM = same.length + n - perMethod;
      if (overM > 0) {
        const s = same[Math.min(overM, same.length) - 1];
        until = Math.max(until, (s?.at ?? now) + this.windowMs + 1);
      }
    }
    return Math.max(0, until - now);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    t.unref?.();
  });
}

/** Seconds or an HTTP date, in ms from now; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function methodsOf(body: unknown): string[] {
  if (typeof body !== 'string') return ['?'];
  try {
    const parsed: unknown = JSON.parse(body);
    const list = Array.isArray(parsed) ? parsed : [parsed];
    const names = list.map((r) =>
      typeof r === 'object' && r !== null && typeof (r as { method?: unknown }).method === 'string'
        ? (r as { method: string }).method
        : '?',
    );
    return names.length ? names : ['?'];
  } catch {
    return ['?'];
  }
}

export interface BudgetedFetchOptions {
  /** Attempts per request (the first included). Default 3. */
  attempts?: number;
  /** First backoff (doubles per attempt, ± 50 % jitter). Default 500 ms. */
  backoffMs?: number;
  /** A request gives up (no slot, no further retry) this long after it was made. Default 5 s. */
  deadlineMs?: number;
  /** The underlying fetch. Default globalThis.fetch. */
  fetch?: typeof fetch;
  random?: () => number;
}

type FetchArgs = Parameters<typeof fetch>;

/**
 * The fetch of the server's RPC client (connection.ts: every kit request and raw JSON-RPC request): each
 * request takes its slots from `budget`; 429 pauses the budget (Retry-After) and retries; 5xx and transport
 * failures back off with jitter and retry; all within the request's deadline.
 */
export function budgetedFetch(budget: RpcBudget, options: BudgetedFetchOptions = {}): typeof fetch {
  const attempts = options.attempts ?? 3;
  const backoffMs = options.backoffMs ?? 500;
  const deadlineMs = options.deadlineMs ?? 5_000;
  const random = options.random ?? Math.random;
  const base = options.fetch ?? globalThis.fetch.bind(globalThis);
  const jitter = (ms: number) => Math.round(ms * (0.5 + random()));
  return async (input: FetchArgs[0], init?: FetchArgs[1]): Promise<Response> => {
    const deadline = Date.now() + deadlineMs;
    const methods = methodsOf(init?.body);
    let delay = backoffMs;
    for (let attempt = 1; ; attempt++) {
      await budget.acquire(methods, deadline);
      let res: Response;
      try {
        res = await base(input, init);
      } catch (err) {
        budget.noteError();
        const wait = jitter(delay);
        delay *= 2;
        if (attempt >= attempts || Date.now() + wait >= deadline) throw err;
        await sleep(wait);
        continue;
      }
      if (res.status === 429) {
        budget.noteThrottled();
        const wait = retryAfterMs(res.headers.get('retry-after')) ?? jitter(delay);
        delay *= 2;
        // Everyone waits: the provider said this address is over its limit.
        budget.pause(Date.now() + wait + jitter(100));
        if (attempt >= attempts || Date.now() + wait >= deadline) return res;
        await res.body?.cancel().catch(() => undefined);
        continue;
      }
      if (res.status >= 500) {
        budget.noteError();
        const wait = jitter(delay);
        delay *= 2;
        if (attempt >= attempts || Date.now() + wait >= deadline) return res;
        await res.body?.cancel().catch(() => undefined);
        await sleep(wait);
        continue;
      }
      return res;
    }
  };
}
