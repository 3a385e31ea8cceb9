/**
 * Readiness of the store, part by part, for GET /api/health/ready (503 when any part that makes a sale
 * impossible is down) and for /metrics:
 *
 * - database: open, migrated and answering;
 * - rpc: the Solana RPC answers (payments cannot be verified otherwise);
 * - watcher: the payment watcher caught up with the vendors' token accounts at most `watcherMaxLagSeconds`
 *   (WATCHER_MAX_LAG_S, default 60) ago. The instance holding the watch reports its own progress; another
 *   instance reports the holder's, stored in the database (so all turn not ready when nobody catches up). Without
 *   a payments service in the process the part is ok with `lagSeconds: null`. While the watcher has a backlog of
 *   vendor transfers but still sees payments on time (it checks the orders someone waits on first), the part is
 *   ok and says `behind: "behind by N transfers"`. A watcher catching up (a fresh instance, a new holder of the
 *   watch: no complete pass since it took it) says so (`catchingUp: true`, `catchUpBehindSeconds`) and stays ok
 *   while the catch-up moves (it listed or judged something within the lag limit): buyers can order meanwhile,
 *   the orders they wait on are checked first, and the catch-up runs behind;
 * - price: a good $CLAIM price at most `priceMaxAgeMs` old (quotes need it);
 * - outbox: e-mails waiting and the age of the oldest. Reported, never a reason to refuse traffic: an SMTP
 *   outage must not take the shop offline, the outbox retries for four days (alert on the metric instead);
 * - unreadable: transactions the watcher set aside because it could not read them (a version above ours, a
 *   malformed answer, an RPC error that repeats; docs/decisions/transaction-versions.md): how many and the
 *   latest. Reported, never a reason to refuse traffic: the watcher has moved past them.
 */
import { sql } from 'kysely';
import type { PriceSource } from '../orders/quotes';
import { unreadableSummaryOf } from '../payments/scan-store';
import type { Store } from '../store/store';
import type { OpsProbes } from './probes';

export const DEFAULT_WATCHER_MAX_LAG_S = 60;

export interface ReadinessDeps {
  store: Store;
  probes: OpsProbes;
  priceSource?: PriceSource;
  priceMaxAgeMs: number;
  /** Default DEFAULT_WATCHER_MAX_LAG_S. */
  watcherMaxLagSeconds?: number;
  now: () => Date;
}

export interface OutboxBacklog {
  backlog: number;
  oldestAgeSeconds: number | null;
}

export interface Readiness {
  ready: boolean;
  parts: {
    database: { ok: boolean };
    rpc: { ok: boolean };
    watcher: {
      ok: boolean;
      /** Seconds since the watcher last caught up (null: no watcher in this process). */
      lagSeconds: number | null;
      maxLagSeconds: number;
      /** This instance holds the watch (false: the figures are the holder's, from the database). */
      watching: boolean | null;
      caughtUpAt: string | null;
      /** "behind by N transfers" while the feed has a backlog (payments are then checked first), else null. */
      behind?: string | null;
      /** Catching up since it took the watch (null: not known here, another instance holds the watch). */
      catchingUp?: boolean | null;
      /** While catching up: how far behind the chain, in seconds (else null). */
      catchUpBehindSeconds?: number | null;
    };
    price: { ok: boolean; ageSeconds: number | null };
    outbox: { ok: boolean } & OutboxBacklog;
    /** Transactions set aside as unreadable (always ok: see above). */
    unreadable: { ok: boolean; count: number | null; lastAt: string | null };
  };
  /** The parts that are not ok, by name. */
  failing: string[];
}

export async function outboxBacklog(store: Store, now: Date): Promise<OutboxBacklog> {
  const row = await store.db
    .selectFrom('outbox')
    .select([sql<number | string>`count(*)`.as('n'), sql<string | null>`min(created_at)`.as('oldest')])
    .where('state', 'in', ['pending', 'retrying'])
    .executeTakeFirst();
  const oldest = row?.oldest ? Date.parse(row.oldest) : NaN;
  return {
    backlog: Number(row?.n ?? 0),
    oldestAgeSeconds: Number.isFinite(oldest)
      ? Math.max(0, Math.round((now.getTime() - oldest) / 1000))
      : null,
  };
}

export function priceAgeSeconds(priceSource: PriceSource | undefined, now: Date): number | null {
  const current = priceSource?.current();
  return current ? Math.max(0, Math.round((now.getTime() - current.fetchedAt.getTime()) / 1000)) : null;
}

async function databaseOk(store: Store): Promise<boolean> {
  try {
    return store.ready() && (await store.ping());
  } catch {
    return false;
  }
}

export async function readiness(deps: ReadinessDeps): Promise<Readiness> {
  const now = deps.now();
  const [database, rpc] = await Promise.all([
    databaseOk(deps.store),
    deps.probes.rpcReachable ? deps.probes.rpcReachable().catch(() => false) : Promise.resolve(true),
  ]);
  let outbox: Readiness['parts']['outbox'];
  try {
    outbox = { ok: true, ...(await outboxBacklog(deps.store, now)) };
  } catch {
    outbox = { ok: false, backlog: 0, oldestAgeSeconds: null };
  }
  const maxLag = deps.watcherMaxLagSeconds ?? DEFAULT_WATCHER_MAX_LAG_S;
  let watcher: Readiness['parts']['watcher'];
  if (!deps.probes.watcherLag)
    watcher = { ok: true, lagSeconds: null, maxLagSeconds: maxLag, watching: null, caughtUpAt: null };
  else {
    try {
      const lag = await deps.probes.watcherLag();
      const lagSeconds = Math.round(lag.lagSeconds * 10) / 10;
      // Behind the vendor feed but still seeing payments on time (the awaited orders checked by reference):
      // ready, saying by how much it is behind, rather than 503.
      const behind = lag.backlog && lag.backlog.transfers > 0 ? lag.backlog : undefined;
      // Catching up is reported, not a reason to refuse traffic, while it moves.
      const catchingUp = lag.catchUp?.catchingUp ?? false;
      watcher = {
        ok:
          lagSeconds <= maxLag ||
          (behind?.paymentsOnTime ?? false) ||
          (catchingUp && (lag.catchUp?.progressing ?? false)),
        behind: behind ? `behind by ${behind.transfers} transfers` : null,
        catchingUp: lag.catchUp ? catchingUp : null,
        catchUpBehindSeconds: catchingUp ? (lag.catchUp?.behindSeconds ?? null) : null,
        lagSeconds,
        maxLagSeconds: maxLag,
        watching: lag.watching,
        caughtUpAt: lag.caughtUpAt?.toISOString() ?? null,
      };
    } catch {
      // The stored progress cannot be read (database down): the database part says so too.
      watcher = { ok: false, lagSeconds: null, maxLagSeconds: maxLag, watching: null, caughtUpAt: null };
    }
  }
  let unreadable: Readiness['parts']['unreadable'];
  try {
    const u = await unreadableSummaryOf(deps.store.db);
    unreadable = { ok: true, count: u.count, lastAt: u.lastAt?.toISOString() ?? null };
  } catch {
    // The database part says so.
    unreadable = { ok: true, count: null, lastAt: null };
  }
  const priceAge = priceAgeSeconds(deps.priceSource, now);
  const parts: Readiness['parts'] = {
    database: { ok: database },
    rpc: { ok: rpc },
    watcher,
    price: { ok: priceAge !== null && priceAge * 1000 <= deps.priceMaxAgeMs, ageSeconds: priceAge },
    outbox,
    unreadable,
  };
  // The outbox and unreadable parts never refuse traffic on their own (see above); a database failure already
  // does.
  const failing = (Object.keys(parts) as (keyof Readiness['parts'])[]).filter(
    (k) => k !== 'outbox' && k !== 'unreadable' && !parts[k].ok,
  );
  return { ready: failing.length === 0, parts, failing };
}
