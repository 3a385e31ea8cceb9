/**
 * A @fastify/rate-limit store in the database, so every API instance on one PostgreSQL database shares the same
 * counters (two instances do not allow twice as much, and a restart does not reset them). One fixed window per
 * key (route + client IP), counted by an atomic upsert:
 *
 *   insert … values (key, n, end), … on conflict (key) do update
 *     set points = (window over ? n : points + n), reset_ms = (window over ? end : reset_ms) returning …
 *
 * which both PostgreSQL and SQLite run atomically per row (PostgreSQL: the rows as arrays, one text for every batch).
 * Expired windows are pruned now and then.
 *
 * Counts are batched, one counting statement in flight per store (per process): the requests counted in the same
 * turn of the event loop, or while the previous statement was out, go together in the next one, sent when it
 * returns; a lone request goes at the next turn. Under a burst (a drop's first second) that is one statement per
 * batch instead of one per request. The requests of one key in a batch are one row adding n points (a statement
 * may not touch a row twice); the k-th of them gets points_after - n + k, each a count of its own as if counted one
 * after another, and a window past its reset restarts at n. Rows go in key order, so two instances' batches lock
 * them in the same order (no deadlock). A failed statement fails every request of its batch.
 *
 * With SQLite (one instance) the server keeps @fastify/rate-limit's in-memory store instead: a counter write per
 * request would wait for the group-commit fsync for nothing.
 */
import type { FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import { CompiledQuery, PostgresAdapter, sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema';

type Callback = (err: Error | null, res?: { current: number; ttl: number }) => void;
/** @fastify/rate-limit calls incr with the window and the limit after the callback (not in its types). */
interface RouteStore {
  incr(key: string, cb: Callback, timeWindow?: number): void;
  child(routeOptions: { routeInfo?: { method?: string | string[]; url?: string } }): RouteStore;
}

const PRUNE_EVERY_MS = 60_000;
/** Most requests counted by one statement (at most as many rows, 3 parameters each). */
export const COUNT_BATCH_MAX = 1_000;

/** One key's requests in a batch: `n` of them, in windows of `windowMs`. */
export interface KeyCount {
  key: string;
  n: number;
  windowMs: number;
}

/**
 * Counts `n` requests for each key (distinct keys) at `nowMs` in one statement; returns, per key, the count after
 * them and the ms left in the window. A window over by `nowMs` restarts at n.
 */
export async function countRequests(
  db: Kysely<Database>,
  counts: readonly KeyCount[],
  nowMs: number,
): Promise<Map<string, { points: number; ttl: number }>> {
  const out = new Map<string, { points: number; ttl: number }>();
  if (counts.length === 0) return out;
  const rows = [...counts]
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((c) => ({ key: c.key, points: c.n, reset_ms: nowMs + c.windowMs }));
  const returned = isPostgres(db)
    ? await countOnPostgres(db, rows, nowMs)
    : await countBuilt(db, rows, nowMs);
  for (const r of returned)
    out.set(r.key, { points: Number(r.points), ttl: Math.max(0, Number(r.reset_ms) - nowMs) });
  return out;
}

type CountRow = { key: string; points: number; reset_ms: number };
type Counted = { key: string; points: number | string; reset_ms: number | string };

const isPostgres = (db: Kysely<Database>) => db.getExecutor().adapter instanceof PostgresAdapter;

/**
 * PostgreSQL: the rows as three arrays, so the statement's text is the same for every batch (one prepared statement
 * per connection, store/pg-named.ts) and nothing is built or compiled per request: this counts every API request of the fleet,
 * the 980 refused buyers of a drop included (Kysely's builder and compiler were ~0.13 ms of each).
 */
async function countOnPostgres(db: Kysely<Database>, rows: readonly CountRow[], nowMs: number) {
  const { rows: returned } = await db.executeQuery<Counted>(
    CompiledQuery.raw(COUNT_ON_POSTGRES, [
      rows.map((r) => r.key),
      rows.map((r) => r.points),
      rows.map((r) => r.reset_ms),
      nowMs,
    ]),
  );
  return returned;
}

/** The upsert, written once: $1–$3 the rows' keys, points and window ends, $4 the batch's time. */
const COUNT_ON_POSTGRES = `insert into rate_limits (key, points, reset_ms)
select t.key, t.points, t.reset_ms
from unnest($1::text[], $2::integer[], $3::bigint[]) as t(key, points, reset_ms)
on conflict (key) do update set
  points = case when rate_limits.reset_ms <= $4 then excluded.points else rate_limits.points + excluded.points end,
  reset_ms = case when rate_limits.reset_ms <= $4 then excluded.reset_ms else rate_limits.reset_ms end
returning key, points, reset_ms`;

/** SQLite (the tests'; the server keeps the in-memory store there): the same upsert, built. */
async function countBuilt(db: Kysely<Database>, rows: readonly CountRow[], nowMs: number) {
  const over = sql<boolean>`rate_limits.reset_ms <= ${nowMs}`;
  return db
    .insertInto('rate_limits')
    .values([...rows])
    .onConflict((oc) =>
      oc.column('key').doUpdateSet({
        points: sql<number>`case when ${over} then excluded.points else rate_limits.points + excluded.points end`,
        reset_ms: sql<number>`case when ${over} then excluded.reset_ms else rate_limits.reset_ms end`,
      }),
    )
    .returning(['key', 'points', 'reset_ms'])
    .execute();
}

interface Waiting {
  key: string;
  windowMs: number;
  nowMs: number;
  cb: Callback;
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

  // The batch: requests counted while no statement is out go in one statement at the next turn of the event loop;
  // those counted while one is out go in the next, sent when it returns (one counting statement out at a time).
  let queue: Waiting[] = [];
  let sending = false;
  let scheduled = false;
  const kick = () => {
    if (sending || scheduled || queue.length === 0) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      void send();
    });
  };
  const send = async () => {
    if (sending) return;
    sending = true;
    const batch = queue.slice(0, COUNT_BATCH_MAX);
    queue = queue.slice(COUNT_BATCH_MAX);
    // One row per key (in the order first counted), one time for the batch: the latest request's.
    const keys = new Map<string, KeyCount>();
    let nowMs = 0;
    for (const w of batch) {
      nowMs = Math.max(nowMs, w.nowMs);
      const k = keys.get(w.key);
      if (k) k.n += 1;
      else keys.set(w.key, { key: w.key, n: 1, windowMs: w.windowMs });
    }
    let answers: (() => void)[];
    try {
      const after = await countRequests(db, [...keys.values()], nowMs);
      const seen = new Map<string, number>();
      answers = batch.map((w) => {
        const row = after.get(w.key);
        const n = keys.get(w.key)?.n ?? 1;
        const k = (seen.get(w.key) ?? 0) + 1;
        seen.set(w.key, k);
        if (!row) throw new Error('rate limit: the counter upsert returned no row for a key');
        return () => w.cb(null, { current: row.points - n + k, ttl: row.ttl });
      });
    } catch (err) {
      const e = err instanceof Error ? err : new Error(String(err));
      answers = batch.map((w) => () => w.cb(e));
    } finally {
      sending = false;
      kick();
    }
    for (const answer of answers) answer();
  };

  const make = (prefix: string): RouteStore => ({
    incr(key, cb, timeWindow = 60_000) {
      const nowMs = now();
      queue.push({ key: `${prefix}${key}`, windowMs: timeWindow, nowMs, cb });
      kick();
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
