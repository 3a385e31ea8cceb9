/**
 * What a wallet order's hold rules read in the order's transaction, after the buyer's locks: the wallet's open holds
 * (the balance rule, ./wallet-holds.ts `fitsBalance`), the buyer's units of each drop the order asks for (a drop's
 * per-buyer limit, ./holds.ts `judgeBuyerLimit`) and the client's unpaid units (the per-client cap, ./holds.ts
 * `judgeCap`). The rules are pure functions of these facts, in their own modules; only the reading is here.
 *
 * PostgreSQL: the wallet's and the client's advisory locks in one statement (./xact-locks.ts `lockBuyer`), then
 * every fact in ONE read statement. The read is its own statement after the locks: under READ COMMITTED a
 * statement's snapshot is taken when it starts, so it sees every hold committed by whoever held the locks before.
 * On a 2-core machine in a drop each round trip of the order's transaction waits its turn for a core: one read,
 * not three or four. SQLite (one writer): the same reads one after another.
 */
import { sql, type RawBuilder, type Transaction } from 'kysely';
import type { Database } from '../store/schema';
import { BUYER_STATES, buyerUnitsOf, heldBy, type BuyerUnits } from './holds';
import { openHoldsFrom, openHoldsOf, type OpenHold } from './wallet-holds';
import { lockBuyer } from './xact-locks';

/** What the order asks to hold, as the rules need it. */
export interface HoldAsk {
  /** The paying wallet (its lock, its open holds; with `holder`, the buyer of a drop). */
  wallet: string;
  /** The client (its lock; a drop's buyer, the per-client cap): when a drop's limit or the cap counts. */
  holder: string | undefined;
  /** This order (its own holds are not counted). */
  orderId: string;
  at: string;
  /** Each drop the order asks for: its products (one, or a vendor's batch). */
  drops: readonly (readonly string[])[];
  /** Whether the per-client cap counts (the client's unpaid units are read; needs `holder`). */
  cap: boolean;
}

export interface HoldFacts {
  /** The wallet's open holds, oldest first (this order's too, should it have any). */
  walletHolds: OpenHold[];
  /** Per drop of `HoldAsk.drops`, in its order: the buyer's units of it. */
  drops: BuyerUnits[];
  /** The client's unpaid units (other than this order's) and when the first comes back; absent: not asked. */
  cap: { units: number; nextRelease: string | undefined } | undefined;
}

const num = (v: unknown) => Number(v ?? 0);

/**
 * In the order's transaction, before anything locks a stock row: the buyer's locks (PostgreSQL; held to the commit,
 * wallet first), then the facts. The read starts after the lock statement has returned.
 */
export async function readHoldFacts(
  trx: Transaction<Database>,
  isPg: boolean,
  ask: HoldAsk,
): Promise<HoldFacts> {
  const { wallet, holder, orderId, at } = ask;
  const capOf = ask.cap ? holder : undefined;
  if (!isPg) {
    const walletHolds = await openHoldsOf(trx, wallet, at);
    const drops: BuyerUnits[] = [];
    for (const ids of ask.drops) drops.push(await buyerUnitsOf(trx, { holder, payer: wallet }, ids));
    return {
      walletHolds,
      drops,
      cap: capOf !== undefined ? await heldBy(trx, capOf, at, orderId) : undefined,
    };
  }
  await lockBuyer(trx, wallet, holder);
  const read = holdFactsRead(ask);
  const { rows } = await read.query.execute(trx);
  return read.parse(rows[0]!);
}

/** The row of the facts' one read (PostgreSQL). */
export interface HoldFactsRow {
  wallet_holds: { order_id: string; amount_base_units: string | null; created_at: string }[];
  drops: { active: number | string; spent: number | string }[];
  cap: { units: number | string; next: string | null } | null;
}

/**
 * PostgreSQL: the facts' ONE read, unrun (a select of one row), and how its row reads as facts. Run after the
 * buyer's locks, by `readHoldFacts`, or as the last part of a statement that starts after them (the order's insert
 * carries it: ../orders/rows.ts `insertOrder`), so its snapshot sees every hold committed by whoever held the locks.
 */
export function holdFactsRead(ask: HoldAsk): {
  query: RawBuilder<HoldFactsRow>;
  parse(row: HoldFactsRow): HoldFacts;
} {
  const { wallet, holder, orderId, at } = ask;
  const capOf = ask.cap ? holder : undefined;
  const states = sql.join(BUYER_STATES.map((s) => sql`${s}::text`));
  const whose = holder
    ? sql`(holder = ${holder}::text or payer = ${wallet}::text)`
    : sql`payer = ${wallet}::text`;
  // One subquery per drop: the same rows `buyerUnitsOf` sums, split into active (held, sold) and spent.
  const drops = ask.drops.map(
    (ids) => sql`(select json_build_object(
        'active', coalesce(sum(quantity) filter (where state in ('held', 'sold')), 0),
        'spent', coalesce(sum(quantity) filter (where state in ('released', 'oversold')), 0))
      from reservations
      where product_id in (${sql.join(ids.map((id) => sql`${id}::text`))}) and state in (${states})
        and ${whose})`,
  );
  const query = sql<HoldFactsRow>`
    select
      (select coalesce(json_agg(json_build_object('order_id', h.order_id, 'amount_base_units', h.amount_base_units,
          'created_at', h.created_at) order by h.created_at, h.order_id), '[]'::json)
        from (select r.order_id, o.amount_base_units, r.created_at
          from reservations r join orders o on o.id = r.order_id
          where r.payer = ${wallet}::text and r.state = 'held' and r.expires_at > ${at}::text) h) as wallet_holds,
      json_build_array(${drops.length > 0 ? sql.join(drops) : sql``}) as drops,
      ${
        capOf !== undefined
          ? sql`(select json_build_object('units', coalesce(sum(quantity), 0), 'next', min(expires_at))
        from reservations
        where holder = ${capOf}::text and state = 'held' and expires_at > ${at}::text
          and order_id <> ${orderId}::text)`
          : sql`null::json`
      } as cap`;
  return {
    query,
    parse: (row) => ({
      walletHolds: openHoldsFrom(row.wallet_holds),
      drops: row.drops.map((d) => ({ active: num(d.active), spent: num(d.spent) })),
      cap: row.cap ? { units: num(row.cap.units), nextRelease: row.cap.next ?? undefined } : undefined,
    }),
  };
}
