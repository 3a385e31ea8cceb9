/**
 * The claimed-row queue the mail outbox (../mail/outbox.ts) and the webhook sender (../webhooks/worker.ts) both
 * run, each on its own table:
 *
 * - claim: each due row is claimed under a lease (`locked_until`) and a token prefixed with the instance id
 *   (`<instanceId>/<uuid>`), so workers in one process or on several instances sharing PostgreSQL never hold the
 *   same row; the leases this worker holds are renewed every `leaseMs / 3` while it works, so a row held by a
 *   process that died is due again when its lease runs out, or at once when that instance restarts
 *   (releaseOwnLeases, before start).
 * - process: a pass takes up to `batchSize` due rows, claims them and processes at most `concurrency` at once;
 *   passes repeat until nothing is due (at most 1000 a run). An error stops the run (the rows in flight finish).
 * - hand-back: the rows a run claimed but did not reach (an error, or stop() on SIGTERM: the pass in flight
 *   claims nothing more and finishes only the rows it is processing) are handed back at once rather than at
 *   lease expiry, so another instance takes them now.
 * - timing: a timer runs the owner's pass every `pollMs`, at once after nudge(); `backoffMs` is the retry schedule.
 *
 * It writes no table (one writer per table, eslint-rules/table-map.js): the owner passes its table's queries
 * (ClaimedTable) and processes each row itself.
 */
import { randomUUID } from 'node:crypto';

/** Exponential backoff with jitter: base × 2^(n-1), at most `max`, then between half and all of it. */
export function backoffMs(attempts: number, random: number, base: number, max: number): number {
  const exp = Math.min(max, base * 2 ** Math.max(0, Math.min(30, attempts - 1)));
  return Math.round(exp * (0.5 + 0.5 * random));
}

/** The lease a claim takes: the token to hold the row with, and until when. */
export interface Lease {
  token: string;
  at: Date;
  /** ISO time the lease runs out. */
  until: string;
}

/** The owner's queries on its table (the owner is the table's one writer). */
export interface ClaimedTable<C, R> {
  /** Up to `limit` candidates due at `atIso`, in the order to process them. */
  due(limit: number, atIso: string): Promise<C[]>;
  /** Claims one candidate under `lease`: the claimed row, or undefined when another worker holds it. */
  claim(candidate: C, lease: Lease): Promise<R | undefined>;
  /** Extends the leases held under these tokens until `until`. */
  renew(tokens: string[], until: string): Promise<void>;
  /** Hands back the rows held under these tokens (due again at once). */
  handBack(tokens: string[]): Promise<void>;
  /** Hands back every row whose token starts with `prefix` (a previous life of this instance); how many. */
  handBackPrefix(prefix: string): Promise<number>;
}

export interface ClaimedQueueOptions<C, R> {
  table: ClaimedTable<C, R>;
  idOf: (row: R) => string;
  /** Prefix of this worker's tokens; the same across restarts of one instance (host:port). */
  instanceId: string;
  /** How long a claim holds a row without renewal (ms); renewed every leaseMs / 3. */
  leaseMs: number;
  /** Idle poll interval (ms). */
  pollMs: number;
  /** Candidates a pass takes. */
  batchSize: number;
  /** Rows processed at once. */
  concurrency: number;
  /**
   * What the timer runs: the owner's pass (its runOnce, which calls runDue with its processing). Its rejection
   * goes to onError.
   */
  pass: () => Promise<unknown>;
  now?: () => Date;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
  onError?: (err: unknown) => void;
}

export interface ClaimedQueue<R> {
  /**
   * Claims and processes every row due now (the claimed row and its token); rejects with the first error of
   * `process` after handing back what it did not reach.
   */
  runDue(process: (row: R, token: string) => Promise<void>): Promise<void>;
  /** Releases the leases held under this instanceId by a previous life of this instance (call before start). */
  releaseOwnLeases(): Promise<number>;
  start(): void;
  /** Stops the timer and waits for the pass in flight, which claims nothing more and hands back what it holds. */
  stop(): Promise<void>;
  /** Something was queued: run soon. */
  nudge(): void;
}

/** The tuning both workers take (tests shorten the timers); each adds its own options. */
export interface QueueWorkerTuning {
  now?: () => Date;
  random?: () => number;
  /** Prefix of this worker's lease tokens; the same across restarts of one instance (host:port). */
  instanceId?: string;
  /** How long a claim holds a row without renewal (ms); renewed every leaseMs / 3. */
  leaseMs?: number;
  /** Idle poll interval (ms). Default 2 s. */
  pollMs?: number;
  /** The first retry's delay and the longest (backoffMs). */
  baseDelayMs?: number;
  maxDelayMs?: number;
}

/** A worker on the queue, as the server starts and stops it. */
export interface QueueWorker<Result> {
  /** Delivers every row that is due now. */
  runOnce(): Promise<Result>;
  /** Releases the leases held under this instanceId by a previous life of this instance (call before start). */
  releaseOwnLeases(): Promise<number>;
  start(): void;
  /**
   * Stops the timer and waits for the work in progress; the pass in flight claims nothing more and hands back
   * the rows it claimed but did not reach, so another instance takes them at once (SIGTERM: deploy.md).
   */
  stop(): Promise<void>;
  /** Something was queued: run soon. */
  nudge(): void;
}

/** The worker of an owner's pass on its queue. */
export function queueWorker<Result>(
  queue: ClaimedQueue<unknown>,
  runOnce: () => Promise<Result>,
): QueueWorker<Result> {
  return {
    runOnce,
    releaseOwnLeases: () => queue.releaseOwnLeases(),
    start: () => queue.start(),
    stop: () => queue.stop(),
    nudge: () => queue.nudge(),
  };
}

/** Runs `fn` over `items`, at most `cap` at once, starting none once `halt()` or after an error; rethrows it. */
async function inLanes<T>(items: T[], cap: number, halt: () => boolean, fn: (item: T) => Promise<void>) {
  let next = 0;
  let failed: { err: unknown } | undefined;
  const lane = async () => {
    while (next < items.length && !failed && !halt()) {
      const item = items[next++] as T;
      try {
        await fn(item);
      } catch (err) {
        failed ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(cap, items.length)) }, lane));
  if (failed) throw failed.err;
}

export function createClaimedQueue<C, R>(opts: ClaimedQueueOptions<C, R>): ClaimedQueue<R> {
  const { table, idOf, instanceId, leaseMs } = opts;
  const now = opts.now ?? (() => new Date());
  const setTimer = opts.setTimer ?? ((fn: () => void, ms: number) => setTimeout(fn, ms).unref());
  const clearTimer = opts.clearTimer ?? ((h: unknown) => clearTimeout(h as NodeJS.Timeout));
  /** Rows this worker holds now (id → token), renewed on a timer while it works. */
  const held = new Map<string, string>();
  let renewTimer: ReturnType<typeof setInterval> | undefined;

  function startRenewing() {
    if (renewTimer) return;
    renewTimer = setInterval(
      () => {
        if (held.size === 0) return;
        const until = new Date(now().getTime() + leaseMs).toISOString();
        table.renew([...held.values()], until).catch((err: unknown) => opts.onError?.(err));
      },
      Math.max(50, Math.floor(leaseMs / 3)),
    );
    renewTimer.unref();
  }

  /** Set by stop(): the pass in flight claims nothing more and finishes only the rows it is processing. */
  let stopping = false;

  async function runDue(process: (row: R, token: string) => Promise<void>): Promise<void> {
    const mine = new Set<string>();
    startRenewing();
    try {
      for (let pass = 0; pass < 1000 && !stopping; pass++) {
        const candidates = await table.due(opts.batchSize, now().toISOString());
        const batch: { row: R; token: string }[] = [];
        for (const candidate of candidates) {
          if (stopping) break;
          const at = now();
          const lease = {
            token: `${instanceId}/${randomUUID()}`,
            at,
            until: new Date(at.getTime() + leaseMs).toISOString(),
          };
          const row = await table.claim(candidate, lease);
          if (!row) continue; // another worker has it
          held.set(idOf(row), lease.token);
          mine.add(idOf(row));
          batch.push({ row, token: lease.token });
        }
        if (batch.length === 0) break;
        // Stopping (SIGTERM): the rows not reached are handed back below, for another instance at once.
        await inLanes(
          batch,
          opts.concurrency,
          () => stopping,
          async ({ row, token }) => {
            try {
              await process(row, token);
            } finally {
              held.delete(idOf(row));
            }
          },
        );
      }
    } finally {
      // Rows claimed but not reached (an error above, or stop) are handed back at once rather than at lease expiry.
      const left: string[] = [];
      for (const id of mine) {
        const token = held.get(id);
        if (token !== undefined) left.push(token);
        held.delete(id);
      }
      if (held.size === 0 && renewTimer) {
        clearInterval(renewTimer);
        renewTimer = undefined;
      }
      if (left.length) await table.handBack(left).catch(() => undefined);
    }
  }

  let timer: unknown;
  let running: Promise<unknown> | undefined;
  let again = false;
  let started = false;

  function schedule(ms: number) {
    if (!started) return;
    if (timer !== undefined) clearTimer(timer);
    timer = setTimer(() => {
      timer = undefined;
      void tick();
    }, ms);
  }

  async function tick(): Promise<void> {
    if (running) {
      again = true;
      return;
    }
    running = opts.pass();
    try {
      await running;
    } catch (err) {
      opts.onError?.(err);
    } finally {
      running = undefined;
    }
    if (again) {
      again = false;
      schedule(0);
    } else schedule(opts.pollMs);
  }

  return {
    runDue,
    releaseOwnLeases: () => table.handBackPrefix(`${instanceId}/`),
    start() {
      if (started) return;
      started = true;
      schedule(0);
    },
    async stop() {
      started = false;
      stopping = true;
      if (timer !== undefined) clearTimer(timer);
      timer = undefined;
      if (running) await running.catch(() => undefined);
      stopping = false;
    },
    nudge() {
      if (!started) return;
      if (running) again = true;
      else schedule(0);
    },
  };
}
