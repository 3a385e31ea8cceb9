/**
 * What an order's money is, for the rule of who is owed what (src/core/refunds.ts): its ledger in order, its dust
 * threshold, the refunds recorded (and to whom), and whether a refund closed it. Reads only.
 */
import type { LedgerTransfer, OwedInput } from '../../core/refunds';
import type { OrderRow } from '../store/schema';
import { refundKeepsOrderPatterns } from './exceptions';
import type { Db } from './types';

/**
 * Orders a refund closed: a `refunded` action settling an exception other than an extra payment or an over-amount
 * (the order will not ship; everything it receives goes back).
 */
export async function closedByRefund(q: Db, orderIds: readonly string[]): Promise<Set<string>> {
  if (orderIds.length === 0) return new Set();
  const rows = await q
    .selectFrom('seller_actions')
    .select('order_id')
    .distinct()
    .where('order_id', 'in', [...orderIds])
    .where('action', '=', 'refunded')
    .where((w) => w.and(refundKeepsOrderPatterns().map((p) => w('detail_json', 'not like', p))))
    .execute();
  return new Set(rows.map((r) => r.order_id));
}

/**
 * The rule's input for one order. `payers`: who sent each ledger transfer, by signature (read from the chain by
 * the payments module); without it the transfers have no sender.
 */
export async function owedInputOf(
  q: Db,
  o: Pick<OrderRow, 'id' | 'status' | 'amount_base_units' | 'dust_base_units'>,
  payers?: ReadonlyMap<string, string | null>,
): Promise<OwedInput & { signatures: string[] }> {
  const [payments, refunds, closed] = await Promise.all([
    q
      .selectFrom('payments')
      .select(['signature', 'role', 'received_base_units'])
      .where('order_id', '=', o.id)
      .orderBy('seq')
      .execute(),
    q.selectFrom('refunds').select(['amount_base_units', 'payer']).where('order_id', '=', o.id).execute(),
    closedByRefund(q, [o.id]),
  ]);
  return {
    status: o.status,
    amountBaseUnits: o.amount_base_units === null ? null : BigInt(o.amount_base_units),
    dustBaseUnits: BigInt(o.dust_base_units ?? '0'),
    closed: closed.has(o.id),
    payments: payments.map((p): LedgerTransfer => ({
      role: p.role,
      receivedBaseUnits: BigInt(p.received_base_units),
      payer: payers?.get(p.signature) ?? null,
    })),
    refunds: refunds.map((r) => ({ amountBaseUnits: BigInt(r.amount_base_units), payer: r.payer })),
    signatures: payments.map((p) => p.signature),
  };
}
