/**
 * The shared rate-limit store (src/server/ops/rate-limit-store.ts) on a real database: counts made at once are
 * batched into one upsert per batch and still give each request its own consecutive count, the same totals as one
 * by one; a lapsed window restarts; a failed statement fails its whole batch and the next batch counts; two stores
 * (two instances) on one PostgreSQL schema share the counts; a burst costs fewer statements than requests.
 */
import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { databaseRateLimitStore } from '../../src/server/ops/rate-limit-store';
import type { Database } from '../../src/server/store/schema';
import { openStore, type Store } from '../../src/server/store/store';
import { backendsClosedAfterEach, PG_URL } from './orders-support';
import { countingDb as countingDbOn } from '../support/counting-db';

type Res = { current: number; ttl: number };
interface RouteStore {
  incr(key: string, cb: (err: Error | null, res?: Res) => void, timeWindow?: number): void;
  child(routeOptions: { routeInfo?: { method?: string; url?: string } }): RouteStore;
}

const { backends, open } = backendsClosedAfterEach();

async function fresh(backend: (typeof backends)[number]): Promise<Store> {
  const store = await openStore(await backend.fresh());
  open.push(store);
  return store;
}

function limiter(db: Kysely<Database>, now: () => number = Date.now): RouteStore {
  const Ctor = databaseRateLimitStore(db, now) as unknown as new (o: object) => RouteStore;
  return new Ctor({});
}

const incr = (store: RouteStore, key: string, windowMs = 60_000) =>
  new Promise<Res>((resolve, reject) =>
    store.incr(
      key,
      (err, res) => (err || !res ? reject(err ?? new Error('no result')) : resolve(res)),
      windowMs,
    ),
  );
const turn = () => new Promise((r) => setImmediate(r));
const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
const counts = (rs: Res[]) => rs.map((r) => r.current).sort((a, b) => a - b);

describe.each(backends.filter((b) => b.enabled))('rate-limit store on $name', (backend) => {
  it('counts made at once, in waves while a statement is out, get distinct consecutive counts: the totals of one by one', async () => {
    const store = await fresh(backend);
    const a = limiter(store.db);
    const route = a.child({ routeInfo: { method: 'POST', url: '/api/orders' } });
    const keys = ['ip-b', 'ip-a', 'ip-c'];
    const per = new Map<string, Promise<Res>[]>(keys.map((k) => [k, []]));
    const routed: Promise<Res>[] = [];
    for (let wave = 0; wave < 4; wave++) {
      for (let i = 0; i < 10; i++)
        for (const k of keys) {
          per.get(k)?.push(incr(a, k));
          if (k === 'ip-a') routed.push(incr(route, k)); // the same client IP on another route: its own counter
        }
      await turn(); // the first wave's statement is out while the next is counted
    }
    for (const k of keys) {
      const rs = await Promise.all(per.get(k) ?? []);
      expect(counts(rs), k).toEqual(range(40));
      for (const r of rs) {
        expect(r.ttl).toBeGreaterThan(59_000);
        expect(r.ttl).toBeLessThanOrEqual(60_000);
      }
    }
    expect(counts(await Promise.all(routed))).toEqual(range(40));

    // One by one on fresh keys: the same counts, and the rows hold the same totals.
    const seq: Res[] = [];
    for (let i = 0; i < 40; i++) seq.push(await incr(a, 'ip-seq'));
    expect(seq.map((r) => r.current)).toEqual(range(40));
    const rows = await store.db.selectFrom('rate_limits').select(['key', 'points']).orderBy('key').execute();
    expect(rows.map((r) => [r.key, Number(r.points)])).toEqual([
      ['POST /api/orders|ip-a', 40],
      ['ip-a', 40],
      ['ip-b', 40],
      ['ip-c', 40],
      ['ip-seq', 40],
    ]);
    // The k-th request of a batch gets the k-th count: counted in one turn, answered in order.
    const ordered = await Promise.all(range(5).map(() => incr(a, 'ip-b')));
    expect(ordered.map((r) => r.current)).toEqual([41, 42, 43, 44, 45]);
  });

  it('a window past its reset restarts: one count, or a batch of n counts 1..n with the full window', async () => {
    const store = await fresh(backend);
    let clock = 1_000_000;
    const a = limiter(store.db, () => clock);
    expect(counts(await Promise.all(range(3).map(() => incr(a, 'ip', 1_000))))).toEqual([1, 2, 3]);
    clock += 999; // still in the window: counts on, 1 ms left
    expect(await incr(a, 'ip', 1_000)).toEqual({ current: 4, ttl: 1 });
    clock += 1; // the window ends: restarts, in a batch with a fresh key and a longer window
    const restarted = Promise.all(range(4).map(() => incr(a, 'ip', 1_000)));
    const other = incr(a, 'other', 5_000);
    expect((await restarted).map((r) => r.current)).toEqual([1, 2, 3, 4]);
    for (const r of await restarted) expect(r.ttl).toBe(1_000);
    expect(await other).toEqual({ current: 1, ttl: 5_000 });
    clock += 1_000; // a lone request in a lapsed window
    expect(await incr(a, 'ip', 1_000)).toEqual({ current: 1, ttl: 1_000 });
  });

  it('a failed statement fails every request of its batch; the next batch counts', async () => {
    const store = await fresh(backend);
    const a = limiter(store.db);
    expect((await incr(a, 'ip')).current).toBe(1);
    await sql`alter table rate_limits rename to rate_limits_away`.execute(store.db);
    const failed = await Promise.allSettled(range(6).map((i) => incr(a, i % 2 ? 'ip' : 'other')));
    expect(failed.map((r) => r.status)).toEqual(range(6).map(() => 'rejected'));
    await sql`alter table rate_limits_away rename to rate_limits`.execute(store.db);
    expect(counts(await Promise.all(range(3).map(() => incr(a, 'ip'))))).toEqual([2, 3, 4]);
  });
});

/** A Kysely on `schema` whose pool counts the statements that count requests (inserts into rate_limits). */
function countingDb(schema: string): { db: Kysely<Database>; statements: () => number } {
  const { db, count } = countingDbOn(PG_URL, schema, /^\s*insert into "?rate_limits"?\s/i);
  open.push({ close: () => db.destroy() });
  return { db, statements: count };
}

describe.runIf(PG_URL)('rate-limit store on PostgreSQL: statements and instances', () => {
  async function schema(): Promise<string> {
    const config = await backends[1]!.fresh();
    if (config.kind !== 'postgres' || !config.schema) throw new Error('no schema');
    const store = await openStore(config); // migrated
    await store.close();
    return config.schema;
  }

  it('a burst of N concurrent counts costs fewer statements than N (one per batch)', async () => {
    const { db, statements } = countingDb(await schema());
    const a = limiter(db);
    expect((await incr(a, 'alone')).current).toBe(1);
    expect(statements()).toBe(1); // a lone request: one statement, sent at once

    const burst = range(200).map((i) => incr(a, `ip-${i % 10}`)); // one turn: one statement
    await Promise.all(burst);
    expect(statements()).toBe(2);

    // Spread over turns while statements are out: each batch waits for the previous, never one per request.
    const spread: Promise<Res>[] = [];
    for (let t = 0; t < 20; t++) {
      for (let i = 0; i < 10; i++) spread.push(incr(a, `ip-${i}`));
      await turn();
    }
    const rs = await Promise.all(spread);
    expect(statements() - 2).toBeLessThan(spread.length / 2);
    expect(statements() - 2).toBeGreaterThanOrEqual(1);
    const perKey = new Map<string, number[]>();
    spread.forEach((_, i) => {
      const k = `ip-${i % 10}`;
      perKey.set(k, [...(perKey.get(k) ?? []), rs[i]!.current]);
    });
    for (const [k, cs] of perKey)
      expect(
        [...cs].sort((x, y) => x - y),
        k,
      ).toEqual(range(20).map((c) => c + 20));
  });

  it('two stores (two instances, two pools) on one schema share counts, bursting on the same keys at once', async () => {
    const s = await schema();
    const one = countingDb(s);
    const two = countingDb(s);
    const a = limiter(one.db);
    const b = limiter(two.db);
    const keys = ['k1', 'k2', 'k3', 'k4'];
    const all = new Map<string, Promise<Res>[]>(keys.map((k) => [k, []]));
    // Opposite key orders on the two instances: each locks rows in key order, so neither waits on the other in a cycle.
    const reversed = [...keys].reverse();
    for (let wave = 0; wave < 5; wave++) {
      for (let i = 0; i < 8; i++)
        keys.forEach((k, j) => {
          all.get(k)?.push(incr(a, k));
          all.get(reversed[j] ?? '')?.push(incr(b, reversed[j] ?? ''));
        });
      await turn();
    }
    for (const k of keys) expect(counts(await Promise.all(all.get(k) ?? [])), k).toEqual(range(80));
    expect(one.statements() + two.statements()).toBeLessThan(keys.length * 80);
    // Either instance goes on from the shared total.
    expect((await incr(b, 'k1')).current).toBe(81);
    expect((await incr(a, 'k1')).current).toBe(82);
  });
});
