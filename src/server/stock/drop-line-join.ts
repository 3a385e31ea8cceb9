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
 * - The statement (one function call, migration 0033) inserts every new buyer's row (their own rank and joined_at;
 *   nothing for one in line already), lets the next buyers through when it finds room (the advance, under the
 *   drop's lock), and returns every buyer's row with the line's counts. The same holder twice in a batch (two tabs)
 *   is one row, with the rank of the first to ask, and both requests get it.
 * - Each request then decides on its own (./drop-line.ts `decide`): only the reading is shared; a buyer the call let
 *   through reads so in their row. A buyer whose row the call does not return gets undefined and joins the slow way.
 *   A failed statement fails every request of its batch.
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

/**
 * Joins `buyers` (distinct holders) to the line of `productId` and reads it, in one call (`drop_line_join`,
 * migration 0033); returns each buyer's `Seen` by holder. When the read finds more free pieces than buyers let
 * through with their window open (`cutoff`: windows opened after it count) and no unpaid hold past its deadline, the
 * same call lets the next buyers in rank order through at `now` (`drop_line_advance`, under the drop's lock) and
 * reads again: a buyer it let through finds `through_at` set in their row (the caller's `decide` needs no advance of
 * its own). `ahead`: the waiting buyers before one in rank order (then holder), read after the batch's rows are in.
 * Rows are inserted in holder order, so two instances' batches wait for each other's new rows in the same order.
 */
export async function joinAndLookAll(
  db: Kysely<Database>,
  productId: string,
  buyers: readonly Joining[],
  now: string,
  cutoff: string,
): Promise<Map<string, Seen>> {
  const out = new Map<string, Seen>();
  if (buyers.length === 0) return out;
  const { rows } = await sql<{
    j_holder: string;
    j_rank: number | string;
    j_through_at: string | null;
    j_done_at: string | null;
    j_free: number | string;
    j_active: number | string;
    j_ahead: number | string;
    j_lapse: string | null;
  }>`
    select * from drop_line_join(${productId}, ${buyers.map((b) => b.holder)}::text[],
      ${buyers.map((b) => b.rank)}::float8[], ${buyers.map((b) => b.joinedAt)}::text[], ${now}, ${cutoff})`.execute(
    db,
  );
  for (const row of rows)
    out.set(row.j_holder, {
      free: count(row.j_free),
      room: count(row.j_free) - count(row.j_active),
      ahead: count(row.j_ahead),
      lapse: row.j_lapse ?? undefined,
      me: { rank: row.j_rank, through_at: row.j_through_at, done_at: row.j_done_at },
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
    // now − ADMIT_MS (ISO times compare as strings), so a window that closed before the latest one came counts as
    // closed. A buyer the call lets through has their window from the batch's first request's now, as the advance
    // that request would have made (a batch spans milliseconds).
    const buyers = new Map<string, Joining>();
    let cutoff = '';
    const now = batch[0]!.joinedAt;
    for (const a of batch) {
      if (a.cutoff > cutoff) cutoff = a.cutoff;
      if (!buyers.has(a.holder))
        buyers.set(a.holder, { holder: a.holder, rank: a.rank, joinedAt: a.joinedAt });
    }
    let answers: (() => void)[];
    try {
      const seen = await joinAndLookAll(db, productId, [...buyers.values()], now, cutoff);
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
