/**
 * "Download my data" (the buyer's order page): everything the shop keeps about one order, opened for its buyer,
 * with the e-mails sent about it as they were sent. The vendor's copies list no recipient (they are addressed
 * to "the vendor"), the vendor's private notes are left out, and the buyer's capability link is the only key.
 */
import type { OrderDataExport } from '../../core/api';
import type { OrderEmailPayload } from '../../core/email-payload';
import { ORDER_TOKEN } from '../../core/routes';
import { renderEmail } from '../mail/templates';
import { openActionDetail, openMail, openShipping } from '../privacy/order-data';
import { orderPageOf } from './public-view';
import type { OrderContext } from './types';

export async function exportMyData(ctx: OrderContext, token: string): Promise<OrderDataExport | undefined> {
  if (typeof token !== 'string' || !ORDER_TOKEN.test(token)) return undefined;
  const q = ctx.db;
  const o = await q.selectFrom('orders').selectAll().where('public_token', '=', token).executeTakeFirst();
  if (!o) return undefined;
  const [view, history, mails, actions] = await Promise.all([
    orderPageOf(ctx, q, o),
    q
      .selectFrom('order_history')
      .select(['status', 'event', 'at'])
      .where('order_id', '=', o.id)
      .orderBy('seq')
      .execute(),
    q
      .selectFrom('outbox')
      .selectAll()
      .where('order_id', '=', o.id)
      .orderBy('created_at')
      .orderBy('role', 'desc')
      .execute(),
    // The vendor's own note ("Only you see it" in the console) is the vendor's, not data about the buyer.
    q
      .selectFrom('seller_actions')
      .select(['action', 'detail_json', 'at'])
      .where('order_id', '=', o.id)
      .where('action', '!=', 'note')
      .orderBy('at')
      .execute(),
  ]);
  const { privacy: _privacy, topUp: _topUp, ...order } = view;
  const shipping = openShipping(ctx.sealer, o.id, o.shipping_json);
  const details: OrderDataExport['details'] = o.details_erased_at
    ? { state: 'erased', erasedAt: o.details_erased_at }
    : shipping.state === 'given'
      ? {
          state: 'kept',
          shipping: Object.fromEntries(Object.entries(shipping.shipping).map(([k, v]) => [k, String(v)])),
        }
      : shipping.state === 'erased'
        ? { state: 'erased', erasedAt: null }
        : { state: shipping.state };
  const retentionDays = ctx.deps.settings.privacy.retentionMs / 86_400_000;
  return {
    exportedAt: ctx.deps.now().toISOString(),
    order: { ...order, history, referrer: o.referrer },
    details,
    emails: mails.map((m) => {
      const opened = openMail(ctx.sealer, o.id, m);
      const base = {
        kind: m.kind,
        recipient: m.role,
        state: m.state,
        createdAt: m.created_at,
        deliveredAt: m.delivered_at,
        erased: opened.state === 'erased',
      };
      if (opened.state !== 'readable') return { ...base, message: null };
      // The seller's copy: its address is the vendor's and stays here.
      const { seller_email: _vendorAddress, ...payload } = opened.payload;
      const rendered = renderEmail({
        id: m.id,
        orderId: o.id,
        kind: m.kind,
        role: m.role,
        to: m.role === 'buyer' ? opened.to : 'the vendor',
        payoutGroup: m.payout_group,
        paymentSeen: Number(m.payment_seen) === 1,
        payload: payload as OrderEmailPayload,
      });
      return {
        ...base,
        ...(m.role === 'buyer' ? { to: opened.to } : {}),
        message: { subject: rendered.subject, text: rendered.text },
      };
    }),
    sellerActions: actions.map((a) => ({
      action: a.action,
      at: a.at,
      detail: openActionDetail(ctx.sealer, o.id, a.detail_json),
    })),
    retention: {
      days: retentionDays,
      rule: `Your name, e-mail, address and the stored e-mails are erased ${retentionDays} days after the order is delivered, or after it closes without shipping (expired, refunded); the order, its amounts and payments stay for the vendor's books.`,
    },
  };
}
