/**
 * The daily retention job: erases the personal data of orders delivered or closed longer ago than
 * PERSONAL_DATA_RETENTION_DAYS (the order module's runRetention). One instance at a time, through the same lease
 * table as the payment watcher (several API instances on one PostgreSQL database: whoever takes the lease runs,
 * the others skip that day's run). Idempotent: an erased order is not due again, so a run repeated after a crash
 * only finishes the rest. On SQLite the WAL is then checkpointed and truncated, so the erased values' old pages
 * do not linger in it.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { sql } from 'kysely';
import { redactError } from '../redact';
import type { RetentionResult } from '../orders/types';
import type { OrderService } from '../orders/service';
import { kyselyScanStore } from '../payments/scan-store';
import type { Store } from '../store/store';

export const RETENTION_LEASE = 'personal-data-retention';
export const DAY_MS = 24 * 3600_000;

export interface RetentionJobDeps {
  store: Store;
  orders: Pick<OrderService, 'runRetention'>;
  now: () => Date;
  /** This instance's lease holder id (default: host, process and a random id). */
  holder?: string;
  /** Between runs (default one day). */
  everyMs?: number;
  /** Before the first run after start (default 1 minute: the store is busy starting). */
  firstAfterMs?: number;
  /** How long the lease is held while a run lasts (default 30 minutes). */
  leaseMs?: number;
  /** Default: a line on stdout when something was erased or waits. */
  onRun?: (result: RetentionResult) => void;
  /** Default: the error on stderr, redacted. */
  onError?: (err: unknown) => void;
}

function logRun(r: RetentionResult): void {
  if (r.erased > 0 || r.waiting > 0)
    console.log(
      `personal data: erased the details of ${r.erased} orders past their retention` +
        (r.waiting ? ` (${r.waiting} wait for an e-mail still being delivered)` : ''),
    );
}

export interface RetentionJob {
  /** One run now, if this instance gets the lease (undefined: another instance holds it). */
  runNow(): Promise<RetentionResult | undefined>;
  stop(): Promise<void>;
}

export function startRetentionJob(options: RetentionJobDeps): RetentionJob {
  const deps = {
    ...options,
    holder: options.holder ?? `${hostname()}:${process.pid}:${randomUUID()}`,
    onRun: options.onRun ?? logRun,
    onError:
      options.onError ?? ((err: unknown) => console.error('personal data retention:', redactError(err))),
  };
  const leases = kyselyScanStore(deps.store.db);
  const leaseMs = deps.leaseMs ?? 30 * 60_000;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<RetentionResult | undefined> | undefined;
  let stopped = false;

  async function runOnce(): Promise<RetentionResult | undefined> {
    const now = deps.now();
    const held = await leases.acquireLease(
      RETENTION_LEASE,
      deps.holder,
      now,
      new Date(now.getTime() + leaseMs),
    );
    if (!held) return undefined;
    try {
      const result = await deps.orders.runRetention(now);
      if (result.erased > 0 && deps.store.dialect === 'sqlite')
        await sql`pragma wal_checkpoint(truncate)`.execute(deps.store.db).catch(() => undefined);
      deps.onRun?.(result);
      return result;
    } finally {
      await leases.releaseLease(RETENTION_LEASE, deps.holder).catch(() => undefined);
    }
  }

  function runNow(): Promise<RetentionResult | undefined> {
    if (!running)
      running = runOnce().finally(() => {
        running = undefined;
      });
    return running;
  }

  function schedule(ms: number) {
    if (stopped) return;
    timer = setTimeout(() => {
      runNow()
        .catch((err: unknown) => deps.onError?.(err))
        .finally(() => schedule(deps.everyMs ?? DAY_MS));
    }, ms);
    timer.unref();
  }
  schedule(deps.firstAfterMs ?? 60_000);

  return {
    runNow,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      if (running) await running.catch(() => undefined);
    },
  };
}
