/**
 * A @fastify/rate-limit store in the database, so every API instance on one PostgreSQL database shares the same
 * counters (two instances do not allow twice as much, and a restart does not reset them). One fixed window per
 * key (route + client IP), counted by a single atomic upsert:
 *
 *   insert … on conflict (key) do update set points = (window over ? 1 : points + 1), reset_ms = … returning …
 *
 * which both PostgreSQL and SQLite run atomically per row. Expired windows are pruned now and then.
 * With SQLite (one instance) the server keeps @fastify/rate-limit's in-memory store instead: a counter write per
 * request would wait for the group-commit fsync for nothing.
 */
import type { FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema';

type Callback = (err: Error | null, res?: { current: number; ttl: number }) => void;
/** @fastify/rate-limit calls incr with the window and the limit after the callback (not in its types). */
interface RouteStore {
  incr(key: string, cb: Callback, timeWindow?: number): void;
  child(routeOptions: { routeInfo?: { method?: string | string[]; url?: string } }): RouteStore;
}

const PRUNE_EVERY_MS = 60_000;

/** Counts one request for `key` in its window; returns the count so far and the ms left in the window. */
export async function countRequest(
  db: Kysely<Database>,
  key: string,
  windowMs: number,
  nowMs: number,
): Promise<{ current: number; ttl: number }> {
  const end = nowMs + windowMs;
  const { rows } = await sql<{ points: number | string; reset_ms: number | string }>`
    insert into rate_limits (key, points, reset_ms) values (${key}, 1, ${end})
    on conflict (key) do update set
      points = case when rate_limits.reset_ms <= ${nowMs} then 1 else rate_limits.points + 1 end,
      reset_ms = case when rate_limits.reset_ms <= ${nowMs} then ${end} else rate_limits.reset_ms end
    returning points, reset_ms`.execute(db);
  const row = rows[0];
  if (!row) throw new Error('rate limit: the counter upsert returned no row');
  return { current: Number(row.points), ttl: Math.max(0, Number(row.reset_ms) - nowMs) };
}

/** The store class @fastify/rate-limit instantiates (`store:` option), bound to one database. */
export function databaseRateLimitStore(
  db: Kysely<Database>,
  now: () => number = Date.now,
): FastifyRateLimitStoreCtor {
  let lastPrune = 0;
  const prune = (nowMs: number) => {
    if (nowMs - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = nowMs;
    db.deleteFrom('rate_limits')
      .where('reset_ms', '<', nowMs - PRUNE_EVERY_MS)
      .execute()
      .catch(() => undefined); // best effort: expired rows are harmless, the upsert resets them
  };
  const make = (prefix: string): RouteStore => ({
    incr(key, cb, timeWindow = 60_000) {
      const nowMs = now();
      countRequest(db, `${prefix}${key}`, timeWindow, nowMs).then(
        (res) => cb(null, res),
        (err: unknown) => cb(err instanceof Error ? err : new Error(String(err))),
      );
      prune(nowMs);
    },
    child(routeOptions) {
      const info = routeOptions.routeInfo ?? {};
      const method = Array.isArray(info.method) ? info.method.join(',') : (info.method ?? '');
      return make(`${method} ${info.url ?? ''}|`);
    },
  });
  return class {
    constructor() {
      return make('');
    }
  } as unknown as FastifyRateLimitStoreCtor; // a constructor returning the store object
}
