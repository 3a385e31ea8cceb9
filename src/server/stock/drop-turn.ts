/**
 * A buyer's turn in a drop's line ends (./drop-line.ts): in the order's transaction when its hold is made (on
 * PostgreSQL inside the reservation's own statement, ./reservations.ts), or in its own when the per-buyer limit
 * refuses them for good (`DropLine.closeTurn`).
 */
import type { OperationNodeSource, Transaction } from 'kysely';
import type { Database } from '../store/schema';

/** One of `endTurn`'s writes, unrun: run it, or carry it in another statement (a query builder). */
export type TurnWrite = OperationNodeSource & { execute(): Promise<unknown> };

/**
 * In the order's transaction, when its hold is made: `holder` had their turn on the products they `ordered`; on
 * the other products of `all` (the rest of a vendor's batch, when this order took them to its limit) they leave
 * the line too, or are put in it as done, never let through (`through_at` null: done elsewhere), so their pages
 * say so and they take no one's turn there. The rows of the ordered products first, then the others, each in
 * product order.
 */
export async function endTurn(
  trx: Transaction<Database>,
  holder: string,
  ordered: readonly string[],
  all: readonly string[],
  at: string,
): Promise<void> {
  for (const write of endTurnWrites(trx, holder, ordered, all, at)) await write.execute();
}

/**
 * `endTurn`'s writes (none, one or two statements), unrun: `endTurn` runs them one after another; on PostgreSQL the
 * reservation's statement carries them as data-modifying CTEs (./reservations.ts `reservePg`), so the hold ends the
 * buyer's turn in the same round trip. The products of `ordered` and the others of `all` are disjoint: no row is
 * written twice in one statement.
 */
export function endTurnWrites(
  trx: Transaction<Database>,
  holder: string,
  ordered: readonly string[],
  all: readonly string[],
  at: string,
): TurnWrite[] {
  const writes: TurnWrite[] = [];
  if (ordered.length > 0)
    writes.push(
      trx
        .updateTable('drop_line')
        .set({ done_at: at })
        .where('product_id', 'in', ordered)
        .where('holder', '=', holder)
        .where('done_at', 'is', null),
    );
  const others = all.filter((id) => !ordered.includes(id)).sort();
  if (others.length === 0) return writes;
  writes.push(
    trx
      .insertInto('drop_line')
      .values(
        others.map((productId) => ({
          product_id: productId,
          holder,
          // Never in this line's order (done), and never counted as having joined it.
          rank: -1,
          joined_at: at,
          through_at: null,
          done_at: at,
        })),
      )
      .onConflict((oc) =>
        oc
          .columns(['product_id', 'holder'])
          .doUpdateSet({ done_at: at, through_at: null })
          .where('drop_line.done_at', 'is', null),
      ),
  );
  return writes;
}
