/**
 * Leases: work that one instance of a fleet does at a time (several instances on one PostgreSQL store; SQLite has
 * one instance, which always gets them). A lease is a row of `payment_watch_lease` (named so because the payment
 * watcher's was the first; this module is its one writer): `name`, `holder`, `expires_at`. Taking or renewing it
 * is one conditional UPDATE (ours, or expired), else an INSERT that a concurrent creator loses by the primary key:
 * atomic on both stores. Releasing it sets it expired, so another instance takes it at its next try rather than
 * when it would have run out (a stop hands it over).
 *
 * Holders of leases: the payment watcher ('payments', payments/index.ts), the price poller ('price') and the
 * housekeeping timer ('housekeeping') (`holdLease` below, server.ts), the retention job ('retention').
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema';

/** Takes or renews `name` for `holder` until `until` when it is free, expired or already ours; true when held. */
export async function acquireLease(
  db: Kysely<Database>,
  name: string,
  holder: string,
  now: Date,
  until: Date,
): Promise<boolean> {
  const nowIso = now.toISOString();
  const untilIso = until.toISOString();
  const updated = await db
    .updateTable('payment_watch_lease')
    .set({ holder, expires_at: untilIso })
    .where('name', '=', name)
    .where((eb) => eb.or([eb('holder', '=', holder), eb('expires_at', '<', nowIso)]))
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) > 0) return true;
  const inserted = await db
    .insertInto('payment_watch_lease')
    .values({ name, holder, expires_at: untilIso })
    .onConflict((oc) => oc.column('name').doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/** Gives `name` up if `holder` holds it: it is free for the next instance that tries. */
export async function releaseLease(db: Kysely<Database>, name: string, holder: string): Promise<void> {
  await db
    .updateTable('payment_watch_lease')
    .set({ expires_at: new Date(0).toISOString() })
    .where('name', '=', name)
    .where('holder', '=', holder)
    .execute();
}

/** Who holds `name` now (undefined: nobody, or it expired). */
export async function leaseHolder(
  db: Kysely<Database>,
  name: string,
  now: Date,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('payment_watch_lease')
    .select(['holder', 'expires_at'])
    .where('name', '=', name)
    .executeTakeFirst();
  return row && row.expires_at >= now.toISOString() ? row.holder : undefined;
}

/** An id for this process's leases: host, process and a random part (a restart is a new holder). */
export function leaseHolderId(): string {
  return `${hostname()}:${process.pid}:${randomUUID()}`;
}

export interface HeldLease {
  /** Whether this instance held the lease at its last try. */
  held(): boolean;
  /** Stops trying and hands the lease over (released at once when held); idempotent. */
  release(): Promise<void>;
}

export interface HoldLeaseOptions {
  db: Kysely<Database>;
  name: string;
  holder: string;
  /** How long a take or renewal holds it (default 15 s): the longest another instance waits after a crash. */
  leaseMs?: number;
  /** Tries (take or renew) this often (default leaseMs / 3). */
  everyMs?: number;
  now?: () => Date;
  /** Called when this instance gains (true) or loses (false) the lease; awaited before the next try. */
  onChange?: (held: boolean) => Promise<void> | void;
  onError?: (err: unknown) => void;
}

/**
 * Keeps trying to take (or renew) the lease `name`; `onChange` says when this instance gains or loses it. When
 * the store does not answer, the lease counts as lost (nobody can renew it for us: another may take it when it
 * runs out). The first try is made before this resolves.
 */
export async function holdLease(options: HoldLeaseOptions): Promise<HeldLease> {
  const leaseMs = options.leaseMs ?? 15_000;
  const everyMs = options.everyMs ?? Math.max(100, Math.floor(leaseMs / 3));
  const now = options.now ?? (() => new Date());
  let held = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let trying: Promise<void> = Promise.resolve();

  const set = async (next: boolean) => {
    if (next === held) return;
    held = next;
    try {
      await options.onChange?.(next);
    } catch (err) {
      options.onError?.(err);
    }
  };
  const tryOnce = async () => {
    if (stopped) return;
    let got = false;
    try {
      const t = now();
      got = await acquireLease(options.db, options.name, options.holder, t, new Date(t.getTime() + leaseMs));
    } catch (err) {
      options.onError?.(err);
    }
    if (!stopped) await set(got);
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      trying = tryOnce().finally(schedule);
    }, everyMs);
    timer.unref();
  };
  trying = tryOnce();
  await trying;
  schedule();

  let released: Promise<void> | undefined;
  return {
    held: () => held,
    release() {
      released ??= (async () => {
        stopped = true;
        if (timer) clearTimeout(timer);
        await trying.catch(() => undefined);
        const was = held;
        await set(false);
        if (was) await releaseLease(options.db, options.name, options.holder).catch(options.onError);
      })();
      return released;
    },
  };
}
