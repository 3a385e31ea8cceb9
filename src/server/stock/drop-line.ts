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
 *   (`leaveLine`, in the order's transaction). A buyer has one turn: after a hold, or after the window passed,
 *   the line refuses them (the per-buyer limit counts what they hold or bought).
 * - Nothing here is a lock on the stock row: the line is read and moved in its own short transactions, under a
 *   per-drop advisory lock on PostgreSQL (SQLite has one writer), and the stock is read without a lock.
 */
import { randomInt } from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import { DomainError } from '../../core/errors';
import type { DropRules } from '../../core/drop';
import type { Database } from '../store/schema';
import type { Db } from './lines';

/** How long a buyer let through has to place a reserved order (Buy Now, the wallet's message). */
export const ADMIT_MS = 2 * 60_000;

export type LinePlace =
  /** Before the start: in line, place drawn at random among everyone here before the start. */
  | { state: 'before_start'; inLine: number }
  /** Waiting: `ahead` buyers are before them in line. */
  | { state: 'waiting'; ahead: number }
  /** Let through: may order until `until`. */
  | { state: 'through'; until: string }
  /** Had their turn (a reserved order, or the window passed). */
  | { state: 'done' };

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
}

export interface DropLine {
  /**
   * Joins `holder` to the drop's line (once), lets buyers through as free pieces allow, and says where `holder`
   * stands now.
   */
  place(productId: string, rules: DropRules, holder: string, now: Date): Promise<LinePlace>;
  /** The line's counts now (the vendor's console). */
  stats(productId: string, now: Date): Promise<LineStats>;
}

/** In the order's transaction, when its hold is made: `holder` had their turn. */
export async function leaveLine(
  trx: Transaction<Database>,
  productId: string,
  holder: string,
  at: string,
): Promise<void> {
  await trx
    .updateTable('drop_line')
    .set({ done_at: at })
    .where('product_id', '=', productId)
    .where('holder', '=', holder)
    .where('done_at', 'is', null)
    .execute();
}

/** The refusal of an order by a buyer not let through (409 `drop_in_line` / `drop_turn_passed`). */
export function lineRefusal(place: LinePlace): DomainError | undefined {
  switch (place.state) {
    case 'through':
      return undefined;
    case 'before_start':
      return new DomainError('conflict', 'drop_in_line', 'You are in line. Buying opens at the start.', {
        field: 'items',
      });
    case 'waiting':
      return new DomainError(
        'conflict',
        'drop_in_line',
        `You are in line: ${place.ahead} ${place.ahead === 1 ? 'buyer is' : 'buyers are'} ahead of you. You are let through as pieces are reserved or come back; keep this page open.`,
        { field: 'items' },
      );
    case 'done':
      return new DomainError(
        'conflict',
        'drop_turn_passed',
        'You have had your turn in this drop: each buyer is let through once.',
        { field: 'items' },
      );
  }
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

export function createDropLine(db: Kysely<Database>, isPg: boolean): DropLine {
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

  /** Lets the next buyers through while free pieces outnumber the buyers let through (after the start). */
  async function advance(productId: string, now: Date): Promise<void> {
    const cutoff = new Date(now.getTime() - ADMIT_MS).toISOString();
    // Cheap first look, without a transaction: most calls let nobody through.
    const free = await freeUnits(db, productId);
    if (free <= (await active(db, productId, cutoff))) return;
    await db.transaction().execute(async (trx) => {
      if (isPg)
        await sql`select pg_advisory_xact_lock(hashtextextended(${`line:${productId}`}::text, 0))`.execute(
          trx,
        );
      const room = (await freeUnits(trx, productId)) - (await active(trx, productId, cutoff));
      if (room <= 0) return;
      const next = trx
        .selectFrom('drop_line')
        .select('holder')
        .where('product_id', '=', productId)
        .where('through_at', 'is', null)
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

  return {
    async place(productId, rules, holder, now) {
      const started = now.getTime() >= rules.startsAt.getTime();
      // Before the start a random place; after it, the order of arrival (ms after the start, after every early one).
      const rank = started ? 1 + (now.getTime() - rules.startsAt.getTime()) : randomInt(2 ** 47) / 2 ** 47;
      // Joins once (a read first: a buyer asking again writes nothing).
      const known = await db
        .selectFrom('drop_line')
        .select('holder')
        .where('product_id', '=', productId)
        .where('holder', '=', holder)
        .executeTakeFirst();
      if (!known)
        await db
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
          .execute();
      if (!started) {
        const n = await db
          .selectFrom('drop_line')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('product_id', '=', productId)
          .executeTakeFirst();
        return { state: 'before_start', inLine: count(n?.n) };
      }
      await advance(productId, now);
      const me = await db
        .selectFrom('drop_line')
        .select(['rank', 'through_at', 'done_at'])
        .where('product_id', '=', productId)
        .where('holder', '=', holder)
        .executeTakeFirstOrThrow();
      if (me.done_at) return { state: 'done' };
      if (me.through_at) {
        const until = Date.parse(me.through_at) + ADMIT_MS;
        return until > now.getTime()
          ? { state: 'through', until: new Date(until).toISOString() }
          : { state: 'done' };
      }
      const ahead = await db
        .selectFrom('drop_line')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('product_id', '=', productId)
        .where('through_at', 'is', null)
        .where((eb) =>
          eb.or([
            eb('rank', '<', Number(me.rank)),
            eb.and([eb('rank', '=', Number(me.rank)), eb('holder', '<', holder)]),
          ]),
        )
        .executeTakeFirst();
      return { state: 'waiting', ahead: count(ahead?.n) };
    },

    async stats(productId, now) {
      const cutoff = new Date(now.getTime() - ADMIT_MS).toISOString();
      const rows = await db
        .selectFrom('drop_line')
        .select(['through_at', 'done_at'])
        .where('product_id', '=', productId)
        .execute();
      const s: LineStats = { joined: rows.length, waiting: 0, through: 0, held: 0, lapsed: 0 };
      for (const r of rows) {
        if (r.done_at) s.held++;
        else if (!r.through_at) s.waiting++;
        else if (r.through_at > cutoff) s.through++;
        else s.lapsed++;
      }
      return s;
    },
  };
}
