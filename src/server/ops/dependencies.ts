/**
 * The dependency report, GET /api/health/deps: the shared outside services this instance relies on, part by part,
 * for alerts and dashboards. Never a reason to take an instance out of rotation (readiness is ./health.ts): every
 * instance sees the same RPC, the same price source and the same mail service, so routing on them would take the
 * whole shop offline at once while buyers could still browse and order.
 *
 * Each part has a status (`ok`, `degraded`: working with a delay or a backlog, `failing`: not working) and a
 * plain-words `detail`, with its figures beside:
 *
 * - rpc: the Solana RPC answers one `getSlot` (cached 5 s, through the process's RPC budget). Failing: payments
 *   cannot be checked until it answers; buyers can still browse and order.
 * - watcher: the payment watcher caught up with the vendors' token accounts at most `watcherMaxLagSeconds`
 *   (WATCHER_MAX_LAG_S, default 60) ago. The instance holding the watch reports its own progress; another instance
 *   reports the holder's, stored in the database. Degraded while it has a backlog of vendor transfers but still
 *   sees payments on time (the orders buyers wait on are checked first), or while it catches up after taking the
 *   watch and the catch-up moves; failing otherwise once the lag passes the limit. Transactions set aside as
 *   unreadable (docs/decisions/transaction-versions.md) are counted here; one set aside within the last day makes
 *   an otherwise ok part degraded (the seller checks it by hand).
 * - price: a good $CLAIM price at most `priceMaxAgeMs` old (PRICE maxAge, 60 s: what quotes accept). Failing
 *   when there is none, it is older (quotes are refused meanwhile) or the guards refuse it.
 * - mail: e-mails waiting in the outbox and the age of the oldest. Degraded once the oldest waits 10 minutes,
 *   failing after an hour (the outbox keeps retrying for four days: nothing is lost meanwhile).
 * - webhooks: the vendors' endpoints and the events waiting for them, in counts (no address or vendor: the report
 *   is public). Degraded while an endpoint fails or was paused after days of failures (its vendor acts on it), or
 *   while events for working endpoints are overdue by 10 minutes (the sender lags); ok otherwise. A receiver's
 *   failure is its vendor's, and the sender retries for three days, so webhooks never make the report failing
 *   unless their tables cannot be read.
 */
import type { PriceSource } from '../orders/quotes';
import { unreadableSummaryOf } from '../payments/scan-store';
import type { Store } from '../store/store';
import { outboxBacklog, priceAgeSeconds } from './health';
import type { OpsProbes } from './probes';
import { webhookHealthOf, type WebhookHealth } from '../webhooks/health';

export const DEFAULT_WATCHER_MAX_LAG_S = 60;
const MAIL_DEGRADED_S = 10 * 60;
const MAIL_FAILING_S = 60 * 60;
const WEBHOOKS_OVERDUE_DEGRADED_S = 10 * 60;
const UNREADABLE_RECENT_MS = 24 * 60 * 60_000;

export type DepStatus = 'ok' | 'degraded' | 'failing';

export interface DependencyDeps {
  store: Store;
  probes: OpsProbes;
  priceSource?: PriceSource;
  /** The oldest price quotes accept (settings.price.maxAgeMs). */
  priceMaxAgeMs: number;
  /** Default DEFAULT_WATCHER_MAX_LAG_S. */
  watcherMaxLagSeconds?: number;
  now: () => Date;
}

export interface RpcPart {
  status: DepStatus;
  detail: string;
}

export interface WatcherPart {
  status: DepStatus;
  detail: string;
  /** Seconds since the watcher last caught up (null: no watcher in this process, or unreadable). */
  lagSeconds: number | null;
  maxLagSeconds: number;
  /** This instance holds the watch (false: the figures are the holder's, from the database; null: no watcher). */
  watching: boolean | null;
  caughtUpAt: string | null;
  /** Vendor transfers waiting to be judged (null: not known here). */
  behindTransfers: number | null;
  /** Catching up since it took the watch (null: not known here, another instance holds the watch). */
  catchingUp: boolean | null;
  /** While catching up: how far behind the chain, in seconds (else null). */
  catchUpBehindSeconds: number | null;
  /** Transactions set aside as unreadable: how many and the latest (null: the table cannot be read). */
  unreadable: { count: number | null; lastAt: string | null };
}

export interface PricePart {
  status: DepStatus;
  detail: string;
  ageSeconds: number | null;
  maxAgeSeconds: number;
}

export interface MailPart {
  status: DepStatus;
  detail: string;
  backlog: number | null;
  oldestAgeSeconds: number | null;
}

/** Counts only (../webhooks/health.ts); null where the tables cannot be read. */
export interface WebhooksPart {
  status: DepStatus;
  detail: string;
  endpoints: WebhookHealth['endpoints'] | null;
  longestFailingSeconds: number | null;
  waiting: number | null;
  oldestWaitingSeconds: number | null;
  overdueSeconds: number | null;
}

export interface DependencyReport {
  /** The worst part's status. */
  status: DepStatus;
  checkedAt: string;
  parts: { rpc: RpcPart; watcher: WatcherPart; price: PricePart; mail: MailPart; webhooks: WebhooksPart };
}

const RANK: Record<DepStatus, number> = { ok: 0, degraded: 1, failing: 2 };
const worst = (xs: DepStatus[]): DepStatus => xs.reduce((a, b) => (RANK[b] > RANK[a] ? b : a), 'ok');

/** "45 s", "12 minutes", "3 hours": an age in plain words. */
export function plainAge(seconds: number): string {
  if (seconds < 120) return `${Math.round(seconds)} s`;
  if (seconds < 2 * 3600) return `${Math.round(seconds / 60)} minutes`;
  return `${Math.round(seconds / 3600)} hours`;
}

export async function rpcPart(probes: OpsProbes): Promise<RpcPart> {
  if (!probes.rpcReachable) return { status: 'ok', detail: 'Not checked in this process.' };
  const up = await probes.rpcReachable().catch(() => false);
  return up
    ? { status: 'ok', detail: 'The Solana RPC answers.' }
    : {
        status: 'failing',
        detail:
          'The Solana RPC does not answer: payments cannot be checked until it does. Buyers can still browse and order.',
      };
}

/** The watcher's lag part, without the unreadable count (the payment-status check of the order pages uses it). */
export async function watcherLagPart(
  probes: OpsProbes,
  maxLag: number,
): Promise<Omit<WatcherPart, 'unreadable'>> {
  const none = {
    lagSeconds: null,
    maxLagSeconds: maxLag,
    watching: null,
    caughtUpAt: null,
    behindTransfers: null,
    catchingUp: null,
    catchUpBehindSeconds: null,
  };
  if (!probes.watcherLag)
    return { status: 'ok', detail: 'No payment watcher runs in this process.', ...none };
  let lag;
  try {
    lag = await probes.watcherLag();
  } catch {
    return {
      status: 'failing',
      detail: "The payment watcher's progress cannot be read from the database.",
      ...none,
    };
  }
  const lagSeconds = Math.round(lag.lagSeconds * 10) / 10;
  const behind = lag.backlog && lag.backlog.transfers > 0 ? lag.backlog : undefined;
  const catchingUp = lag.catchUp?.catchingUp ?? false;
  const who = lag.watching ? '' : ' (another instance holds the watch)';
  let status: DepStatus;
  let detail: string;
  if (catchingUp && (lag.catchUp?.progressing ?? false)) {
    status = 'degraded';
    detail = `Catching up since it took the watch, ${plainAge(lag.catchUp?.behindSeconds ?? 0)} behind the chain: the orders buyers wait on are checked first.`;
  } else if (behind?.paymentsOnTime) {
    status = 'degraded';
    detail = `Behind by ${behind.transfers} transfers: the orders buyers wait on are checked first and seen on time.`;
  } else if (lagSeconds <= maxLag) {
    status = 'ok';
    detail = lag.caughtUpAt
      ? `Caught up ${plainAge(lagSeconds)} ago${who}.`
      : `Started ${plainAge(lagSeconds)} ago, not caught up yet${who}.`;
  } else {
    status = 'failing';
    detail = `${lag.caughtUpAt ? `Last caught up ${plainAge(lagSeconds)} ago` : `Not caught up in ${plainAge(lagSeconds)}`} (the limit is ${maxLag} s)${who}: payments are not being seen. Buyers can still order; their payments show once the watcher catches up.`;
  }
  return {
    status,
    detail,
    lagSeconds,
    maxLagSeconds: maxLag,
    watching: lag.watching,
    caughtUpAt: lag.caughtUpAt?.toISOString() ?? null,
    behindTransfers: lag.backlog ? lag.backlog.transfers : null,
    catchingUp: lag.catchUp ? catchingUp : null,
    catchUpBehindSeconds: catchingUp ? (lag.catchUp?.behindSeconds ?? null) : null,
  };
}

async function watcherPart(deps: DependencyDeps, now: Date): Promise<WatcherPart> {
  const part = await watcherLagPart(deps.probes, deps.watcherMaxLagSeconds ?? DEFAULT_WATCHER_MAX_LAG_S);
  let unreadable: WatcherPart['unreadable'];
  try {
    const u = await unreadableSummaryOf(deps.store.db);
    unreadable = { count: u.count, lastAt: u.lastAt?.toISOString() ?? null };
    if (u.count > 0 && u.lastAt) {
      const recent = now.getTime() - u.lastAt.getTime() <= UNREADABLE_RECENT_MS;
      const note = ` ${u.count} ${u.count === 1 ? 'transaction' : 'transactions'} could not be read (the latest at ${u.lastAt.toISOString()}): the seller checks them by hand.`;
      return {
        ...part,
        status: recent && part.status === 'ok' ? 'degraded' : part.status,
        detail: part.detail + note,
        unreadable,
      };
    }
  } catch {
    unreadable = { count: null, lastAt: null };
  }
  return { ...part, unreadable };
}

function pricePart(deps: DependencyDeps, now: Date): PricePart {
  const maxAgeSeconds = Math.round(deps.priceMaxAgeMs / 1000);
  const age = priceAgeSeconds(deps.priceSource, now);
  const current = deps.priceSource?.current();
  if (age === null || !current)
    return {
      status: 'failing',
      detail: 'No $CLAIM price yet: quotes are refused until one comes.',
      ageSeconds: null,
      maxAgeSeconds,
    };
  if (current.refusal)
    return {
      status: 'failing',
      detail: `Quotes are refused: ${current.refusal.message}`,
      ageSeconds: age,
      maxAgeSeconds,
    };
  if (age * 1000 > deps.priceMaxAgeMs)
    return {
      status: 'failing',
      detail: `The last good price is ${plainAge(age)} old (quotes need one at most ${maxAgeSeconds} s old): quotes are refused until the price source answers.`,
      ageSeconds: age,
      maxAgeSeconds,
    };
  return { status: 'ok', detail: `Updated ${plainAge(age)} ago.`, ageSeconds: age, maxAgeSeconds };
}

async function mailPart(deps: DependencyDeps, now: Date): Promise<MailPart> {
  let b;
  try {
    b = await outboxBacklog(deps.store, now);
  } catch {
    return {
      status: 'failing',
      detail: 'The outbox cannot be read from the database.',
      backlog: null,
      oldestAgeSeconds: null,
    };
  }
  if (b.backlog === 0 || b.oldestAgeSeconds === null)
    return { status: 'ok', detail: 'No e-mail waiting.', backlog: b.backlog, oldestAgeSeconds: null };
  const waiting = `${b.backlog} ${b.backlog === 1 ? 'e-mail' : 'e-mails'} waiting, the oldest for ${plainAge(b.oldestAgeSeconds)}`;
  const status: DepStatus =
    b.oldestAgeSeconds > MAIL_FAILING_S
      ? 'failing'
      : b.oldestAgeSeconds > MAIL_DEGRADED_S
        ? 'degraded'
        : 'ok';
  return {
    status,
    detail:
      status === 'ok'
        ? `${waiting}.`
        : `${waiting}: the mail service may be refusing them. The outbox keeps retrying for four days; nothing is lost.`,
    backlog: b.backlog,
    oldestAgeSeconds: b.oldestAgeSeconds,
  };
}

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The webhooks part from their counts: ok, or degraded with what an operator looks at, in plain words. */
export function webhooksPartOf(h: WebhookHealth): WebhooksPart {
  const e = h.endpoints;
  const figures = { ...h };
  const total = e.accepting + e.failing + e.pausedFailing + e.pausedByVendor + e.disabled;
  if (total === 0) return { status: 'ok', detail: 'No webhook endpoints.', ...figures };
  const active = e.accepting + e.failing;
  const problems: string[] = [];
  if (e.failing > 0)
    problems.push(
      `${e.failing} of ${count(active, 'active endpoint', 'active endpoints')} failing` +
        (h.longestFailingSeconds !== null ? `, the longest for ${plainAge(h.longestFailingSeconds)}` : ''),
    );
  if (e.pausedFailing > 0)
    problems.push(`${count(e.pausedFailing, 'endpoint', 'endpoints')} paused after days of failures`);
  if (h.overdueSeconds !== null && h.overdueSeconds >= WEBHOOKS_OVERDUE_DEGRADED_S)
    problems.push(`events for working endpoints overdue by ${plainAge(h.overdueSeconds)}: the sender lags`);
  const waiting =
    h.waiting === 0 || h.oldestWaitingSeconds === null
      ? 'no event waiting'
      : `${count(h.waiting, 'event', 'events')} waiting, the oldest for ${plainAge(h.oldestWaitingSeconds)}`;
  const others = [
    e.pausedByVendor > 0
      ? `${e.pausedByVendor} paused by ${e.pausedByVendor === 1 ? 'its vendor' : 'their vendors'}`
      : '',
    e.disabled > 0 ? `${e.disabled} disabled by a 410 Gone` : '',
  ].filter(Boolean);
  const aside = others.length ? ` (${others.join(', ')})` : '';
  if (problems.length === 0)
    return {
      status: 'ok',
      detail: `${count(e.accepting, 'endpoint', 'endpoints')} accepting events${aside}; ${waiting}.`,
      ...figures,
    };
  return {
    status: 'degraded',
    detail:
      `${problems.join('; ')}${aside}; ${waiting}. Deliveries retry for three days, so nothing is lost meanwhile; ` +
      'each vendor sees its endpoints and their attempts in the seller console.',
    ...figures,
  };
}

async function webhooksPart(deps: DependencyDeps, now: Date): Promise<WebhooksPart> {
  try {
    return webhooksPartOf(await webhookHealthOf(deps.store, now));
  } catch {
    return {
      status: 'failing',
      detail: 'The webhook tables cannot be read from the database.',
      endpoints: null,
      longestFailingSeconds: null,
      waiting: null,
      oldestWaitingSeconds: null,
      overdueSeconds: null,
    };
  }
}

export async function dependencyReport(deps: DependencyDeps): Promise<DependencyReport> {
  const now = deps.now();
  const [rpc, watcher, mail, webhooks] = await Promise.all([
    rpcPart(deps.probes),
    watcherPart(deps, now),
    mailPart(deps, now),
    webhooksPart(deps, now),
  ]);
  const price = pricePart(deps, now);
  const parts = { rpc, watcher, price, mail, webhooks };
  return {
    status: worst(Object.values(parts).map((p) => p.status)),
    checkedAt: now.toISOString(),
    parts,
  };
}

/**
 * Can the store see payments arrive right now? For the buyer's pages ("payment status" in plain words while it
 * cannot): 'delayed' while the RPC does not answer or the watcher's part is failing. Never waits on the RPC: it
 * answers from the last check and starts a new one when that is older than `refreshMs` (default 5 s).
 */
export function createPaymentCheck(
  probes: OpsProbes,
  opts: { watcherMaxLagSeconds?: number; refreshMs?: number; now?: () => number } = {},
): () => 'ok' | 'delayed' {
  const refreshMs = opts.refreshMs ?? 5_000;
  const now = opts.now ?? Date.now;
  let value: 'ok' | 'delayed' = 'ok';
  let checkedAt = -Infinity;
  let inFlight = false;
  const check = async () => {
    const [rpc, watcher] = await Promise.all([
      rpcPart(probes),
      watcherLagPart(probes, opts.watcherMaxLagSeconds ?? DEFAULT_WATCHER_MAX_LAG_S),
    ]);
    value = rpc.status === 'failing' || watcher.status === 'failing' ? 'delayed' : 'ok';
  };
  return () => {
    if (!inFlight && now() - checkedAt >= refreshMs) {
      inFlight = true;
      checkedAt = now();
      void check()
        .catch(() => undefined)
        .finally(() => {
          inFlight = false;
        });
    }
    return value;
  };
}
