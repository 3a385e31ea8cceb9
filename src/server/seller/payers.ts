/**
 * "Who paid", for the console's order detail: the payer of each ledger transfer as the payments module reads it
 * (src/server/payments/payers.ts, the one rule the refund check uses too), grouped by wallet, oldest first, with
 * what each brought and its explorer link. Null when some transfer could not be read now (the detail then says
 * the payers are unknown for now).
 */
import { explorerAddressUrl } from '../../core/explorer';
import type { SellerPayer } from '../../core/seller-api';
import { MAX_PAYMENTS_READ, payerKey, readPayers, type PayerCache } from '../payments/payers';
import type { PaymentRpc } from '../payments/rpc';

export async function sellerPayers(
  rpc: PaymentRpc | undefined,
  cache: PayerCache,
  input: { mint: string; payments: readonly { signature: string; receivedBaseUnits: string }[] },
  explorer: Parameters<typeof explorerAddressUrl>[1],
): Promise<SellerPayer[] | null> {
  if (input.payments.length === 0) return [];
  const payments = input.payments.slice(0, MAX_PAYMENTS_READ);
  const payers = await readPayers(
    rpc,
    cache,
    input.mint,
    payments.map((p) => p.signature),
  );
  if (!payers) return null;
  const byKey = new Map<string, SellerPayer>();
  payments.forEach((p, i) => {
    const d = payers[i];
    if (!d) return;
    const key = payerKey(d);
    const payer = byKey.get(key) ?? {
      owner: d.owner,
      tokenAccount: d.account,
      explorerUrl: explorerAddressUrl(key, explorer),
      paidBaseUnits: '0',
      payments: [],
    };
    payer.paidBaseUnits = (BigInt(payer.paidBaseUnits) + BigInt(p.receivedBaseUnits)).toString();
    payer.payments.push(p.signature);
    byKey.set(key, payer);
  });
  return [...byKey.values()];
}
