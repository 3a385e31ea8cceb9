/** What the payment watcher reads: one order by id or reference, the orders to follow, used signatures. */
import type { PaymentRow } from '../store/schema';
import { isPriced, ledgerOf, loadOrder, toWatched } from './rows';
import type { OrderContext, PaymentTarget, WatchedOrder } from './types';

export async function findOrder(ctx: OrderContext, target: PaymentTarget): Promise<WatchedOrder | undefined> {
  const o = await loadOrder(ctx, ctx.db, target, false);
  return o && isPriced(o) ? toWatched(o, await ledgerOf(ctx.db, o.id)) : undefined;
}

export async function ordersToWatch(
  ctx: OrderContext,
  opts: { expiredWithinMs?: number } = {},
): Promise<WatchedOrder[]> {
  const since = new Date(ctx.deps.now().getTime() - (opts.expiredWithinMs ?? 24 * 3600_000)).toISOString();
  const rows = await ctx.db
    .selectFrom('orders')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb('status', '=', 'awaiting_payment'),
        // Every status within the window: later transfers are recorded (top-ups, extras).
        eb('expires_at', '>=', since),
        eb.and([eb('status', 'in', ['paid', 'paid_late']), eb('finalized', '=', 0)]),
      ]),
    )
    .where('amount_base_units', 'is not', null)
    .orderBy('created_at')
    .execute();
  const priced = rows.filter(isPriced);
  const ledgers = new Map<string, PaymentRow[]>();
  for (let i = 0; i < priced.length; i += 500) {
    const ids = priced.slice(i, i + 500).map((o) => o.id);
    const rowsOf = await ctx.db
      .selectFrom('payments')
      .selectAll()
      .where('order_id', 'in', ids)
      .orderBy('seq')
      .execute();
    for (const p of rowsOf) ledgers.set(p.order_id, [...(ledgers.get(p.order_id) ?? []), p]);
  }
  return priced.map((o) => toWatched(o, ledgers.get(o.id) ?? []));
}

export async function isSignatureUsed(
  ctx: OrderContext,
  signature: string,
  exceptOrderId?: string,
): Promise<boolean> {
  let q = ctx.db.selectFrom('payments').select('order_id').where('signature', '=', signature);
  if (exceptOrderId) q = q.where('order_id', '!=', exceptOrderId);
  return (await q.executeTakeFirst()) !== undefined;
}

/**
 * The priced orders whose reference is one of `references` (a transaction's account keys): one lookup on the
 * UNIQUE index of orders.reference, whatever the number of open orders.
 */
export async function ordersByReferences(ctx: OrderContext, references: string[]): Promise<WatchedOrder[]> {
  const keys = [...new Set(references)];
  if (!keys.length) return [];
  const rows = await ctx.db.selectFrom('orders').selectAll().where('reference', 'in', keys).execute();
  const priced = rows.filter(isPriced);
  const out: WatchedOrder[] = [];
  for (const o of priced) out.push(toWatched(o, await ledgerOf(ctx.db, o.id)));
  return out;
}

/** Ledger transfers not yet finalized (oldest first, at most `limit`): the watcher polls their statuses. */
export async function unfinalizedPayments(
  ctx: OrderContext,
  limit: number,
): Promise<{ orderId: string; signature: string; receivedBaseUnits: bigint }[]> {
  const rows = await ctx.db
    .selectFrom('payments')
    .select(['order_id', 'signature', 'received_base_units'])
    .where('confirmation', '!=', 'finalized')
    .orderBy('recorded_at')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    orderId: r.order_id,
    signature: r.signature,
    receivedBaseUnits: BigInt(r.received_base_units),
  }));
}
