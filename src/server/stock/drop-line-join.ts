/**
 * A drop's line on PostgreSQL after the start (./drop-line.ts): each arriving or asking buyer's join (their row,
 * inserted once) and look (the free pieces, the buyers let through, how many wait ahead of them, the first hold's
 * deadline), batched per product as the rate-limit counter is (src/server/ops/rate-limit-store.ts).
 *
 * - One join-and-look statement in flight per product per process: the buyers asking in the same turn of the
 *   event loop, or while the previous statement is out, go together in the next one, sent when it returns (at
 *   most `JOIN_BATCH_MAX` buyers; the rest wait for the next). A lone buyer goes at the next turn: no wait when
 *   idle. In a drop's first second (~100 arrivals/s on each of two saturated instances) that is one statement per
 *   batch instead of one per request.
 * - The statement inserts every new buyer's row (their own rank and joined_at; nothing for one in line already)
 *   and returns every buyer's row, found or inserted, with the line's counts. The same holder twice in a batch (two
 *   tabs) is one row, with the rank of the first to ask, and both requests get it.
 * - Each request then decides on its own (./drop-line.ts `decide`): only the reading is shared. A buyer whose row
 *   the statement cannot see (their own join, in another instance's statement, committed after this one began)
 *   gets undefined and joins the slow way, as before. A failed statement fails every request of its batch.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema';
import { count, type Seen } from './drop-line-sql';

/** Most buyers joined and looked at by one statement (3 array elements each). */
export const JOIN_BATCH_MAX = 500;

/** A buyer of a batch: who, their place if they are new, when they came. */
export interface Joining {
  holder: string;
  rank: number;
  joinedAt: string;
}

/** Up to this many buyers, each one's `ahead` is its own count (an index range, as the one-buyer statement's). */
const COUNTED_ALONE = 3;

/**
 * Joins `buyers` (distinct holders) to the line of `productId` and reads it, in one statement; returns each
 * buyer's `Seen` by holder (absent: their row is not in this statement's snapshot). `cutoff`: the windows open
 * after it count as active.
 *
 * `ahead` (waiting buyers before one, by rank then holder) counts the waiting rows that existed before the
 * statement plus the rows it inserts (which its other subqueries cannot see: hence `ins`'s returned rows, union the
 * existing ones). That is what the single-buyer statement would have said to each had the buyers of the batch run
 * one after another in rank order: each would have seen the rows of those before it in rank order (all of them
 * ahead of it), not those after (none of them ahead), and the same line otherwise. `free`, `active` and `lapse`
 * are the same for all; a buyer let through or done has their `ahead` counted as one waiting would (unused).
 * A few buyers: a count each (a new buyer's spans the whole line); more: one pass over the line in order (a sort
 * of the waiting rows and those buyers, each buyer's `ahead` the waiting rows before it), cheaper than a count
 * each from a handful on, and cheap enough that PostgreSQL does not compile it (JIT, ~50 ms here).
 *
 * Rows are inserted in holder order, so two instances' batches wait for each other's new rows in the same order.
 */
export async function joinAndLookAll(
  db: Kysely<Database>,
  productId: string,
  buyers: readonly Joining[],
  cutoff: string,
): Promise<Map<string, Seen>> {
  const out = new Map<string, Seen>();
  if (buyers.length === 0) return out;
  const holders = buyers.map((b) => b.holder);
  const before = (x: string) =>
    sql.raw(`${x}."rank" <= me."rank" and (${x}."rank" < me."rank" or ${x}.holder < me.holder)`);
  const [place, ahead, from] =
    buyers.length <= COUNTED_ALONE
      ? [
          sql``,
          sql`(select count(*) from drop_line d where d.product_id = ${productId} and d.through_at is null
               and d.done_at is null and ${before('d')})
            + (select count(*) from ins i where ${before('i')})`,
          sql`me`,
        ]
      : [
          sql`, line as (
            select holder, "rank", 1 as waits from drop_line
              where product_id = ${productId} and through_at is null and done_at is null
            union all
            select holder, "rank", 1 from ins
            union all
            select holder, "rank", 0 from me where through_at is not null or done_at is not null
          ), place as (
            select holder, coalesce(sum(waits) over (order by "rank", holder
              rows between unbounded preceding and 1 preceding), 0) as ahead
            from line
          )`,
          sql`place.ahead`,
          sql`me join place on place.holder = me.holder`,
        ];
  const { rows } = await sql<{
    holder: string;
    rank: number | string;
    through_at: string | null;
    done_at: string | null;
    free: number | string;
    active: number | string;
    ahead: number | string;
    lapse: string | null;
  }>`
    with b (holder, "rank", joined_at) as (
      select * from unnest(${holders}::text[], ${buyers.map((b) => b.rank)}::float8[],
        ${buyers.map((b) => b.joinedAt)}::text[])
    ), ins as (
      insert into drop_line (product_id, holder, "rank", joined_at, through_at, done_at)
      select ${productId}, holder, "rank", joined_at, null, null from b order by holder
      on conflict (product_id, holder) do nothing
      returning holder, "rank", through_at, done_at
    ), me as (
      select holder, "rank", through_at, done_at from ins
      union all
      select holder, "rank", through_at, done_at from drop_line
        where product_id = ${productId} and holder = any(${holders}::text[])
    )${place}
    select me.holder, me."rank", me.through_at, me.done_at,
      (select coalesce(sum(case when on_hand > reserved then on_hand - reserved else 0 end), 0)
         from stock where product_id = ${productId}) as free,
      (select count(*) from drop_line
         where product_id = ${productId} and through_at > ${cutoff} and done_at is null) as active,
      ${ahead} as ahead,
      (select min(expires_at) from reservations
         where product_id = ${productId} and state = 'held') as lapse
    from ${from}`.execute(db);
  for (const row of rows)
    out.set(row.holder, {
      free: count(row.free),
      room: count(row.free) - count(row.active),
      ahead: count(row.ahead),
      lapse: row.lapse ?? undefined,
      me: { rank: row.rank, through_at: row.through_at, done_at: row.done_at },
    });
  return out;
}

interface Asking extends Joining {
  cutoff: string;
  answer: (seen: Seen | undefined) => void;
  fail: (err: Error) => void;
}

interface Lane {
  queue: Asking[];
  sending: boolean;
  scheduled: boolean;
}

/** Joins and looks, one statement in flight per product: `joinAndLook(productId, holder, rank, now, cutoff)`. */
export function createLineJoins(db: Kysely<Database>) {
  const lanes = new Map<string, Lane>();
  const kick = (productId: string, lane: Lane) => {
    if (lane.sending || lane.scheduled) return;
    if (lane.queue.length === 0) {
      lanes.delete(productId);
      return;
    }
    lane.scheduled = true;
    setImmediate(() => {
      lane.scheduled = false;
      void send(productId, lane);
    });
  };
  const send = async (productId: string, lane: Lane) => {
    if (lane.sending) return;
    lane.sending = true;
    const batch = lane.queue.splice(0, JOIN_BATCH_MAX);
    // One row per holder (the first to ask: their rank and time). The cutoff is the batch's: the latest request's
    // now − ADMIT_MS (ISO times compare as strings). An earlier request of the batch may so count a window that
    // closed just before the latest one came as closed: more room seen, an advance that finds none (it reads the
    // room again under its lock, at its own now).
    const buyers = new Map<string, Joining>();
    let cutoff = '';
    for (const a of batch) {
      if (a.cutoff > cutoff) cutoff = a.cutoff;
      if (!buyers.has(a.holder))
        buyers.set(a.holder, { holder: a.holder, rank: a.rank, joinedAt: a.joinedAt });
    }
    let answers: (() => void)[];
    try {
      const seen = await joinAndLookAll(db, productId, [...buyers.values()], cutoff);
      answers = batch.map((a) => {
        const s = seen.get(a.holder);
        return () => a.answer(s && { ...s, me: { ...s.me } });
      });
    } catch (err) {
      const e = err instanceof Error ? err : new Error(String(err));
      answers = batch.map((a) => () => a.fail(e));
    } finally {
      lane.sending = false;
      kick(productId, lane);
    }
    for (const answer of answers) answer();
  };

  /**
   * Joins `holder` at `rank` (if new) and reads the line, with the buyers asking about `productId` at the same
   * time. Undefined when their row is not in the statement's snapshot.
   */
  return (productId: string, holder: string, rank: number, now: Date, cutoff: string) =>
    new Promise<Seen | undefined>((answer, fail) => {
      let lane = lanes.get(productId);
      if (!lane) lanes.set(productId, (lane = { queue: [], sending: false, scheduled: false }));
      lane.queue.push({ holder, rank, joinedAt: now.toISOString(), cutoff, answer, fail });
      kick(productId, lane);
    });
}
