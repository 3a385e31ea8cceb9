/**
 * Readiness for GET /api/health/ready: may a load balancer send this instance traffic? Three parts, nothing else:
 *
 * - database: open, migrated and answering (nothing can be served without it);
 * - started: the instance has finished its start (the HTTP server listens first, because the demo's price feeds
 *   are served by the store itself; the price, the outbox and the leases start after): a load balancer that routed
 *   to a listening but unstarted instance would meet quotes refused for want of a price (bench:rolling measured
 *   503s on quotes for about a second after a restart before this part existed);
 * - draining: the instance is shutting down (SIGTERM): it still answers the requests it gets while it drains,
 *   but takes no new traffic from the load balancer.
 *
 * Shared outside services (the Solana RPC, the payment watcher's lag, the price, mail) are not part of it: they are
 * the same for every instance, so routing on them would take the whole shop out of rotation at once while buyers
 * could still browse and order. They are reported per part by GET /api/health/deps (./dependencies.ts) for alerts
 * and dashboards (docs/decisions/deploy.md "Health that routes").
 */
import { sql } from 'kysely';
import type { PriceSource } from '../orders/quotes';
import type { Store } from '../store/store';

export interface ReadinessDeps {
  store: Store;
  /** True once the instance drains (SIGTERM): readiness turns 503 at once. Absent: never draining. */
  draining?: () => boolean;
  /** False until the instance has finished its start: readiness is 503 until then. Absent: started. */
  started?: () => boolean;
}

export interface OutboxBacklog {
  backlog: number;
  oldestAgeSeconds: number | null;
}

export interface Readiness {
  ready: boolean;
  parts: {
    database: { ok: boolean };
    /** ok: false until the instance has finished its start (price loaded, outbox and leases started). */
    started: { ok: boolean };
    /** ok: false while the instance drains before it stops. */
    draining: { ok: boolean };
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
  const draining = deps.draining?.() ?? false;
  const started = deps.started?.() ?? true;
  const database = await databaseOk(deps.store);
  const parts: Readiness['parts'] = {
    database: { ok: database },
    started: { ok: started },
    draining: { ok: !draining },
  };
  const failing = (Object.keys(parts) as (keyof Readiness['parts'])[]).filter((k) => !parts[k].ok);
  return { ready: failing.length === 0, parts, failing };
}

/** The plain sentence of a 503 readiness answer. */
export function notReadyMessage(r: Readiness): string {
  if (!r.parts.draining.ok) return 'Not ready: this instance is shutting down.';
  if (!r.parts.started.ok) return 'Not ready: this instance is still starting.';
  return 'Not ready: the database does not answer.';
}
