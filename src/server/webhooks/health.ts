/**
 * The webhooks' health in counts, for the dependency report (GET /api/health/deps, ../ops/dependencies.ts): how
 * many endpoints accept events, fail, are paused or disabled, and how many events wait and for how long. Counts
 * only: no endpoint address, vendor or event leaves this module through it (the report is public). Reads only.
 */
import { sql } from 'kysely';
import type { Store } from '../store/store';

export interface WebhookHealth {
  endpoints: {
    /** Active and accepting events (no failure since the last success). */
    accepting: number;
    /** Active, and every attempt since `failing_since` failed. */
    failing: number;
    /** Paused by the sender after days of failures (the vendor resumes it). */
    pausedFailing: number;
    /** Paused by their vendors. */
    pausedByVendor: number;
    /** Disabled by a 410 Gone. */
    disabled: number;
  };
  /** Seconds the longest-failing active endpoint has failed (null: none fails). */
  longestFailingSeconds: number | null;
  /** Events waiting for an active endpoint (pending or retrying). */
  waiting: number;
  /** Seconds the oldest of them has waited since it was queued (null: none waits). */
  oldestWaitingSeconds: number | null;
  /**
   * Events waiting for an active endpoint that is not failing and due now: how long past due the oldest is
   * (seconds; null: none). The sender's own lag: a working receiver should not wait.
   */
  overdueSeconds: number | null;
}

const ageOf = (iso: string | null | undefined, now: Date): number | null => {
  const at = iso ? Date.parse(iso) : NaN;
  return Number.isFinite(at) ? Math.max(0, Math.round((now.getTime() - at) / 1000)) : null;
};

export async function webhookHealthOf(store: Store, now: Date): Promise<WebhookHealth> {
  const db = store.db;
  const nowIso = now.toISOString();
  const [endpoints, waiting, overdue] = await Promise.all([
    db
      .selectFrom('webhook_endpoints')
      .select([
        'state',
        'state_reason',
        sql<number>`case when failing_since is null then 0 else 1 end`.as('failing'),
        sql<number | string>`count(*)`.as('n'),
        sql<string | null>`min(failing_since)`.as('since'),
      ])
      .groupBy(['state', 'state_reason', sql`case when failing_since is null then 0 else 1 end`])
      .execute(),
    db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
      .select([sql<number | string>`count(*)`.as('n'), sql<string | null>`min(d.created_at)`.as('oldest')])
      .where('e.state', '=', 'active')
      .where('d.state', 'in', ['pending', 'retrying'])
      .executeTakeFirst(),
    db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
      .select(sql<string | null>`min(d.next_attempt_at)`.as('due'))
      .where('e.state', '=', 'active')
      .where('e.failing_since', 'is', null)
      .where('d.state', 'in', ['pending', 'retrying'])
      .where('d.next_attempt_at', '<=', nowIso)
      .executeTakeFirst(),
  ]);
  const counts: WebhookHealth['endpoints'] = {
    accepting: 0,
    failing: 0,
    pausedFailing: 0,
    pausedByVendor: 0,
    disabled: 0,
  };
  let failingSince: string | null = null;
  for (const row of endpoints) {
    const n = Number(row.n);
    if (row.state === 'active' && Number(row.failing) === 1) {
      counts.failing += n;
      if (row.since && (failingSince === null || row.since < failingSince)) failingSince = row.since;
    } else if (row.state === 'active') counts.accepting += n;
    else if (row.state === 'paused' && row.state_reason === 'failing') counts.pausedFailing += n;
    else if (row.state === 'paused') counts.pausedByVendor += n;
    else counts.disabled += n;
  }
  return {
    endpoints: counts,
    longestFailingSeconds: ageOf(failingSince, now),
    waiting: Number(waiting?.n ?? 0),
    oldestWaitingSeconds: ageOf(waiting?.oldest, now),
    overdueSeconds: ageOf(overdue?.due, now),
  };
}
