/**
 * Transactions the payment watcher could not read that may pay an order (docs/decisions/transaction-versions.md):
 * the order module's note of them (one row per order and signature), read by the order's pages and the seller's
 * exceptions, so nobody's money disappears silently. Nothing else changes: the order's status, ledger and
 * e-mails wait for a transfer that can be read, or for the vendor (who checks the transaction by hand and
 * records an action).
 */
import type { Db, OrderContext } from './types';
import { announceExceptions, tellQueued } from './webhook-events';

export interface UnreadablePayment {
  signature: string;
  reason: string;
  at: string;
}

export async function noteUnreadablePayment(
  ctx: OrderContext,
  orderId: string,
  note: { signature: string; reason: string },
): Promise<boolean> {
  const order = await ctx.db.selectFrom('orders').select('id').where('id', '=', orderId).executeTakeFirst();
  if (!order) return false;
  const at = ctx.deps.now().toISOString();
  const noted = await ctx.db.transaction().execute(async (trx) => {
    const res = await trx
      .insertInto('order_unreadable_payments')
      .values({ order_id: orderId, signature: note.signature, reason: note.reason, noted_at: at })
      .onConflict((oc) => oc.columns(['order_id', 'signature']).doNothing())
      .executeTakeFirst();
    const added = Number(res.numInsertedOrUpdatedRows ?? 0n) > 0;
    // A new exception for the vendor (unreadable_payment): its webhook in the same transaction.
    if (added) await announceExceptions(ctx, trx, orderId, at);
    return added;
  });
  tellQueued(ctx);
  return noted;
}

/** The unreadable transactions noted for each of `orderIds` (oldest first). */
export async function unreadablePaymentsOf(
  q: Db,
  orderIds: string[],
): Promise<Map<string, UnreadablePayment[]>> {
  const out = new Map<string, UnreadablePayment[]>();
  if (!orderIds.length) return out;
  const rows = await q
    .selectFrom('order_unreadable_payments')
    .select(['order_id', 'signature', 'reason', 'noted_at'])
    .where('order_id', 'in', orderIds)
    .orderBy('noted_at')
    .execute();
  for (const r of rows)
    out.set(r.order_id, [
      ...(out.get(r.order_id) ?? []),
      { signature: r.signature, reason: r.reason, at: r.noted_at },
    ]);
  return out;
}
