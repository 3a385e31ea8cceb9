/**
 * The webhook events an order change causes (issue 35; docs/webhooks.md): built here from the order as the
 * vendor's console shows it, and queued through the webhooks module (../webhooks/queue.ts) in the caller's
 * transaction, like the e-mails (./notifications.ts). Only for the order's own vendor; the buyer's name and postal
 * address ride along for the endpoints that want them (never the e-mail address).
 *
 * - status events: order.paid / paid_late / underpaid / oversold (ledger.ts), shipped (with tracking; again when
 *   the tracking changes), delivered (fulfilment.ts), cancelled, refund_recorded (exception-actions.ts);
 * - order.exception_opened: once per order and exception, when a change leaves the order with an exception the
 *   seller has not settled (announceExceptions, after every change that can open one);
 * - order.exception_settled: when the seller records an action or a refund that settles one;
 * - stock.sold_out: when a sale leaves a stock line with no unit on hand (once per line and stock change).
 */
import { formatBaseUnits, formatCents } from '../../core/money';
import { exceptionsOf } from '../../core/order-exceptions';
import type { OrderStatus } from '../../core/api';
import type { WebhookEventType, WebhookOrderData, WebhookShipping } from '../../core/webhook-events';
import type { OrderRow } from '../store/schema';
import { noteOnce, queueWebhookEvent } from '../webhooks/queue';
import { detailsDueBefore, exceptionFactsOf, resolvedOf } from './exceptions';
import { itemsOf, orderNumberOf, shippingOf } from './rows';
import type { Db, OrderContext } from './types';

function shippingFor(ctx: OrderContext, o: OrderRow): WebhookShipping | undefined {
  const s = shippingOf(ctx.sealer, o);
  if (!s) return undefined;
  return {
    name: s.fullName,
    address1: s.address1,
    ...(s.address2 ? { address2: s.address2 } : {}),
    city: s.city,
    region: s.kind === 'international' ? s.stateProvince : s.usState,
    postalCode: s.kind === 'international' ? s.postalCode : s.zip,
    country: s.kind === 'international' ? s.country : 'US',
  };
}

export function webhookOrderOf(o: OrderRow): WebhookOrderData['order'] {
  return {
    id: o.id,
    number: orderNumberOf(o.id),
    vendorId: o.vendor_id,
    status: o.status,
    paymentMethod: o.payment_method,
    createdAt: o.created_at,
    items: itemsOf(o).map((i) => ({
      productId: i.productId,
      ...(i.variantId ? { variantId: i.variantId } : {}),
      ...(i.variantLabel ? { variantLabel: i.variantLabel } : {}),
      name: i.name,
      quantity: i.quantity,
      unitUSD: formatCents(i.unitCents),
      lineUSD: formatCents(i.lineCents),
    })),
    totalUSD: formatCents(o.total_cents),
    amountCLAIM: o.amount_base_units === null ? null : formatBaseUnits(BigInt(o.amount_base_units)),
    receivedCLAIM: formatBaseUnits(BigInt(o.received_base_units ?? '0')),
  };
}

/** Queues one event about order `o` (as it is after the change) in the caller's transaction. */
export async function queueOrderEvent(
  ctx: OrderContext,
  q: Db,
  o: OrderRow,
  type: WebhookEventType,
  at: string,
  extra: Omit<WebhookOrderData, 'order'> = {},
): Promise<number> {
  const shipping = shippingFor(ctx, o);
  const n = await queueWebhookEvent(q, ctx.sealer, {
    type,
    vendorId: o.vendor_id,
    orderId: o.id,
    data: { order: webhookOrderOf(o), ...extra },
    ...(shipping ? { shipping } : {}),
    at,
  });
  if (n > 0) pending.add(ctx);
  return n;
}

/** Contexts with deliveries queued in a transaction not yet told (told after the commit: tellQueued). */
const pending = new WeakSet<OrderContext>();

/** After the transaction: the sender runs soon if anything was queued. */
export function tellQueued(ctx: OrderContext): void {
  if (!pending.has(ctx)) return;
  pending.delete(ctx);
  ctx.deps.onWebhookQueued?.();
}

/** The event a payment's status change is (none for a change that is no news: paid → final, top-ups, extras). */
export function paymentEventOf(from: OrderStatus, to: OrderStatus): WebhookEventType | undefined {
  if (from === to) return undefined;
  if (to === 'paid' || (to === 'final' && from !== 'paid')) return 'order.paid';
  if (to === 'paid_late') return 'order.paid_late';
  if (to === 'oversold') return 'order.oversold';
  if (to === 'underpaid') return 'order.underpaid';
  return undefined;
}

/**
 * Announces each exception the order has now that the seller has not settled and that was not announced before
 * (order.exception_opened, once per order and exception).
 */
export async function announceExceptions(
  ctx: OrderContext,
  q: Db,
  orderId: string,
  at: string,
): Promise<void> {
  const o = await q.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirst();
  if (!o) return;
  const hasEndpoint = await q
    .selectFrom('webhook_endpoints')
    .select('id')
    .where('vendor_id', '=', o.vendor_id)
    .where('state', '<>', 'disabled')
    .executeTakeFirst();
  if (!hasEndpoint) return; // nothing to tell anyone (and nothing noted: an endpoint added later starts afresh)
  const dueBefore = detailsDueBefore(ctx.deps.now(), ctx.deps.settings.qr.detailsGraceMs);
  const facts = (await exceptionFactsOf(q, [o], dueBefore)).get(o.id);
  const open = exceptionsOf({
    hasExtra: false,
    overpaid: false,
    cancelAsked: false,
    ...facts,
    status: o.status,
    hasShipping: o.shipping_json !== null,
  });
  const settled = new Set((await resolvedOf(q, [o.id])).get(o.id) ?? []);
  for (const kind of open) {
    if (settled.has(kind)) continue;
    if (!(await noteOnce(q, `exception:${o.id}:${kind}`, at))) continue;
    await queueOrderEvent(ctx, q, o, 'order.exception_opened', at, { exception: { kind } });
  }
}

/** After a sale: each of the order's stock lines left with no unit on hand is announced sold out. */
export async function announceSoldOut(ctx: OrderContext, q: Db, o: OrderRow, at: string): Promise<void> {
  const items = itemsOf(o);
  for (const item of items) {
    const line = await q
      .selectFrom('stock')
      .select(['on_hand', 'change_seq'])
      .where('product_id', '=', item.productId)
      .where('variant_id', '=', item.variantId ?? '')
      .executeTakeFirst();
    if (!line || Number(line.on_hand) > 0) continue;
    const key = `soldout:${item.productId}:${item.variantId ?? ''}:${line.change_seq}`;
    const hasEndpoint = await q
      .selectFrom('webhook_endpoints')
      .select('id')
      .where('vendor_id', '=', o.vendor_id)
      .where('state', '<>', 'disabled')
      .executeTakeFirst();
    if (!hasEndpoint || !(await noteOnce(q, key, at))) continue;
    const n = await queueWebhookEvent(q, ctx.sealer, {
      type: 'stock.sold_out',
      vendorId: o.vendor_id,
      data: {
        product: {
          id: item.productId,
          ...(item.variantId ? { variantId: item.variantId } : {}),
          name: item.name,
          vendorId: o.vendor_id,
        },
        onHand: 0,
      },
      at,
    });
    if (n > 0) pending.add(ctx);
  }
}
