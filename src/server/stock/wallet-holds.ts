/**
 * A wallet hold needs the money (docs/decisions/holds.md): the one rule, in one place, that the order's hold (and
 * later the drop's) go through. A hold names the paying wallet that proved, by signature, that it is theirs
 * (`reservations.payer`); the sum of the amounts of that wallet's open holds never exceeds its $CLAIM balance:
 *
 * - `fitsBalance`, in the reservation's transaction: after the wallet's own lock (PostgreSQL: a transaction-scoped
 *   advisory lock on its address, so a concurrent burst is judged one order at a time; SQLite has one writer),
 *   whether this order's amount fits beside the wallet's other open holds (read with the other rules' reads,
 *   ./hold-facts.ts).
 * - `releaseOverBalance`, on the expiry timer: every wallet that holds is read again (the balance reader caches
 *   ~10 s), and the newest holds of a wallet whose balance no longer covers them are released (actor `no-funds`),
 *   so moving the tokens away gives the pieces back within one timer period.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../store/schema';
import { releaseHeld } from './hold-release';

type Db = Kysely<Database> | Transaction<Database>;

/** The $CLAIM a wallet holds now, in base units (undefined: could not be read; then nothing is held on it). */
export type BalanceOf = (wallet: string) => Promise<bigint | undefined>;

/** One of a wallet's open holds: its order, the order's amount, when it was made. */
export interface OpenHold {
  orderId: string;
  amount: bigint;
  createdAt: string;
}

/** The reservation rows of a wallet's open holds (oldest first), one per order (an order may hold several lines). */
export function openHoldsFrom(
  rows: readonly { order_id: string; amount_base_units: string | null; created_at: string }[],
): OpenHold[] {
  const byOrder = new Map<string, OpenHold>();
  for (const r of rows)
    if (!byOrder.has(r.order_id))
      byOrder.set(r.order_id, {
        orderId: r.order_id,
        amount: BigInt(r.amount_base_units ?? '0'),
        createdAt: r.created_at,
      });
  return [...byOrder.values()];
}

/** The wallet's open holds (held, not lapsed), oldest first, with the amount of each order. */
export async function openHoldsOf(q: Db, wallet: string, at: string): Promise<OpenHold[]> {
  const rows = await q
    .selectFrom('reservations as r')
    .innerJoin('orders as o', 'o.id', 'r.order_id')
    .select(['r.order_id', 'o.amount_base_units', 'r.created_at'])
    .where('r.payer', '=', wallet)
    .where('r.state', '=', 'held')
    .where('r.expires_at', '>', at)
    .orderBy('r.created_at')
    .orderBy('r.order_id')
    .execute();
  return openHoldsFrom(rows);
}

/**
 * The balance rule (pure): whether an order of `amount` fits within `balance` beside the wallet's other open holds
 * (`holds`, read in the reservation's transaction after the wallet's lock, ./hold-facts.ts: a concurrent burst is
 * judged one order at a time on PostgreSQL; SQLite has one writer). `orderId`'s own holds are not counted.
 */
export function fitsBalance(
  holds: readonly OpenHold[],
  balance: bigint,
  amount: bigint,
  orderId: string,
): boolean {
  if (amount > balance) return false;
  let n = 0n;
  for (const h of holds) if (h.orderId !== orderId) n += h.amount;
  return n + amount <= balance;
}

/** How many held wallets one check reads at most (the next timer period takes the rest). */
const CHECK_LIMIT = 200;

/**
 * Every wallet that holds is read again; a wallet whose balance no longer covers its open holds keeps its oldest
 * holds that fit and loses the rest (released one reservation at a time, actor `no-funds`). A wallet whose
 * balance cannot be read now keeps its holds (each lapses on its own deadline, HOLD_MS). Returns the units released.
 */
export async function releaseOverBalance(
  db: Kysely<Database>,
  at: string,
  balanceOf: BalanceOf,
): Promise<number> {
  const wallets = await db
    .selectFrom('reservations')
    .select('payer')
    .distinct()
    .where('state', '=', 'held')
    .where('payer', 'is not', null)
    .where('expires_at', '>', at)
    .limit(CHECK_LIMIT)
    .execute();
  let released = 0;
  // Every wallet asked at once: the reader batches them (one getMultipleAccounts per 100 wallets).
  const payers = wallets.flatMap(({ payer }) => (payer ? [payer] : []));
  const balances = await Promise.all(payers.map((p) => balanceOf(p).catch(() => undefined)));
  for (const [i, payer] of payers.entries()) {
    const balance = balances[i];
    if (balance === undefined) continue;
    let covered = 0n;
    const over: string[] = [];
    for (const h of await openHoldsOf(db, payer, at)) {
      if (covered + h.amount <= balance) covered += h.amount;
      else over.push(h.orderId);
    }
    for (const orderId of over) {
      const rows = await db
        .selectFrom('reservations')
        .select(['order_id', 'product_id', 'variant_id', 'quantity'])
        .where('order_id', '=', orderId)
        .where('state', '=', 'held')
        .execute();
      // One short transaction per reservation, as the other releases: never a deadlock with a payment's sale.
      for (const r of rows)
        released += await db.transaction().execute((trx) => releaseHeld(trx, r, at, 'no-funds'));
    }
  }
  return released;
}
