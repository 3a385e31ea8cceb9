/**
 * The fleet's Solana RPC budget on PostgreSQL: every instance on one store spends from one `SOLANA_RPC_BUDGET`
 * (per 10 s in all, 40 % per method), as the provider counts it (per client address, the fleet's NAT or host).
 * The process's `RpcBudget` (budget.ts) keeps its queue, lanes and priority reserve; before it lets a request out
 * it takes a grant from here (`SharedBudget.take`).
 *
 * Kept in `rpc_budget_slots`: time is cut into slots of `slotMs` (250 ms); a row counts the requests granted in one
 * slot for one method, and method '*' counts them all. A claim is one short transaction under an advisory lock
 * (the fleet's claims run one at a time): it reads the slots that can still be in the provider's window, grants
 * what fits within the limits, adds it to the current slot and gives back what an earlier grant did not use. Two
 * round trips: the lock, the give-back and the read in one call (`rpc_budget_claim`, migration 0032), the grants
 * with the commit. To keep round trips off the RPC path, a claim takes a few more grants than the request needs
 * (`prefetch`, not for priority requests, which must not lend the reserve to others); the process spends them on
 * the next requests of that method and gives the rest back with its next claim. So a busy instance makes one claim
 * per few requests.
 *
 * Why the window holds across the fleet: a grant of slot j is sent before the end of slot j + 1 (older grants are
 * dropped and given back) and so leaves the provider's window by (j + 2) · slotMs + W + latency. A claim in slot k
 * counts every slot from k − (W / slotMs + 2): any grant it does not count left the window before slot k began
 * (latency under one slot). Future slots are counted too (instances whose clocks run a little ahead).
 *
 * When the store cannot be reached, nothing is granted (the request waits or fails by its deadline like any
 * request without a slot): a fleet that cannot agree does not guess.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema';
import { inlineParameters } from '../store/pg-simple';

export interface SharedLimits {
  /** Requests in all in any window. */
  total: number;
  /** Requests of one method in any window. */
  perMethod: number;
}

/** A budget several processes share (budget.ts asks it before each request leaves). */
export interface SharedBudget {
  /**
   * Takes one grant per entry of `methods` within `limits`: 0 when taken, else milliseconds until asking again
   * may succeed (nothing taken).
   */
  take(methods: string[], limits: SharedLimits, priority: boolean): Promise<number>;
  stats(): SharedBudgetStats;
}

export interface SharedBudgetStats {
  /** Claims made in the store (round trips), granted or refused. */
  claims: number;
  /** Claims refused (the fleet's window was full). */
  refused: number;
  /** Grants given back unused. */
  returned: number;
  /** Claims that failed (store unreachable). */
  failed: number;
}

export interface FleetBudgetOptions {
  db: Kysely<Database>;
  /** Which budget (one per RPC provider). Default 'solana'. */
  scope?: string;
  /** The provider's window. Default 10 s. */
  windowMs?: number;
  /** Default 250 ms. */
  slotMs?: number;
  /** Grants taken ahead per method by a claim of a request that is not a priority one. Default 3. */
  prefetch?: number;
  now?: () => number;
  onError?: (err: unknown) => void;
}

const PRUNE_EVERY_MS = 60_000;
/** A claim the store does not answer: ask again in a second. */
const STORE_RETRY_MS = 1_000;
/** A refused claim is asked again after at most this long (grants given back free room early). */
const MAX_REFUSAL_MS = 1_000;

function addTo(map: Map<number, Map<string, number>>, slot: number, method: string, n: number): void {
  const inner = map.get(slot) ?? new Map<string, number>();
  const v = (inner.get(method) ?? 0) + n;
  if (v > 0) inner.set(method, v);
  else inner.delete(method);
  if (inner.size > 0) map.set(slot, inner);
  else map.delete(slot);
}

export function createFleetBudget(options: FleetBudgetOptions): SharedBudget {
  const db = options.db;
  const scope = options.scope ?? 'solana';
  const windowMs = options.windowMs ?? 10_000;
  const slotMs = options.slotMs ?? 250;
  const prefetch = Math.max(0, options.prefetch ?? 3);
  const now = options.now ?? Date.now;
  /** Slots before the current one a claim counts (see the header). */
  const past = Math.ceil(windowMs / slotMs) + 2;
  const lockKey = `rpc_budget:${scope}`;
  const counters: SharedBudgetStats = { claims: 0, refused: 0, returned: 0, failed: 0 };

  /** Grants in hand, by the slot they were granted in (valid until the end of the next slot), left per method. */
  const pool = new Map<number, Map<string, number>>();
  /** Unused grants of earlier slots, given back with the next claim: slot → method → n. */
  const giveBack = new Map<number, Map<string, number>>();
  /** A refused claim: requests of the same kind and method wait until then without asking the store. */
  const refusedUntil = new Map<string, number>(); // `${priority}|${method}` → epoch ms
  let claiming: Promise<unknown> = Promise.resolve();
  let lastPrune = 0;

  const slotOf = (t: number) => Math.floor(t / slotMs);

  /** Grants of slots before the previous one are not sent any more: they go back. */
  function rollPool(k: number): void {
    for (const [slot, left] of pool) {
      if (slot >= k - 1) continue;
      pool.delete(slot);
      for (const [m, n] of left) if (n > 0) addTo(giveBack, slot, m, n);
    }
  }

  function takeFromPool(need: Map<string, number>): boolean {
    rollPool(slotOf(now()));
    const slots = [...pool.keys()].sort((a, b) => a - b);
    for (const [m, n] of need) {
      let have = 0;
      for (const s of slots) have += pool.get(s)?.get(m) ?? 0;
      if (have < n) return false;
    }
    for (const [m, n] of need) {
      let want = n;
      for (const s of slots) {
        const left = pool.get(s);
        const here = left?.get(m) ?? 0;
        const used = Math.min(here, want);
        if (used > 0) left?.set(m, here - used);
        want -= used;
      }
    }
    return true;
  }

  async function claim(need: Map<string, number>, limits: SharedLimits, priority: boolean): Promise<number> {
    const k0 = slotOf(now());
    rollPool(k0);
    // Whatever the pool already holds for these methods counts towards the need.
    const short = new Map<string, number>();
    for (const [m, n] of need) {
      let have = 0;
      for (const left of pool.values()) have += left.get(m) ?? 0;
      short.set(m, Math.max(0, n - have));
    }
    // Grants of slots the window no longer counts need not go back.
    for (const slot of giveBack.keys()) if (slot < k0 - past) giveBack.delete(slot);
    const returning = [...giveBack].flatMap(([slot, left]) =>
      [...left].map(([method, n]) => ({ slot, method, n })),
    );
    counters.claims++;
    const methods = [...short.keys()];
    const granted = await db.transaction().execute(async (trx) => {
      // One round trip (migration 0032, with the transaction's begin: the simple protocol, ../store/pg-simple.ts):
      // the fleet's lock, the grants given back, and the slots counted, read after the lock. From the slot this
      // claim began in on: the slot of the moment the lock is held is later, and only rows of its window count.
      const read = sql<{ slot: number | string; method: string; used: number }>`
        select slot, method, used from rpc_budget_claim(${lockKey}, ${scope},
          ${JSON.stringify(returning)}::jsonb, ${k0 - past}, ${JSON.stringify(methods)}::jsonb)`;
      const all = (
        await sql
          .raw<{ slot: number | string; method: string; used: number }>(inlineParameters(read.compile(trx)))
          .execute(trx)
      ).rows;
      // The slot of the moment the fleet's lock is held, as closely as this process can tell (the answer's): its
      // grants are counted, and may be sent, from now (a claim that waited long for the lock would otherwise get
      // grants already stale, and be refused with room to spare).
      const t = now();
      const k = slotOf(t);
      const rows = all.filter((r) => Number(r.slot) >= k - past && Number(r.slot) <= k + past);
      const sums = new Map<string, number>();
      for (const r of rows) sums.set(r.method, (sums.get(r.method) ?? 0) + Number(r.used));
      const needTotal = [...short.values()].reduce((a, b) => a + b, 0);
      const fits =
        (sums.get('*') ?? 0) + needTotal <= limits.total &&
        [...short].every(([m, n]) => (sums.get(m) ?? 0) + n <= limits.perMethod);
      if (!fits) return { ok: false as const, wait: waitForRoom(rows, short, limits, k, t) };
      // Grants ahead, within what is left of both limits.
      let roomTotal = limits.total - (sums.get('*') ?? 0) - needTotal;
      const grant = new Map<string, number>();
      for (const [m, n] of short) {
        const extra = priority
          ? 0
          : Math.max(0, Math.min(prefetch, roomTotal, limits.perMethod - (sums.get(m) ?? 0) - n));
        roomTotal -= extra;
        if (n + extra > 0) grant.set(m, n + extra);
      }
      const total = [...grant.values()].reduce((a, b) => a + b, 0);
      // Recorded in the slot of this moment, later than the lock's if the reads took long: still counted by
      // every claim that could see the grant in the provider's window (the reads above counted from the lock's
      // slot, so they covered every grant that can be in that window from now on), and fresh when it returns.
      const at = Math.min(Math.max(k, slotOf(now())), k + past);
      // The grants and the commit in one round trip (the fleet's lock ends with it); the old slots pruned with them
      // once a minute.
      const writes: string[] = [];
      if (t - lastPrune > PRUNE_EVERY_MS) {
        lastPrune = t;
        writes.push(
          inlineParameters(
            trx
              .deleteFrom('rpc_budget_slots')
              .where('scope', '=', scope)
              .where('slot', '<', k - 4 * past)
              .compile(),
          ),
        );
      }
      if (total > 0) {
        const values = [...grant].map(([method, used]) => ({ scope, slot: at, method, used }));
        values.push({ scope, slot: at, method: '*', used: total });
        writes.push(
          inlineParameters(
            trx
              .insertInto('rpc_budget_slots')
              .values(values)
              .onConflict((oc) =>
                oc.columns(['scope', 'slot', 'method']).doUpdateSet((eb) => ({
                  used: sql<number>`${eb.ref('rpc_budget_slots.used')} + ${eb.ref('excluded.used')}`,
                })),
              )
              .compile(),
          ),
        );
      }
      if (writes.length > 0) await sql.raw(`${writes.join(';\n')};\ncommit`).execute(trx);
      return { ok: true as const, grant, slot: at };
    });
    // Given back: the store has them again (the transaction committed).
    for (const r of returning) {
      counters.returned += r.n;
      addTo(giveBack, r.slot, r.method, -r.n);
    }
    if (!granted.ok) {
      counters.refused++;
      return granted.wait;
    }
    for (const [m, n] of granted.grant) addTo(pool, granted.slot, m, n);
    // A claim that took longer than a slot: its grants may be stale already (given back with the next claim).
    rollPool(slotOf(now()));
    return 0;
  }

  /** Milliseconds until enough of the counted slots leave the window for `short` to fit. */
  function waitForRoom(
    rows: { slot: number | string; method: string; used: number }[],
    short: Map<string, number>,
    limits: SharedLimits,
    k: number,
    t: number,
  ): number {
    const needTotal = [...short.values()].reduce((a, b) => a + b, 0);
    const bySlot = new Map<number, Map<string, number>>();
    for (const r of rows) {
      const s = Number(r.slot);
      const m = bySlot.get(s) ?? new Map<string, number>();
      m.set(r.method, (m.get(r.method) ?? 0) + Number(r.used));
      bySlot.set(s, m);
    }
    const sums = new Map<string, number>();
    for (const m of bySlot.values()) for (const [name, n] of m) sums.set(name, (sums.get(name) ?? 0) + n);
    const fits = () =>
      (sums.get('*') ?? 0) + needTotal <= limits.total &&
      [...short].every(([m, n]) => (sums.get(m) ?? 0) + n <= limits.perMethod);
    for (const s of [...bySlot.keys()].sort((a, b) => a - b)) {
      if (s > k) break;
      for (const [name, n] of bySlot.get(s) ?? []) sums.set(name, (sums.get(name) ?? 0) - n);
      // Slot s stops counting for claims made from slot s + past + 1 on.
      if (fits()) return Math.max(10, (s + past + 1) * slotMs - t);
    }
    return windowMs;
  }

  async function take(methods: string[], limits: SharedLimits, priority: boolean): Promise<number> {
    const need = new Map<string, number>();
    for (const m of methods) need.set(m, (need.get(m) ?? 0) + 1);
    if (takeFromPool(need)) return 0;
    const refused = () => {
      let until = 0;
      for (const m of need.keys()) {
        until = Math.max(until, refusedUntil.get(`true|${m}`) ?? 0);
        if (!priority) until = Math.max(until, refusedUntil.get(`false|${m}`) ?? 0);
      }
      return until - now();
    };
    if (refused() > 0) return refused();
    // One claim at a time per process: a request that finds one under way waits for it, then looks again.
    const turn = claiming.then(async () => {
      if (takeFromPool(need)) return 0;
      if (refused() > 0) return refused();
      let wait: number;
      try {
        wait = await claim(need, limits, priority);
      } catch (err) {
        counters.failed++;
        options.onError?.(err);
        return STORE_RETRY_MS;
      }
      if (wait > 0) {
        // Others give grants back before their slots leave the window: ask again within a second at most.
        wait = Math.min(wait, MAX_REFUSAL_MS);
        for (const m of need.keys()) refusedUntil.set(`${priority}|${m}`, now() + wait);
        return wait;
      }
      return takeFromPool(need) ? 0 : 10;
    });
    claiming = turn.catch(() => undefined);
    return turn;
  }

  return { take, stats: () => ({ ...counters }) };
}
