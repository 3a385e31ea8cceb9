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
 */
import { randomInt } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { DropRules } from '../../core/drop';
import type { Database } from '../store/schema';
import type { Db } from './lines';
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

/** Free units of a product now (every line of it; no lock). */
async function freeUnits(q: Db, productId: string): Promise<number> {
  const rows = await q
    .selectFrom('stock')
    .select(['on_hand', 'reserved'])
    .where('product_id', '=', productId)
    .execute();
  return rows.reduce((n, r) => n + Math.max(0, Number(r.on_hand) - Number(r.reserved)), 0);
}

const count = (n: unknown) => Number(n ?? 0);

type Row = { rank: number | string; through_at: string | null; done_at: string | null };

/** The line as one read saw it (`lapse`: the first unpaid hold's deadline). */
interface Seen {
  free: number;
  room: number;
  ahead: number;
  lapse: string | undefined;
  me: Row;
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
  /** Buyers let through whose window is open and who have no reserved order yet. */
  const active = async (q: Db, productId: string, cutoff: string) =>
    count(
      (
        await q
          .selectFrom('drop_line')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('product_id', '=', productId)
          .where('through_at', '>', cutoff)
          .where('done_at', 'is', null)
          .executeTakeFirst()
      )?.n,
    );

  /**
   * One read, no lock: the free pieces, the buyers let through with their window open, and how many waiting buyers
   * are ahead of `me` (rank, holder) in line.
   */
  async function look(productId: string, cutoff: string, me: Row, holder: string): Promise<Seen> {
    const rank = Number(me.rank);
    const row = await db
      .selectNoFrom((eb) => [
        eb
          .selectFrom('stock')
          .select(
            sql<number>`coalesce(sum(case when on_hand > reserved then on_hand - reserved else 0 end), 0)`.as(
              'free',
            ),
          )
          .where('product_id', '=', productId)
          .as('free'),
        eb
          .selectFrom('drop_line')
          .select((e) => e.fn.countAll<number>().as('n'))
          .where('product_id', '=', productId)
          .where('through_at', '>', cutoff)
          .where('done_at', 'is', null)
          .as('active'),
        eb
          .selectFrom('drop_line')
          .select((e) => e.fn.countAll<number>().as('n'))
          .where('product_id', '=', productId)
          .where('through_at', 'is', null)
          .where('done_at', 'is', null)
          .where((e) => e.or([e('rank', '<', rank), e.and([e('rank', '=', rank), e('holder', '<', holder)])]))
          .as('ahead'),
        // The first unpaid hold's deadline: past it, the piece is given back now (not at the next sweep).
        eb
          .selectFrom('reservations')
          .select((e) => e.fn.min<string>('expires_at').as('next'))
          .where('product_id', '=', productId)
          .where('state', '=', 'held')
          .as('lapse'),
        // Their own row again: another request may have let them through since it was read.
        eb
          .selectFrom('drop_line')
          .select('through_at')
          .where('product_id', '=', productId)
          .where('holder', '=', holder)
          .as('through_at'),
        eb
          .selectFrom('drop_line')
          .select('done_at')
          .where('product_id', '=', productId)
          .where('holder', '=', holder)
          .as('done_at'),
      ])
      .executeTakeFirstOrThrow();
    return {
      free: count(row.free),
      room: count(row.free) - count(row.active),
      ahead: count(row.ahead),
      lapse: row.lapse ?? undefined,
      me: { rank, through_at: row.through_at ?? null, done_at: row.done_at ?? null },
    };
  }

  /** Lets the next buyers through while free pieces outnumber the buyers let through (after the start). */
  async function advance(productId: string, now: Date): Promise<void> {
    const cutoff = new Date(now.getTime() - ADMIT_MS).toISOString();
    await db.transaction().execute(async (trx) => {
      if (isPg) {
        await sql`select pg_advisory_xact_lock(hashtextextended(${`line:${productId}`}::text, 0))`.execute(
          trx,
        );
        // After the lock, one statement (its snapshot is taken after the lock, as the reads below would be): the
        // room and the next buyers in rank order, let through. Two round trips fewer while the fleet waits.
        await sql`
          update drop_line set through_at = ${now.toISOString()}
          where product_id = ${productId} and holder in (
            select holder from drop_line
            where product_id = ${productId} and through_at is null and done_at is null
            order by "rank", holder
            limit greatest(0,
              (select coalesce(sum(case when on_hand > reserved then on_hand - reserved else 0 end), 0)
                 from stock where product_id = ${productId})
              - (select count(*) from drop_line
                   where product_id = ${productId} and through_at > ${cutoff} and done_at is null)))`.execute(
          trx,
        );
        return;
      }
      const room = (await freeUnits(trx, productId)) - (await active(trx, productId, cutoff));
      if (room <= 0) return;
      const next = trx
        .selectFrom('drop_line')
        .select('holder')
        .where('product_id', '=', productId)
        .where('through_at', 'is', null)
        .where('done_at', 'is', null)
        .orderBy('rank')
        .orderBy('holder')
        .limit(room);
      await trx
        .updateTable('drop_line')
        .set({ through_at: now.toISOString() })
        .where('product_id', '=', productId)
        .where('holder', 'in', next)
        .execute();
    });
  }

  /**
   * One advance at a time per drop on this instance: a caller that comes while one runs waits for the next one
   * (which starts after it, so it sees the caller in line), and every caller that comes meanwhile shares it. So the
   * advisory lock (the fleet's one advance at a time) has at most one waiter per instance, holding one connection,
   * instead of one per request.
   */
  const lanes = new Map<string, { running?: Promise<void>; queued?: Promise<void> }>();
  function advanceSoon(productId: string, now: Date): Promise<void> {
    let lane = lanes.get(productId);
    if (!lane) lanes.set(productId, (lane = {}));
    if (lane.queued) return lane.queued;
    const l = lane;
    const before = l.running;
    const run: Promise<void> = Promise.resolve(before)
      .catch(() => undefined)
      .then(() => {
        if (l.queued === run) l.queued = undefined;
        l.running = run;
        return advance(productId, now);
      })
      .finally(() => {
        if (l.running === run) l.running = undefined;
      });
    if (before) l.queued = run;
    else l.running = run;
    return run;
  }

  const readMe = (productId: string, holder: string) =>
    db
      .selectFrom('drop_line')
      .select(['rank', 'through_at', 'done_at'])
      .where('product_id', '=', productId)
      .where('holder', '=', holder)
      .executeTakeFirst();

  /**
   * PostgreSQL, after the start: the join and the look in one statement (the insert writes nothing when the buyer
   * is in line already). Undefined when the buyer's row is not in this statement's snapshot (their own join,
   * running at the same moment in another request, committed after it began).
   */
  async function joinAndLook(
    productId: string,
    holder: string,
    rank: number,
    now: Date,
    cutoff: string,
  ): Promise<Seen | undefined> {
    const { rows } = await sql<{
      rank: number | string;
      through_at: string | null;
      done_at: string | null;
      free: number | string;
      active: number | string;
      ahead: number | string;
      lapse: string | null;
    }>`
      with ins as (
        insert into drop_line (product_id, holder, "rank", joined_at, through_at, done_at)
        values (${productId}, ${holder}, ${rank}, ${now.toISOString()}, null, null)
        on conflict (product_id, holder) do nothing
        returning "rank", through_at, done_at
      ), me as (
        select "rank", through_at, done_at from ins
        union all
        select "rank", through_at, done_at from drop_line where product_id = ${productId} and holder = ${holder}
      )
      select me."rank", me.through_at, me.done_at,
        (select coalesce(sum(case when on_hand > reserved then on_hand - reserved else 0 end), 0)
           from stock where product_id = ${productId}) as free,
        (select count(*) from drop_line
           where product_id = ${productId} and through_at > ${cutoff} and done_at is null) as active,
        (select count(*) from drop_line d
           where d.product_id = ${productId} and d.through_at is null and d.done_at is null
             and (d."rank" < me."rank" or (d."rank" = me."rank" and d.holder < ${holder}))) as ahead,
        (select min(expires_at) from reservations
           where product_id = ${productId} and state = 'held') as lapse
      from me limit 1`.execute(db);
    const row = rows[0];
    if (!row) return undefined;
    return {
      free: count(row.free),
      room: count(row.free) - count(row.active),
      ahead: count(row.ahead),
      lapse: row.lapse ?? undefined,
      me: { rank: row.rank, through_at: row.through_at, done_at: row.done_at },
    };
  }

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
    // PostgreSQL after the start: one statement joins (or finds) the buyer and reads the line.
    const joined = isPg && started ? await joinAndLook(productId, holder, rank, now, cutoff) : undefined;
    if (joined) return decide(productId, cutoff, joined, holder, now);
    // Joins once. PostgreSQL: the insert writes nothing when the buyer is in line already (then their row is
    // read), one round trip for a newcomer. SQLite: a read first (any insert statement waits for the group fsync).
    const me =
      (!isPg ? await readMe(productId, holder) : undefined) ??
      (await db
        .insertInto('drop_line')
        .values({
          product_id: productId,
          holder,
          rank,
          joined_at: now.toISOString(),
          through_at: null,
          done_at: null,
        })
        .onConflict((oc) => oc.columns(['product_id', 'holder']).doNothing())
        .returning(['rank', 'through_at', 'done_at'])
        .executeTakeFirst()) ??
      (await readMe(productId, holder));
    if (!me) throw new Error('drop line: the buyer joined but their row cannot be read');
    if (!started) {
      const n = await db
        .selectFrom('drop_line')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('product_id', '=', productId)
        .executeTakeFirst();
      return { place: { state: 'before_start', inLine: count(n?.n) } };
    }
    // Let through already, or done: their row says so.
    const known = settled(me, now);
    if (known) return { place: known };
    // Waiting: one read says whether anyone may be let through and how many are ahead.
    return decide(productId, cutoff, await look(productId, cutoff, me, holder), holder, now);
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
    await advanceSoon(productId, now);
    const again = await look(productId, cutoff, seen.me, holder);
    return { place: settled(again.me, now) ?? { state: 'waiting', ahead: again.ahead }, free: again.free };
  }

  return {
    standing,
    closeTurn: (holder, productIds, at) =>
      db.transaction().execute((trx) => endTurn(trx, holder, [], productIds, at)),
    async piecesOf(holder, productIds) {
      const row = await db
        .selectFrom('reservations')
        .select((eb) => eb.fn.sum<number>('quantity').as('units'))
        .where('holder', '=', holder)
        .where('state', 'in', ['held', 'sold'])
        .where('product_id', 'in', productIds)
        .executeTakeFirst();
      return count(row?.units);
    },
    place: async (productId, rules, holder, now) => (await standing(productId, rules, holder, now)).place,

    async stats(productId, now) {
      const cutoff = new Date(now.getTime() - ADMIT_MS).toISOString();
      const rows = await db
        .selectFrom('drop_line')
        .select(['rank', 'through_at', 'done_at'])
        .where('product_id', '=', productId)
        .execute();
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
