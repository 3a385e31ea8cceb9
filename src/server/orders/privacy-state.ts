/**
 * What the buyer's order page says about their personal data (src/core/api.ts OrderPagePrivacy), and the rules
 * behind "Delete my details": allowed after shipping, or for an order that will not ship (expired, or refunded
 * for an exception other than an extra payment or an over-amount); before that, "cancel instead".
 */
import type { OrderPagePrivacy } from '../../core/api';
import { openShipping } from '../privacy/order-data';
import type { OrderRow } from '../store/schema';
import type { SellerException } from '../../core/seller-api';
import { REFUND_KEEPS_ORDER } from './exceptions';
import { ledgerOf } from './rows';
import type { Db, OrderContext } from './types';

/** An expired order may still be paid late within the watcher's window (24 h): closed only after it. */
export const LATE_PAYMENT_WINDOW_MS = 24 * 3600_000;
export const NEVER_SHIPS_AGAIN = new Set(['shipped', 'delivered']);

/** When a refund closed the order without shipping (a refunded exception other than an extra payment). */
async function refundClosedAt(q: Db, o: OrderRow): Promise<string | undefined> {
  if (NEVER_SHIPS_AGAIN.has(o.status)) return undefined;
  const rows = await q
    .selectFrom('seller_actions')
    .select(['detail_json', 'at'])
    .where('order_id', '=', o.id)
    .where('action', '=', 'refunded')
    .orderBy('at')
    .execute();
  return rows.find((r) => {
    const e = (JSON.parse(r.detail_json) as { exception?: SellerException }).exception;
    return e === undefined || !REFUND_KEEPS_ORDER.includes(e);
  })?.at;
}

/** The buyer may delete now: shipped, delivered, or an order that will not ship (expired, refunded). */
export async function deletableNow(q: Db, o: OrderRow): Promise<boolean> {
  if (NEVER_SHIPS_AGAIN.has(o.status) || o.status === 'expired') return true;
  return (await refundClosedAt(q, o)) !== undefined;
}

/**
 * A paid order's cancel request: not asked, asked, or asked and declined by the vendor (its "Record action" on
 * the request): the order's own facts (orders.cancel_requested_at, cancel_declined_at).
 */
function askedState(o: OrderRow): 'ask_vendor' | 'requested' | 'declined' {
  if (o.cancel_requested_at === null) return 'ask_vendor';
  return o.cancel_declined_at !== null ? 'declined' : 'requested';
}

export async function privacyOf(ctx: OrderContext, q: Db, o: OrderRow): Promise<OrderPagePrivacy> {
  const retentionDays = ctx.deps.settings.privacy.retentionMs / 86_400_000;
  if (o.details_erased_at)
    return {
      details: 'erased',
      erasedAt: o.details_erased_at,
      deletion: 'done',
      cancel: 'none',
      retentionDays,
    };
  const opened = openShipping(ctx.sealer, o.id, o.shipping_json);
  const details = opened.state === 'given' ? 'kept' : opened.state;
  if (await deletableNow(q, o)) return { details, deletion: 'allowed', cancel: 'none', retentionDays };
  const unpaid = o.status === 'awaiting_payment' && (await ledgerOf(q, o.id)).length === 0;
  return {
    details,
    deletion: 'cancel_first',
    cancel: unpaid ? 'unpaid' : askedState(o),
    retentionDays,
  };
}
