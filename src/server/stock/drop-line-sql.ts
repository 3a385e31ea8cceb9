/**
 * The statements of a drop's line (./drop-line.ts has its rules and the buyer's standing): the join, the reads of
 * the line and the advance that lets the next buyers through (the end of a buyer's turn: ./drop-turn.ts).
 * PostgreSQL gets one statement where SQLite (one writer, no round trips) reads step by step.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema';
import type { Db } from './lines';

/** Free units of a product now (every line of it; no lock). */
async function freeUnits(q: Db, productId: string): Promise<number> {
  const rows = await q
    .selectFrom('stock')
    .select(['on_hand', 'reserved'])
    .where('product_id', '=', productId)
    .execute();
  return rows.reduce((n, r) => n + Math.max(0, Number(r.on_hand) - Number(r.reserved)), 0);
}

export const count = (n: unknown) => Number(n ?? 0);

export type Row = { rank: number | string; through_at: string | null; done_at: string | null };

/** The line as one read saw it (`lapse`: the first unpaid hold's deadline). */
export interface Seen {
  free: number;
  room: number;
  ahead: number;
  lapse: string | undefined;
  me: Row;
}

/** Buyers let through whose window is open (`through_at` after `cutoff`) and who have no reserved order yet. */
async function active(q: Db, productId: string, cutoff: string): Promise<number> {
  return count(
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
}

/**
 * One read, no lock: the free pieces, the buyers let through with their window open, and how many waiting buyers
 * are ahead of `me` (rank, holder) in line.
 */
export async function look(
  db: Kysely<Database>,
  productId: string,
  cutoff: string,
  me: Row,
  holder: string,
): Promise<Seen> {
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

/** Who an advance let through (their window opens at its `now`), and the free pieces it counted (when known). */
export interface Advanced {
  through: ReadonlySet<string>;
  free?: number;
}

/**
 * Lets the next buyers in rank order through while the free pieces outnumber the buyers let through whose window
 * is open (`through_at` after `cutoff`) and who have not held one. PostgreSQL: one round trip, the function of
 * migration 0031 (the drop's advisory lock, then a fresh snapshot: the fleet's one advance at a time, held for
 * PostgreSQL's own time). SQLite (one writer): the reads and the update in a transaction.
 */
export async function advance(
  db: Kysely<Database>,
  isPg: boolean,
  productId: string,
  now: Date,
  cutoff: string,
): Promise<Advanced> {
  if (isPg) {
    const { rows } = await sql<{ let_through: string; free_units: string | number }>`
      select let_through, free_units from drop_line_advance(${productId}, ${now.toISOString()}, ${cutoff})`.execute(
      db,
    );
    const through = new Set(rows.map((r) => r.let_through));
    return rows[0] ? { through, free: count(rows[0].free_units) } : { through };
  }
  return db.transaction().execute(async (trx) => {
    const free = await freeUnits(trx, productId);
    const room = free - (await active(trx, productId, cutoff));
    if (room <= 0) return { through: new Set<string>(), free };
    const next = await trx
      .selectFrom('drop_line')
      .select('holder')
      .where('product_id', '=', productId)
      .where('through_at', 'is', null)
      .where('done_at', 'is', null)
      .orderBy('rank')
      .orderBy('holder')
      .limit(room)
      .execute();
    if (next.length > 0)
      await trx
        .updateTable('drop_line')
        .set({ through_at: now.toISOString() })
        .where('product_id', '=', productId)
        .where(
          'holder',
          'in',
          next.map((r) => r.holder),
        )
        .execute();
    return { through: new Set(next.map((r) => r.holder)), free };
  });
}

/** `holder`'s row in the line of `productId`, if they joined. */
export const readMe = (db: Kysely<Database>, productId: string, holder: string) =>
  db
    .selectFrom('drop_line')
    .select(['rank', 'through_at', 'done_at'])
    .where('product_id', '=', productId)
    .where('holder', '=', holder)
    .executeTakeFirst();

/** Joins `holder` at `rank`: their new row, or undefined when they are in line already (nothing written). */
export const join = (db: Kysely<Database>, productId: string, holder: string, rank: number, now: Date) =>
  db
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
    .executeTakeFirst();

/** Everyone in the line of `productId` (before the start: the place drawn is among them). */
export async function inLine(db: Kysely<Database>, productId: string): Promise<number> {
  const n = await db
    .selectFrom('drop_line')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('product_id', '=', productId)
    .executeTakeFirst();
  return count(n?.n);
}

/** Pieces of `productIds` `holder` holds unpaid or bought now. */
export async function piecesOf(
  db: Kysely<Database>,
  holder: string,
  productIds: readonly string[],
): Promise<number> {
  const row = await db
    .selectFrom('reservations')
    .select((eb) => eb.fn.sum<number>('quantity').as('units'))
    .where('holder', '=', holder)
    .where('state', 'in', ['held', 'sold'])
    .where('product_id', 'in', productIds)
    .executeTakeFirst();
  return count(row?.units);
}

/** The rows of the line of `productId` (the vendor's console counts them). */
export const lineRows = (db: Kysely<Database>, productId: string) =>
  db
    .selectFrom('drop_line')
    .select(['rank', 'through_at', 'done_at'])
    .where('product_id', '=', productId)
    .execute();
