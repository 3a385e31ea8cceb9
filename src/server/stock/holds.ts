/**
 * Holds (reservations in state `held`) as the checkout sees them: who holds how much (the per-client cap), what
 * each line has held and when its first hold comes back ("Reserved" on the pages), and the record of an order that
 * never held (a QR record paid before its details) so the sale rule can judge it.
 */
import { createHmac } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import { holdLimitRefusal, type StockRequest } from '../../core/stock';
import type { Database } from '../store/schema';
import { xactLock } from './xact-locks';

type Db = Kysely<Database> | Transaction<Database>;

/** A client's hold key: a keyed hash of its address (the address itself is never stored). */
export function holderOf(secret: string, clientAddress: string): string {
  return createHmac('sha256', secret).update(`holder:${clientAddress}`).digest('hex').slice(0, 32);
}

/** Units the client holds unpaid now (other than `exceptOrderId`'s), and when the first of them comes back. */
export async function heldBy(
  q: Db,
  holder: string,
  at: string,
  exceptOrderId?: string,
): Promise<{ units: number; nextRelease: string | undefined }> {
  let sel = q
    .selectFrom('reservations')
    .select((eb) => [eb.fn.sum<number>('quantity').as('units'), eb.fn.min<string>('expires_at').as('next')])
    .where('holder', '=', holder)
    .where('state', '=', 'held')
    .where('expires_at', '>', at);
  if (exceptOrderId) sel = sel.where('order_id', '!=', exceptOrderId);
  const row = await sel.executeTakeFirst();
  return { units: Number(row?.units ?? 0), nextRelease: row?.next ?? undefined };
}

/**
 * The per-client cap, inside the reservation's transaction: throws the refusal (DomainError rate_limited, 429)
 * when `holder` already holds `limit` units unpaid. On PostgreSQL the holder's own lock (a transaction-scoped
 * advisory lock on its key) is taken first, so a concurrent burst from one client is counted one hold at a time
 * (without it every request of the burst read the same sum before any committed); SQLite has one writer. An order's
 * hold on PostgreSQL reads the same sum in ./hold-facts.ts's one statement and judges it with `judgeCap`.
 */
export async function assertUnderCap(
  trx: Transaction<Database>,
  isPg: boolean,
  holder: string,
  limit: number,
  asking: number,
  orderId: string,
  at: string,
): Promise<void> {
  if (limit <= 0) return;
  if (isPg) await xactLock(trx, `hold:${holder}`);
  judgeCap(await heldBy(trx, holder, at, orderId), limit, asking);
}

/** The per-client cap's rule (pure): throws the refusal when `held` plus `asking` passes `limit` (0: no cap). */
export function judgeCap(
  held: { units: number; nextRelease: string | undefined },
  limit: number,
  asking: number,
): void {
  const refusal = holdLimitRefusal(held.units, asking, limit, held.nextRelease);
  if (refusal) throw refusal;
}

/**
 * What a drop's per-buyer limit counts: the units of the drop's products this client or wallet holds or bought
 * (`active`), and those they held that lapsed unpaid, were given back or oversold (`spent`).
 */
export interface BuyerUnits {
  active: number;
  spent: number;
}

/** The reservation states the per-buyer limit counts (`active` the first two, `spent` the others). */
export const BUYER_STATES = ['held', 'sold', 'released', 'oversold'] as const;

/** The buyer's units of `productIds` (client `holder` or wallet `payer`), in the caller's transaction. */
export async function buyerUnitsOf(
  q: Db,
  buyer: { holder: string | undefined; payer: string },
  productIds: readonly string[],
): Promise<BuyerUnits> {
  const rows = await q
    .selectFrom('reservations')
    .select((eb) => ['state', eb.fn.sum<number>('quantity').as('units')])
    .where('product_id', 'in', productIds)
    .where('state', 'in', [...BUYER_STATES])
    .where((eb) =>
      buyer.holder
        ? eb.or([eb('holder', '=', buyer.holder), eb('payer', '=', buyer.payer)])
        : eb('payer', '=', buyer.payer),
    )
    .groupBy('state')
    .execute();
  const units: BuyerUnits = { active: 0, spent: 0 };
  for (const r of rows) {
    if (r.state === 'held' || r.state === 'sold') units.active += Number(r.units ?? 0);
    else units.spent += Number(r.units ?? 0);
  }
  return units;
}

/**
 * A drop's per-buyer limit (core/drop.ts), its rule (pure): the pieces of the drop (one product, or every product
 * of a vendor's batch) that this client or this wallet holds or bought (`units.active`), plus `asking`, stay within
 * `limit`, else `refusals.limit()` is thrown; and a buyer has one turn: pieces they held that lapsed unpaid or were
 * given back count too (`refusals.turn()`). Returns whether this order takes the buyer to the limit (their turn in
 * the drop is over). Judged in the reservation's transaction on what was read after the client's and the wallet's
 * locks (./hold-facts.ts), so a burst is counted one order at a time.
 */
export function judgeBuyerLimit(
  units: BuyerUnits,
  limit: number,
  asking: number,
  refusals: { limit: () => Error; turn: () => Error },
): boolean {
  const { active, spent } = units;
  if (active + asking > limit) throw refusals.limit();
  if (active + spent + asking > limit) throw refusals.turn();
  return active + spent + asking >= limit;
}

/** An order that never held stock, recorded as released reservations (nothing moves): the sale judges it. */
export async function recordUnheld(
  trx: Transaction<Database>,
  orderId: string,
  lines: readonly StockRequest[],
  at: string,
): Promise<void> {
  for (const line of lines) {
    await trx
      .insertInto('reservations')
      .values({
        order_id: orderId,
        product_id: line.productId,
        variant_id: line.variantId ?? '',
        quantity: line.quantity,
        state: 'released',
        expires_at: at,
        created_at: at,
        updated_at: at,
        holder: null,
        payer: null,
      })
      .onConflict((oc) => oc.columns(['order_id', 'product_id', 'variant_id']).doNothing())
      .execute();
  }
}
