/**
 * Who paid an order, for the console's detail: the token accounts (and their owners) each ledger transfer
 * debited, read from the chain through the payments' RPC port (the process's RPC budget). A confirmed
 * transaction never changes, so each one is read once per process and kept in a bounded cache; a read that fails
 * is not kept (the detail then says the payers are unknown for now). Reads only: the refund check
 * (./refund.ts) decides on its own reads whether a refund went to the payer.
 */
import { explorerAddressUrl } from '../../core/explorer';
import type { SellerPayer } from '../../core/seller-api';
import { tokenChanges } from '../payments/token-delta';
import { withTimeout, type PaymentRpc } from '../payments/rpc';

const RPC_TIMEOUT_MS = 5_000;
/** At most this many transfers of one order are read (as the refund check). */
const MAX_PAYMENTS_READ = 10;

/** The account one transfer debited most of the mint (its payer), or null when it debited none. */
type Debit = { owner: string | null; account: string } | null;

export interface PayerCache {
  get(signature: string): Debit | undefined;
  set(signature: string, debit: Debit): void;
}

/** A cache of at most `max` transfers (the oldest entry goes first). */
export function createPayerCache(max = 10_000): PayerCache {
  const map = new Map<string, Debit>();
  return {
    get: (s) => map.get(s),
    set(s, d) {
      map.set(s, d);
      if (map.size > max) map.delete(map.keys().next().value as string);
    },
  };
}

/** The order's payers, grouped by wallet, oldest first; null when some transfer could not be read now. */
export async function payersOf(
  rpc: PaymentRpc | undefined,
  cache: PayerCache,
  input: { mint: string; payments: readonly { signature: string; receivedBaseUnits: string }[] },
  explorer: Parameters<typeof explorerAddressUrl>[1],
): Promise<SellerPayer[] | null> {
  if (input.payments.length === 0) return [];
  const debits: Debit[] = [];
  for (const p of input.payments.slice(0, MAX_PAYMENTS_READ)) {
    let d = cache.get(p.signature);
    if (d === undefined) {
      if (!rpc) return null;
      try {
        const tx = await withTimeout('getTransaction', RPC_TIMEOUT_MS, () => rpc.getTransaction(p.signature));
        if (!tx) return null;
        let best: { owner: string | null; account: string; delta: bigint } | null = null;
        for (const c of tokenChanges(tx))
          if (c.mint === input.mint && c.delta < 0n && c.address && (!best || c.delta < best.delta))
            best = { owner: c.owner, account: c.address, delta: c.delta };
        d = best && { owner: best.owner, account: best.account };
        cache.set(p.signature, d);
      } catch {
        return null;
      }
    }
    debits.push(d);
  }
  const byKey = new Map<string, SellerPayer>();
  input.payments.slice(0, MAX_PAYMENTS_READ).forEach((p, i) => {
    const d = debits[i];
    if (!d) return;
    const key = d.owner ?? d.account;
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
