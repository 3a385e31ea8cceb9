/**
 * Who waits on an order, for the payment watcher's priority checks (payments.md, "The payment lane cannot be
 * bought"): only a poll that carries the order's page token counts (the order page, or the checkout's status poll
 * with the token it got at creation): an order id is not a capability, so polling ids makes nothing awaited.
 * The watcher is told the poller's client (its hashed client key) and what is at stake on the order.
 */
import { ORDER_TOKEN } from '../../core/routes';
import type { OrderRow } from '../store/schema';
import type { AwaitedStake, OrderContext } from './types';

/**
 * `money`: a wallet order (its buyer signs a transfer of the amount), a QR record with shipping details, or an
 * order something was already paid towards; `free`: a QR record with nothing sent, which anyone makes for nothing.
 */
export function stakeOf(
  o: Pick<OrderRow, 'payment_method' | 'shipping_json' | 'received_base_units'>,
): AwaitedStake {
  if (o.payment_method === 'wallet' || o.shipping_json !== null) return 'money';
  return BigInt(o.received_base_units ?? '0') > 0n ? 'money' : 'free';
}

/**
 * Tells the watcher that `client` waits on the order whose page token is `pageToken` (and whose id is `orderId`,
 * when given), if it is awaiting payment and priced. Anything else (no token, a wrong one, no client, no
 * watcher) does nothing.
 */
export async function noteAwaited(
  ctx: OrderContext,
  pageToken: unknown,
  client: string | undefined,
  orderId?: string,
): Promise<void> {
  const awaited = ctx.deps.lanes?.awaitedLane();
  if (!awaited || !client || typeof pageToken !== 'string' || !ORDER_TOKEN.test(pageToken)) return;
  const o = await ctx.db
    .selectFrom('orders')
    .select(['id', 'status', 'amount_base_units', 'payment_method', 'shipping_json', 'received_base_units'])
    .where('public_token', '=', pageToken)
    .executeTakeFirst();
  if (!o || (orderId !== undefined && o.id !== orderId)) return;
  if (o.status !== 'awaiting_payment' || o.amount_base_units === null) return;
  awaited(o.id, { client, stake: stakeOf(o) });
}
