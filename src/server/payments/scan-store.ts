/**
 * What the vendor-side watcher keeps in the database (migration 0005), so a restart or another instance carries
 * on where it stopped: per vendor token account the newest signature judged (the cursor), every signature judged
 * (never fetched again), vendor transfers whose keys matched no order yet, and the watcher lease.
 * `memoryScanStore()` is the same without a database (tests that drive a bare PaymentWatcher).
 */
import { acquireLease, releaseLease } from '../ops/lease';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema';

export interface ScanCursor {
  signature: string;
  slot: number;
}

export type JudgedVerdict =
  | 'recorded'
  | 'no_order'
  | 'not_followed'
  | 'failed'
  | 'no_transfer'
  | 'refused'
  | 'unknown'
  /** Set aside: the node has it but we could not read it (unreadable.ts). */
  | 'unreadable';

/** Why a transaction was set aside: a version above ours, a malformed answer, an RPC error that repeated. */
export type SetAsideReason = 'unsupported_version' | 'malformed' | 'rpc_error';

export interface SetAside {
  signature: string;
  reason: SetAsideReason;
  /** What the node answered, in short. */
  detail: string;
  /** The vendor token account whose listing named it, when known. */
  account?: string;
}

/** The transactions set aside: how many, and when the latest was. */
export interface UnreadableSummary {
  count: number;
  lastAt: Date | null;
}

export interface ScanStore {
  cursor(account: string): Promise<ScanCursor | undefined>;
  setCursor(account: string, cursor: ScanCursor, at: Date): Promise<void>;
  /** Which of `signatures` were judged already. */
  judged(signatures: string[]): Promise<Set<string>>;
  markJudged(signature: string, verdict: JudgedVerdict, at: Date): Promise<void>;
  /** Sets a transaction aside as unreadable (judged `unreadable`, never fetched again by the sweeps). */
  setAside(entry: SetAside, at: Date): Promise<void>;
  /** Which of `signatures` were set aside, with their reasons. */
  setAsideAmong(signatures: string[]): Promise<Map<string, SetAsideReason>>;
  unreadableSummary(): Promise<UnreadableSummary>;
  /** Remembers a vendor transfer whose keys named no order (yet). */
  addUnmatched(signature: string, keys: string[], at: Date): Promise<void>;
  /**
   * Unmatched transfers whose key is now an order's reference (one indexed join). With `expiringAfter`, only
   * orders awaiting payment whose quote expires after it (the orders created since the last match: a range of
   * the (status, expires_at) index, each looked up in the unmatched table's primary key), so the match's cost
   * follows new orders, not the size of the unmatched table.
   */
  matchedUnmatched(expiringAfter?: Date): Promise<{ signature: string; orderId: string }[]>;
  /**
   * Orders awaiting payment whose quote expires before `before` (already past it included: expiry waits for the
   * watcher), soonest first, at most `limit` (a range of the (status, expires_at) index). Without a database:
   * none.
   */
  expiringSoon(before: Date, limit: number): Promise<string[]>;
  /** Keeps at most `max` unmatched rows: the oldest beyond it are forgotten. Returns how many were. */
  capUnmatched(max: number): Promise<number>;
  /** Unmatched rows kept now. */
  countUnmatched(): Promise<number>;
  dropUnmatched(signature: string): Promise<void>;
  /** Forgets unmatched transfers seen before `before` (past any order's window). */
  pruneUnmatched(before: Date): Promise<void>;
  /**
   * Takes or renews the lease `name` for `holder` until `until` when it is free, expired or already ours.
   * True when `holder` holds it afterwards.
   */
  acquireLease(name: string, holder: string, now: Date, until: Date): Promise<boolean>;
  releaseLease(name: string, holder: string): Promise<void>;
  /** Records that `holder` caught up with every vendor account at `at` (watcher lag, read by every instance). */
  setProgress(name: string, holder: string, at: Date): Promise<void>;
  /** The last catch-up recorded under `name`, by whichever instance. */
  progress(name: string): Promise<WatchProgress | undefined>;
}

export interface WatchProgress {
  holder: string;
  caughtUpAt: Date;
}

const CHUNK = 500;

export function kyselyScanStore(db: Kysely<Database>): ScanStore {
  return {
    async cursor(account) {
      const row = await db
        .selectFrom('payment_scan_cursors')
        .select(['signature', 'slot'])
        .where('account', '=', account)
        .executeTakeFirst();
      return row ? { signature: row.signature, slot: Number(row.slot) } : undefined;
    },
    async setCursor(account, cursor, at) {
      await db
        .insertInto('payment_scan_cursors')
        .values({ account, signature: cursor.signature, slot: cursor.slot, updated_at: at.toISOString() })
        .onConflict((oc) =>
          oc.column('account').doUpdateSet({
            signature: cursor.signature,
            slot: cursor.slot,
            updated_at: at.toISOString(),
          }),
        )
        .execute();
    },
    async judged(signatures) {
      const out = new Set<string>();
      for (let i = 0; i < signatures.length; i += CHUNK) {
        const rows = await db
          .selectFrom('payment_scan_judged')
          .select('signature')
          .where('signature', 'in', signatures.slice(i, i + CHUNK))
          .execute();
        for (const r of rows) out.add(r.signature);
      }
      return out;
    },
    async markJudged(signature, verdict, at) {
      await db
        .insertInto('payment_scan_judged')
        .values({ signature, verdict, judged_at: at.toISOString() })
        .onConflict((oc) => oc.column('signature').doUpdateSet({ verdict, judged_at: at.toISOString() }))
        .execute();
    },
    async setAside(entry, at) {
      const iso = at.toISOString();
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto('payment_unreadable')
          .values({
            signature: entry.signature,
            reason: entry.reason,
            detail: entry.detail.slice(0, 500),
            account: entry.account ?? null,
            set_aside_at: iso,
          })
          .onConflict((oc) => oc.column('signature').doNothing())
          .execute();
        await trx
          .insertInto('payment_scan_judged')
          .values({ signature: entry.signature, verdict: 'unreadable', judged_at: iso })
          .onConflict((oc) => oc.column('signature').doUpdateSet({ verdict: 'unreadable', judged_at: iso }))
          .execute();
      });
    },
    async setAsideAmong(signatures) {
      const out = new Map<string, SetAsideReason>();
      for (let i = 0; i < signatures.length; i += CHUNK) {
        const rows = await db
          .selectFrom('payment_unreadable')
          .select(['signature', 'reason'])
          .where('signature', 'in', signatures.slice(i, i + CHUNK))
          .execute();
        for (const r of rows) out.set(r.signature, r.reason as SetAsideReason);
      }
      return out;
    },
    unreadableSummary: () => unreadableSummaryOf(db),
    async addUnmatched(signature, keys, at) {
      const unique = [...new Set(keys)];
      if (!unique.length) return;
      await db
        .insertInto('payment_scan_unmatched')
        .values(unique.map((reference) => ({ reference, signature, seen_at: at.toISOString() })))
        .onConflict((oc) => oc.columns(['reference', 'signature']).doNothing())
        .execute();
    },
    async matchedUnmatched(expiringAfter) {
      let q = db
        .selectFrom('orders as o')
        .innerJoin('payment_scan_unmatched as u', 'u.reference', 'o.reference')
        .select(['u.signature as signature', 'o.id as orderId']);
      if (expiringAfter)
        q = q
          .where('o.status', '=', 'awaiting_payment')
          .where('o.expires_at', '>', expiringAfter.toISOString());
      return q.execute();
    },
    async expiringSoon(before, limit) {
      const rows = await db
        .selectFrom('orders')
        .select('id')
        .where('status', '=', 'awaiting_payment')
        .where('expires_at', '<', before.toISOString())
        .orderBy('expires_at')
        .limit(limit)
        .execute();
      return rows.map((r) => r.id);
    },
    async capUnmatched(max) {
      const { n } = await db
        .selectFrom('payment_scan_unmatched')
        .select((eb) => eb.fn.countAll<string | number>().as('n'))
        .executeTakeFirstOrThrow();
      const excess = Number(n) - max;
      if (excess <= 0) return 0;
      // The oldest rows beyond the cap, by the time they were seen (their transfers are the least likely to meet
      // an order now).
      const cutoff = await db
        .selectFrom('payment_scan_unmatched')
        .select('seen_at')
        .orderBy('seen_at')
        .offset(excess - 1)
        .limit(1)
        .executeTakeFirst();
      if (!cutoff) return 0;
      const res = await db
        .deleteFrom('payment_scan_unmatched')
        .where('seen_at', '<=', cutoff.seen_at)
        .executeTakeFirst();
      return Number(res.numDeletedRows);
    },
    async countUnmatched() {
      const { n } = await db
        .selectFrom('payment_scan_unmatched')
        .select((eb) => eb.fn.countAll<string | number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(n);
    },
    async dropUnmatched(signature) {
      await db.deleteFrom('payment_scan_unmatched').where('signature', '=', signature).execute();
    },
    async pruneUnmatched(before) {
      await db.deleteFrom('payment_scan_unmatched').where('seen_at', '<', before.toISOString()).execute();
    },
    // The lease table's one writer is ops/lease.ts (the watcher's lease is one of several).
    acquireLease: (name, holder, now, until) => acquireLease(db, name, holder, now, until),
    releaseLease: (name, holder) => releaseLease(db, name, holder),
    async setProgress(name, holder, at) {
      await db
        .insertInto('payment_watch_progress')
        .values({ name, holder, caught_up_at: at.toISOString() })
        .onConflict((oc) => oc.column('name').doUpdateSet({ holder, caught_up_at: at.toISOString() }))
        .execute();
    },
    async progress(name) {
      const row = await db
        .selectFrom('payment_watch_progress')
        .select(['holder', 'caught_up_at'])
        .where('name', '=', name)
        .executeTakeFirst();
      return row ? { holder: row.holder, caughtUpAt: new Date(row.caught_up_at) } : undefined;
    },
  };
}

/** The transactions set aside in the store (readiness and /metrics read it on every instance). */
export async function unreadableSummaryOf(db: Kysely<Database>): Promise<UnreadableSummary> {
  const row = await db
    .selectFrom('payment_unreadable')
    .select((eb) => [eb.fn.countAll<string | number>().as('n'), eb.fn.max('set_aside_at').as('last')])
    .executeTakeFirst();
  return { count: Number(row?.n ?? 0), lastAt: row?.last ? new Date(row.last) : null };
}

/** The same in memory (no restart survival, one process). */
export function memoryScanStore(orderIdOf: (reference: string) => Promise<string | undefined>): ScanStore {
  const cursors = new Map<string, ScanCursor>();
  const judged = new Map<string, JudgedVerdict>();
  const unmatched = new Map<string, { keys: string[]; at: number }>();
  const leases = new Map<string, { holder: string; until: number }>();
  const progress = new Map<string, WatchProgress>();
  const setAside = new Map<string, { at: Date; reason: SetAsideReason }>();
  return {
    cursor: (account) => Promise.resolve(cursors.get(account)),
    setCursor(account, cursor) {
      cursors.set(account, cursor);
      return Promise.resolve();
    },
    judged: (signatures) => Promise.resolve(new Set(signatures.filter((s) => judged.has(s)))),
    markJudged(signature, verdict) {
      judged.set(signature, verdict);
      return Promise.resolve();
    },
    setAside(entry, at) {
      if (!setAside.has(entry.signature)) setAside.set(entry.signature, { at, reason: entry.reason });
      judged.set(entry.signature, 'unreadable');
      return Promise.resolve();
    },
    setAsideAmong(signatures) {
      const out = new Map<string, SetAsideReason>();
      for (const s of signatures) {
        const e = setAside.get(s);
        if (e) out.set(s, e.reason);
      }
      return Promise.resolve(out);
    },
    unreadableSummary() {
      const times = [...setAside.values()].map((e) => e.at.getTime());
      return Promise.resolve({
        count: times.length,
        lastAt: times.length ? new Date(Math.max(...times)) : null,
      });
    },
    addUnmatched(signature, keys, at) {
      unmatched.set(signature, { keys, at: at.getTime() });
      return Promise.resolve();
    },
    capUnmatched(max) {
      let dropped = 0;
      // Map order is insertion order: the oldest first.
      for (const s of unmatched.keys()) {
        if (unmatched.size <= max) break;
        unmatched.delete(s);
        dropped++;
      }
      return Promise.resolve(dropped);
    },
    countUnmatched: () => Promise.resolve(unmatched.size),
    async matchedUnmatched() {
      const out: { signature: string; orderId: string }[] = [];
      for (const [signature, { keys }] of unmatched) {
        for (const k of keys) {
          const orderId = await orderIdOf(k);
          if (orderId) out.push({ signature, orderId });
        }
      }
      return out;
    },
    expiringSoon() {
      return Promise.resolve([]);
    },
    dropUnmatched(signature) {
      unmatched.delete(signature);
      return Promise.resolve();
    },
    pruneUnmatched(before) {
      for (const [s, u] of unmatched) if (u.at < before.getTime()) unmatched.delete(s);
      return Promise.resolve();
    },
    acquireLease(name, holder, now, until) {
      const l = leases.get(name);
      if (l && l.holder !== holder && l.until >= now.getTime()) return Promise.resolve(false);
      leases.set(name, { holder, until: until.getTime() });
      return Promise.resolve(true);
    },
    releaseLease(name, holder) {
      if (leases.get(name)?.holder === holder) leases.delete(name);
      return Promise.resolve();
    },
    setProgress(name, holder, at) {
      progress.set(name, { holder, caughtUpAt: at });
      return Promise.resolve();
    },
    progress: (name) => Promise.resolve(progress.get(name)),
  };
}
