/**
 * "Who paid", for the console's order detail: the payer of each ledger transfer as the payments module reads it
 * (src/server/payments/payers.ts, the one rule the refund check uses too), grouped by wallet, oldest first, with
 * what each brought, what is owed to each (src/core/refunds.ts, the rule the refund check applies) and its
 * explorer link. Null when some transfer could not be read now (the detail then says the payers are unknown).
 */
import { explorerAddressUrl } from '../../core/explorer';
import { refundLimits, type OwedInput } from '../../core/refunds';
import type { SellerException, SellerPayer } from '../../core/seller-api';
import { MAX_PAYMENTS_READ, payerKey, readPayers, type PayerCache } from '../payments/payers';
import type { PaymentRpc } from '../payments/rpc';

/** Who sent each ledger transfer (by signature; null: no sender), or null when the chain cannot be read now. */
export async function sendersOf(
  rpc: PaymentRpc | undefined,
  cache: PayerCache,
  mint: string,
  signatures: readonly string[],
): Promise<Map<string, { owner: string | null; account: string } | null> | null> {
  const read = signatures.slice(0, MAX_PAYMENTS_READ);
  const payers = await readPayers(rpc, cache, mint, read);
  if (!payers) return null;
  return new Map(read.map((s, i) => [s, payers[i] ?? null]));
}

/** The payers of the order, with what each is owed; `input` is the rule's input with each transfer's sender. */
export function sellerPayers(
  senders: ReadonlyMap<string, { owner: string | null; account: string } | null>,
  input: OwedInput & { signatures: readonly string[] },
  exceptions: readonly SellerException[],
  explorer: Parameters<typeof explorerAddressUrl>[1],
): SellerPayer[] {
  const byKey = new Map<string, SellerPayer>();
  input.signatures.forEach((signature, i) => {
    const d = senders.get(signature);
    if (!d) return;
    const key = payerKey(d);
    const payer = byKey.get(key) ?? {
      owner: d.owner,
      tokenAccount: d.account,
      explorerUrl: explorerAddressUrl(key, explorer),
      paidBaseUnits: '0',
      payments: [],
      owedBaseUnits: '0',
      refundLimits: {},
    };
    payer.paidBaseUnits = (BigInt(payer.paidBaseUnits) + input.payments[i]!.receivedBaseUnits).toString();
    payer.payments.push(signature);
    byKey.set(key, payer);
  });
  for (const exception of exceptions) {
    const limits = refundLimits(input, exception);
    for (const [key, payer] of byKey)
      payer.refundLimits[exception] = (limits.get(key)?.limitBaseUnits ?? 0n).toString();
  }
  // What is owed to each by the order's own rule (extra payments and an over-amount, or everything when the order
  // goes back whole: the limits of a refund that keeps the order), less what they had back.
  const owed = refundLimits(input, 'extra_payment');
  for (const [key, payer] of byKey) payer.owedBaseUnits = (owed.get(key)?.limitBaseUnits ?? 0n).toString();
  return [...byKey.values()];
}
