/**
 * "Mark refunded": the seller names the refund transaction; the order service refuses what needs no chain read,
 * the chain decides whether it is a refund of this order to one of its payers (src/server/payments/refund.ts),
 * and the order service records it.
 */
import { DomainError } from '../../core/errors';
import type { SellerException } from '../../core/seller-api';
import { payerKey, type PayerCache } from '../payments/payers';
import { checkRefund } from '../payments/refund';
import type { PaymentRpc } from '../payments/rpc';
import type { OrderService, SellerActor } from '../orders/service';

export async function markRefunded(
  deps: { orders: OrderService; rpc?: PaymentRpc; payers: PayerCache },
  seller: SellerActor,
  orderId: string,
  input: { exception: SellerException; signature: string },
): Promise<void> {
  const target = await deps.orders.refundTarget(seller, orderId, input);
  if (!deps.rpc)
    throw new DomainError(
      'unavailable',
      'rpc_unavailable',
      'Refunds cannot be checked: this store has no Solana RPC.',
    );
  const refund = await checkRefund(deps.rpc, deps.payers, {
    order: { id: target.id, recipient: target.recipient, mint: target.mint },
    payments: target.payments,
    signature: input.signature,
  });
  await deps.orders.recordRefund(seller, orderId, {
    ...input,
    amountBaseUnits: refund.amountBaseUnits,
    to: payerKey(refund.to),
    payers: new Map([...refund.payers].map(([s, p]) => [s, p && payerKey(p)])),
  });
}
