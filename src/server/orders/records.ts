/**
 * QR records over time: a record paid without shipping details tells the seller "paid, shipping details missing"
 * once the grace delay has passed (settings.qr.detailsGraceMs), and expired records with nothing paid and no
 * details are deleted after settings.qr.cleanupAfterMs (past the watcher's 24 h window: nothing can still be
 * recorded for them). Both run on the server's expiry timer, as does the expiry of unpriced orders
 * (`expireUnpriced`).
 */
import { FULLY_PAID, transition } from '../../core/order-status';
import { queueEmails } from './notifications';
import { addHistory, ledgerOf, loadOrder } from './rows';
import { announceExceptions, tellQueued } from './webhook-events';
import type { OrderContext } from './types';

export async function notifyMissingDetails(ctx: OrderContext, now: Date = ctx.deps.now()): Promise<number> {
  const graceMs = ctx.deps.settings.qr.detailsGraceMs;
  const candidates = await ctx.db
    .selectFrom('orders')
    .select(['id', 'signature'])
    .where('payment_method', '=', 'qr')
    .where('shipping_json', 'is', null)
    .where('details_notified_at', 'is', null)
    .where('status', 'in', [...FULLY_PAID])
    .execute();
  let n = 0;
  let added = 0;
  for (const { id } of candidates) {
    const told = await ctx.db.transaction().execute(async (trx) => {
      const o = await loadOrder(ctx, trx, { orderId: id }, true);
      if (!o || o.shipping_json !== null || o.details_notified_at !== null || !FULLY_PAID.has(o.status))
        return false;
      // The grace delay runs from the recording of the transfer that completed the amount.
      const ledger = await ledgerOf(trx, id);
      const completing = ledger.find((p) => p.signature === o.signature) ?? ledger[ledger.length - 1];
      if (!completing || Date.parse(completing.recorded_at) + graceMs > now.getTime()) return false;
      const at = now.toISOString();
      await trx
        .updateTable('orders')
        .set({ details_notified_at: at, updated_at: at })
        .where('id', '=', id)
        .execute();
      added += await queueEmails(
        ctx,
        trx,
        { ...o, details_notified_at: at },
        { type: 'details_overdue' },
        { at },
      );
      // The grace is over: "no shipping details" is an exception now (its webhook, once).
      await announceExceptions(ctx, trx, id, at);
      return true;
    });
    if (told) n++;
  }
  if (added > 0) ctx.deps.onOutboxChange?.();
  tellQueued(ctx);
  return n;
}

export async function cleanupRecords(ctx: OrderContext, now: Date = ctx.deps.now()): Promise<number> {
  const before = new Date(now.getTime() - ctx.deps.settings.qr.cleanupAfterMs).toISOString();
  const due = await ctx.db
    .selectFrom('orders')
    .select('id')
    .where('payment_method', '=', 'qr')
    .where('shipping_json', 'is', null)
    .where('status', '=', 'expired')
    .where('expires_at', '<', before)
    .where((eb) =>
      eb.not(eb.exists(eb.selectFrom('payments').select('signature').whereRef('order_id', '=', 'orders.id'))),
    )
    .where((eb) =>
      eb.not(eb.exists(eb.selectFrom('outbox').select('id').whereRef('order_id', '=', 'orders.id'))),
    )
    .limit(1000)
    .execute();
  let n = 0;
  for (const { id } of due) {
    const deleted = await ctx.db.transaction().execute(async (trx) => {
      const o = await loadOrder(ctx, trx, { orderId: id }, true);
      if (!o || o.shipping_json !== null || o.status !== 'expired') return false;
      if ((await ledgerOf(trx, id)).length > 0) return false;
      // Its reservation was released at expiry; the stock change log keeps the history.
      await ctx.stock.release(trx, id, now.toISOString());
      await ctx.stock.forget(trx, id);
      await trx.deleteFrom('order_history').where('order_id', '=', id).execute();
      await trx.deleteFrom('idempotency_keys').where('order_id', '=', id).execute();
      await trx.deleteFrom('orders').where('id', '=', id).where('status', '=', 'expired').execute();
      return true;
    });
    if (deleted) n++;
  }
  return n;
}

/**
 * How long an unpriced QR order (accepted while quotes were refused: the seller arranges its payment) stays open
 * after its quote's expiry: a day for the seller to reach the buyer. It never holds stock (./holds.ts).
 */
export const UNPRICED_ORDER_WINDOW_MS = 24 * 3600_000;

/**
 * Unpriced orders past their window → expired (by the wall clock: no payment is watched for them, so the
 * watcher's progress has nothing to say). Nothing is e-mailed; any hold an older order still had is released.
 */
export async function expireUnpriced(ctx: OrderContext, now: Date = ctx.deps.now()): Promise<number> {
  const before = new Date(now.getTime() - UNPRICED_ORDER_WINDOW_MS).toISOString();
  const at = now.toISOString();
  const due = await ctx.db
    .selectFrom('orders')
    .select('id')
    .where('status', '=', 'awaiting_payment')
    .where('amount_base_units', 'is', null)
    .where('expires_at', '<=', before)
    .limit(1000)
    .execute();
  let n = 0;
  for (const { id } of due) {
    const changed = await ctx.db.transaction().execute(async (trx) => {
      const o = await loadOrder(ctx, trx, { orderId: id }, true);
      if (!o || o.amount_base_units !== null || o.status !== 'awaiting_payment') return false;
      const t = transition(o.status, { type: 'expire', receivedBaseUnits: 0n });
      if (!t.ok) return false;
      await trx
        .updateTable('orders')
        .set({ status: t.next, updated_at: at })
        .where('id', '=', id)
        .where('status', '=', o.status)
        .execute();
      await addHistory(trx, id, t.next, 'expire', at);
      await ctx.stock.release(trx, id, at);
      return true;
    });
    if (changed) n++;
  }
  return n;
}
