/**
 * The buyer's personal data over time (docs/decisions/privacy.md): erased `retention` after an order is delivered
 * or closed without shipping (the retention job), or when the buyer asks ("Delete my details" on the order page);
 * what the order page says about it; "cancel instead" before shipping. Erasure keeps the order, its amounts,
 * ledger and history for the books, and marks it "details erased" (orders.details_erased_at).
 */
import type { OrderPageView } from '../../core/api';
import { buildBuyerRequestEmail } from '../../core/email-payload';
import { DomainError } from '../../core/errors';
import { transition } from '../../core/order-status';
import { ORDER_TOKEN } from '../../core/routes';
import { forgetRecipient } from '../mail/cap';
import { eraseMailOf, queueMail } from '../mail/queue';
import { eraseWebhooksOf } from '../webhooks/queue';
import { announceExceptions, tellQueued } from './webhook-events';
import { eraseActionDetail, ERASED, openShipping, sealMail } from '../privacy/order-data';
import { sellerEmailFor } from '../settings';
import type { OrderRow } from '../store/schema';
import { factsOf } from './notifications';
import { deletableNow, LATE_PAYMENT_WINDOW_MS, NEVER_SHIPS_AGAIN, privacyOf } from './privacy-state';
import { orderPageOf } from './public-view';
import { refundKeepsOrderPatterns } from './exceptions';
import { addHistory, ledgerOf } from './rows';
import type { Db, OrderContext, RetentionResult } from './types';

/**
 * Erases the order's personal data in the caller's transaction: the sealed shipping details, every stored
 * e-mail's recipient, body and error, the free text of the seller's actions, the idempotency request hash.
 * E-mails not yet delivered are given up (the retention job never gets here while one is retrying). Recorded in
 * the history as `event`, without the data.
 */
export async function eraseDetails(
  ctx: OrderContext,
  trx: Db,
  o: OrderRow,
  at: string,
  event: 'details_erased' | 'details_deleted_by_buyer',
): Promise<void> {
  await trx
    .updateTable('orders')
    .set({
      shipping_json: o.shipping_json === null ? null : ERASED,
      details_erased_at: at,
      updated_at: at,
    })
    .where('id', '=', o.id)
    .execute();
  await eraseMailOf(trx, o.id, ERASED, 'not delivered: the details were erased first');
  await eraseWebhooksOf(trx, o.id);
  // The e-mail cap's keyed hash of the address goes too (its "paid" mark with it).
  const shipping = openShipping(ctx.sealer, o.id, o.shipping_json);
  if (shipping.state === 'given')
    await forgetRecipient(trx, ctx.deps.settings.quote.secret, shipping.shipping.email);
  const actions = await trx
    .selectFrom('seller_actions')
    .select(['id', 'detail_json'])
    .where('order_id', '=', o.id)
    .execute();
  for (const a of actions) {
    const erased = eraseActionDetail(a.detail_json);
    if (erased !== a.detail_json)
      await trx.updateTable('seller_actions').set({ detail_json: erased }).where('id', '=', a.id).execute();
  }
  await trx
    .updateTable('idempotency_keys')
    .set({ request_hash: ERASED })
    .where('order_id', '=', o.id)
    .execute();
  await addHistory(trx, o.id, o.status, event, at);
}

/**
 * The retention job: orders delivered, or closed without shipping (expired past the late-payment window,
 * refunded), longer than `retentionMs` ago have their personal data erased. Idempotent (an erased order is not
 * due again); an order with an e-mail still pending or retrying waits until it resolves.
 */
export async function runRetention(ctx: OrderContext, now: Date = ctx.deps.now()): Promise<RetentionResult> {
  const cutoff = new Date(now.getTime() - ctx.deps.settings.privacy.retentionMs).toISOString();
  const expiredBefore = new Date(
    now.getTime() - ctx.deps.settings.privacy.retentionMs - LATE_PAYMENT_WINDOW_MS,
  ).toISOString();
  const result: RetentionResult = { erased: 0, waiting: 0 };
  let after = '';
  for (;;) {
    const due = await ctx.db
      .selectFrom('orders as o')
      .select(['o.id'])
      .where('o.details_erased_at', 'is', null)
      .where('o.id', '>', after)
      .where((eb) =>
        eb.or([
          eb.and([
            eb('o.status', '=', 'delivered'),
            eb.exists(
              eb
                .selectFrom('order_history as h')
                .select('h.id')
                .whereRef('h.order_id', '=', 'o.id')
                .where('h.status', '=', 'delivered')
                .where('h.at', '<=', cutoff),
            ),
          ]),
          eb.and([eb('o.status', '=', 'expired'), eb('o.expires_at', '<=', expiredBefore)]),
          eb.and([
            eb('o.status', 'not in', [...NEVER_SHIPS_AGAIN] as ('shipped' | 'delivered')[]),
            eb.exists(
              eb
                .selectFrom('seller_actions as a')
                .select('a.id')
                .whereRef('a.order_id', '=', 'o.id')
                .where('a.action', '=', 'refunded')
                .where('a.at', '<=', cutoff)
                .where((w) =>
                  w.and(refundKeepsOrderPatterns().map((p) => w('a.detail_json', 'not like', p))),
                ),
            ),
          ]),
        ]),
      )
      .orderBy('o.id')
      .limit(200)
      .execute();
    if (due.length === 0) return result;
    after = due[due.length - 1]?.id ?? after;
    for (const { id } of due) {
      const outcome = await ctx.db.transaction().execute(async (trx) => {
        let sel = trx.selectFrom('orders').selectAll().where('id', '=', id);
        if (ctx.isPg) sel = sel.forUpdate();
        const o = await sel.executeTakeFirst();
        if (!o || o.details_erased_at) return 'skip';
        const busy = await trx
          .selectFrom('outbox')
          .select('id')
          .where('order_id', '=', id)
          .where('state', 'in', ['pending', 'retrying'])
          .executeTakeFirst();
        if (busy) return 'waiting';
        await eraseDetails(ctx, trx, o, now.toISOString(), 'details_erased');
        return 'erased';
      });
      if (outcome === 'erased') result.erased++;
      if (outcome === 'waiting') result.waiting++;
    }
  }
}

async function orderByToken(ctx: OrderContext, q: Db, token: string): Promise<OrderRow | undefined> {
  if (typeof token !== 'string' || !ORDER_TOKEN.test(token)) return undefined;
  let sel = q.selectFrom('orders').selectAll().where('public_token', '=', token);
  if (ctx.isPg) sel = sel.forUpdate();
  return sel.executeTakeFirst();
}

/** A note to the order's vendor about the buyer's request (no name, e-mail or address in it). */
async function tellVendor(
  ctx: OrderContext,
  trx: Db,
  o: OrderRow,
  kind: 'details_erased' | 'cancel_requested',
  at: string,
): Promise<void> {
  const facts = factsOf(ctx, o, await ledgerOf(trx, o.id));
  const mail = buildBuyerRequestEmail(facts, kind, sellerEmailFor(ctx.deps.settings.mail, o.payout_group));
  await queueMail(trx, {
    order_id: o.id,
    kind,
    role: 'seller',
    ...sealMail(ctx.sealer, o.id, mail),
    payout_group: o.payout_group,
    payment_seen: 0,
    next_attempt_at: at,
    created_at: at,
    payment_signature: '',
  })
    .onConflict((oc) => oc.columns(['order_id', 'role', 'kind', 'payment_signature']).doNothing())
    .execute();
}

/**
 * "Delete my details": after shipping, or any time for an order that will not ship (expired, refunded). Before
 * shipping it is refused with `order_will_ship` (the page offers to cancel instead). Erases as the retention job
 * does, tells the vendor, records it without the data. Deleting again changes nothing.
 */
export async function deleteMyDetails(ctx: OrderContext, token: string): Promise<OrderPageView | undefined> {
  const at = ctx.deps.now().toISOString();
  let told = false;
  const view = await ctx.db.transaction().execute(async (trx) => {
    const o = await orderByToken(ctx, trx, token);
    if (!o) return undefined;
    if (o.details_erased_at) return orderPageOf(ctx, trx, o);
    if (!(await deletableNow(trx, o)))
      throw new DomainError(
        'conflict',
        'order_will_ship',
        'The vendor needs your name and address to ship this order, so they cannot be deleted before it ships. You can cancel the order instead.',
      );
    await eraseDetails(ctx, trx, o, at, 'details_deleted_by_buyer');
    await tellVendor(ctx, trx, o, 'details_erased', at);
    told = true;
    const after = await orderByToken(ctx, trx, token);
    return after ? orderPageOf(ctx, trx, after) : undefined;
  });
  if (told) ctx.deps.onOutboxChange?.();
  tellQueued(ctx);
  return view;
}

/**
 * "Cancel instead", before shipping: an order with nothing paid is cancelled at once (it closes as expired, its
 * stock goes back on sale; the details can then be deleted); a paid one asks the vendor to cancel and refund
 * (once). Anything else is a conflict.
 */
export async function cancelInstead(ctx: OrderContext, token: string): Promise<OrderPageView | undefined> {
  const at = ctx.deps.now().toISOString();
  let told = false;
  const view = await ctx.db.transaction().execute(async (trx) => {
    const o = await orderByToken(ctx, trx, token);
    if (!o) return undefined;
    const privacy = await privacyOf(ctx, trx, o);
    if (privacy.cancel === 'unpaid') {
      const t = transition(o.status, { type: 'expire', receivedBaseUnits: 0n });
      if (!t.ok)
        throw new DomainError('conflict', 'order_changed', 'The order changed meanwhile. Please reload.');
      await trx
        .updateTable('orders')
        .set({ status: t.next, updated_at: at })
        .where('id', '=', o.id)
        .where('status', '=', o.status)
        .execute();
      await addHistory(trx, o.id, t.next, 'cancelled_by_buyer', at);
      await ctx.stock.release(trx, o.id, at);
    } else if (privacy.cancel === 'ask_vendor') {
      // The request is the order's own fact; the vendor's e-mail about it is its consequence.
      await trx
        .updateTable('orders')
        .set({ cancel_requested_at: at })
        .where('id', '=', o.id)
        .where('cancel_requested_at', 'is', null)
        .execute();
      await tellVendor(ctx, trx, o, 'cancel_requested', at);
      await announceExceptions(ctx, trx, o.id, at);
      told = true;
    } else if (privacy.cancel !== 'requested') {
      throw new DomainError(
        'conflict',
        'nothing_to_cancel',
        'This order cannot be cancelled from this page.',
      );
    }
    const after = await orderByToken(ctx, trx, token);
    return after ? orderPageOf(ctx, trx, after) : undefined;
  });
  if (told) ctx.deps.onOutboxChange?.();
  return view;
}
