/**
 * A drop's line (issue 32, docs/decisions/drops.md "Fair when it is busy"): who may try for a piece, in what order.
 *
 * - Everyone who comes before the start is in line at a random place (a random `rank` in [0, 1) drawn when they
 *   join); everyone after, in order of arrival (rank 1 + ms after the start). One place per buyer (the client's
 *   hold key, as the per-client cap groups clients): asking again, early or often, changes nothing.
 * - From the start, buyers are let through in rank order while there are more free pieces than buyers let through
 *   who have not bought yet (`advance`): one is let through for each piece held by someone else's lapsed hold, each
 *   piece the vendor adds, each buyer let through who let `ADMIT_MS` pass without a reserved order.
 * - A buyer let through may order until `through_at + ADMIT_MS`; their order's hold takes them out of the line
 *   (`endTurn`, in the order's transaction). A buyer has one turn: after a hold, or after the window passed,
 *   the line refuses them (the per-buyer limit counts every piece they held, whatever became of it).
 * - A vendor's batch (several products, one drop): a buyer whose order takes them to the batch's per-buyer limit
 *   leaves the line of every product of it (`endTurn`): they are told so on those pages and take no one's turn.
 * - A hold past its deadline is given back when a waiting buyer's read sees it (not at the next release sweep), so
 *   its piece goes to the next in line at once (`releaseLapsed`, the stock module's own release).
 * - Nothing here is a lock on the stock row: the line is read and moved in its own short transactions, under a
 *   per-drop advisory lock on PostgreSQL (SQLite has one writer), and the stock is read without a lock.
 *
 * The statements are ./drop-line-sql.ts's (PostgreSQL's join of the buyers asking at once: ./drop-line-join.ts);
 * this module decides with what they read.
 */
import { randomInt } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DropRules } from '../../core/drop';
import type { Database } from '../store/schema';
import {
  advance,
  inLine,
  join,
  lineRows,
  look,
  piecesOf,
  type Advanced,
  readMe,
  type Row,
  type Seen,
} from './drop-line-sql';
import { createLineJoins } from './drop-line-join';
import { endTurn } from './drop-turn';

/** How long a buyer let through has to place a reserved order (Buy Now, the wallet's message). */
export const ADMIT_MS = 2 * 60_000;

export type LinePlace =
  /** Before the start: in line, place drawn at random among everyone here before the start. */
  | { state: 'before_start'; inLine: number }
  /** Waiting: `ahead` buyers are before them in line. */
  | { state: 'waiting'; ahead: number }
  /** Let through: may order until `until`. */
  | { state: 'through'; until: string }
  /**
   * Had their turn (a reserved order, or the window passed); `elsewhere`: on another product of the vendor's batch
   * (they have its pieces, or had them).
   */
  | { state: 'done'; elsewhere?: true };

export interface LineStats {
  /** Everyone who joined. */
  joined: number;
  waiting: number;
  /** Let through, window open, no reserved order yet. */
  through: number;
  /** Took their turn: a reserved order. */
  held: number;
  /** Let through and let the window pass. */
  lapsed: number;
  /**
   * Took their turn on another product of the vendor's batch, or refused for good by the per-buyer limit (the same
   * wallet from another address): done without a turn here.
   */
  elsewhere: number;
}

export interface DropLine {
  /**
   * Joins `holder` to the drop's line (once), lets buyers through as free pieces allow, and says where `holder`
   * stands now.
   */
  place(productId: string, rules: DropRules, holder: string, now: Date): Promise<LinePlace>;
  /** `place`, with the free pieces when its read saw them (a waiting buyer's). */
  standing(
    productId: string,
    rules: DropRules,
    holder: string,
    now: Date,
  ): Promise<{ place: LinePlace; free?: number }>;
  /** The line's counts now (the vendor's console). */
  stats(productId: string, now: Date): Promise<LineStats>;
  /**
   * `holder` can have no more of the drop of `productIds` (refused by its per-buyer limit: the same wallet from
   * another address): they are done in each of its lines (as `endTurn` does for the rest of a batch).
   */
  closeTurn(holder: string, productIds: readonly string[], at: string): Promise<void>;
  /** Pieces of `productIds` (a vendor's batch) `holder` holds unpaid or bought now. */
  piecesOf(holder: string, productIds: readonly string[]): Promise<number>;
}

/** A buyer's standing from their row, when it needs nothing else: their turn (window open) or done. */
function settled(me: Row, now: Date): LinePlace | undefined {
  if (me.done_at) return me.through_at ? { state: 'done' } : { state: 'done', elsewhere: true };
  if (!me.through_at) return undefined;
  const until = Date.parse(me.through_at) + ADMIT_MS;
  return until > now.getTime()
    ? { state: 'through', until: new Date(until).toISOString() }
    : { state: 'done' };
}

/**
 * The line's store. `releaseLapsed`: gives back the holds of a product past their deadline at `now` (the stock
 * module's release, which also drops the sold-out memory); absent, lapsed holds wait for the release sweep.
 */
export function createDropLine(
  db: Kysely<Database>,
  isPg: boolean,
  releaseLapsed?: (productId: string, now: Date) => Promise<number>,
): DropLine {
  /**
   * One advance at a time per drop on this instance: a caller that comes while one runs waits for the next one
   * (which starts after it, so it sees the caller in line), and every caller that comes meanwhile shares it. So the
   * advisory lock (the fleet's one advance at a time) has at most one waiter per instance, holding one connection,
   * instead of one per request.
   */
  type Run = Promise<Advanced & { at: Date }>;
  const lanes = new Map<string, { running?: Run; queued?: Run }>();
  function advanceSoon(productId: string, now: Date): Run {
    let lane = lanes.get(productId);
    if (!lane) lanes.set(productId, (lane = {}));
    if (lane.queued) return lane.queued;
    const l = lane;
    const before = l.running;
    const run: Run = Promise.resolve(before)
      .catch(() => undefined)
      .then(async () => {
        if (l.queued === run) l.queued = undefined;
        l.running = run;
        const cutoff = new Date(now.getTime() - ADMIT_MS).toISOString();
        return { ...(await advance(db, isPg, productId, now, cutoff)), at: now };
      })
      .finally(() => {
        if (l.running === run) l.running = undefined;
      });
    if (before) l.queued = run;
    else l.running = run;
    return run;
  }

  /** PostgreSQL: the joins and looks of the buyers asking at once, one statement in flight per product. */
  const joinAndLook = createLineJoins(db);

  async function standing(
    productId: string,
    rules: DropRules,
    holder: string,
    now: Date,
  ): Promise<{ place: LinePlace; free?: number }> {
    const started = now.getTime() >= rules.startsAt.getTime();
    // Before the start a random place; after it, the order of arrival (ms after the start, after every early one).
    const rank = started ? 1 + (now.getTime() - rules.startsAt.getTime()) : randomInt(2 ** 47) / 2 ** 47;
    const cutoff = new Date(now.getTime() - ADMIT_MS).toISOString();
    // PostgreSQL after the start: one call joins (or finds) the buyer, reads the line and, when it finds room, lets
    // the next ones through, shared with the buyers of the product asking at the same time (./drop-line-join.ts).
    const joined = isPg && started ? await joinAndLook(productId, holder, rank, now, cutoff) : undefined;
    if (joined) return decide(productId, cutoff, joined, holder, now);
    // Joins once. PostgreSQL: the insert writes nothing when the buyer is in line already (then their row is
    // read), one round trip for a newcomer. SQLite: a read first (any insert statement waits for the group fsync).
    const me =
      (!isPg ? await readMe(db, productId, holder) : undefined) ??
      (await join(db, productId, holder, rank, now)) ??
      (await readMe(db, productId, holder));
    if (!me) throw new Error('drop line: the buyer joined but their row cannot be read');
    if (!started) return { place: { state: 'before_start', inLine: await inLine(db, productId) } };
    // Let through already, or done: their row says so.
    const known = settled(me, now);
    if (known) return { place: known };
    // Waiting: one read says whether anyone may be let through and how many are ahead.
    return decide(productId, cutoff, await look(db, productId, cutoff, me, holder), holder, now);
  }

  /**
   * A waiting buyer's standing from the line's read: let through or done since; still waiting when there is no
   * room; else (room, or a hold past its deadline that comes back now) the next ones are let through (one advance
   * at a time on this instance) and the line is read again.
   */
  async function decide(
    productId: string,
    cutoff: string,
    seen: Seen,
    holder: string,
    now: Date,
  ): Promise<{ place: LinePlace; free?: number }> {
    const fresh = settled(seen.me, now);
    if (fresh) return { place: fresh, free: seen.free };
    const lapsed = releaseLapsed !== undefined && seen.lapse !== undefined && seen.lapse <= now.toISOString();
    if (seen.room <= 0 && !lapsed) return { place: { state: 'waiting', ahead: seen.ahead }, free: seen.free };
    // A hold past its deadline: its piece comes back now (the release is conditional: given back once, however
    // many buyers saw it), then the next in line is let through.
    if (lapsed) await releaseLapsed(productId, now);
    const advanced = await advanceSoon(productId, now);
    // Let through by it: their window opened at its time (no read again).
    if (advanced.through.has(holder))
      return {
        place: { state: 'through', until: new Date(advanced.at.getTime() + ADMIT_MS).toISOString() },
        ...(advanced.free !== undefined ? { free: advanced.free } : {}),
      };
    const again = await look(db, productId, cutoff, seen.me, holder);
    return { place: settled(again.me, now) ?? { state: 'waiting', ahead: again.ahead }, free: again.free };
  }

  return {
    standing,
    closeTurn: (holder, productIds, at) =>
      db.transaction().execute((trx) => endTurn(trx, holder, [], productIds, at)),
    piecesOf: (holder, productIds) => piecesOf(db, holder, productIds),
    place: async (productId, rules, holder, now) => (await standing(productId, rules, holder, now)).place,

    async stats(productId, now) {
      const cutoff = new Date(now.getTime() - ADMIT_MS).toISOString();
      const rows = await lineRows(db, productId);
      const s: LineStats = { joined: 0, waiting: 0, through: 0, held: 0, lapsed: 0, elsewhere: 0 };
      for (const r of rows) {
        // Done without being let through here: their turn was on another product of the batch.
        if (Number(r.rank) >= 0) s.joined++;
        if (r.done_at && !r.through_at) {
          s.elsewhere++;
          continue;
        }
        if (r.done_at) s.held++;
        else if (!r.through_at) s.waiting++;
        else if (r.through_at > cutoff) s.through++;
        else s.lapsed++;
      }
      return s;
    },
  };
}
