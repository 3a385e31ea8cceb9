/**
 * Who paid: the one rule for the seller console's "Who paid" and the refund check (./refund.ts). The payer of a
 * ledger transfer is the token account of the order's mint that the transaction debited most (and its owner, when
 * the node says): one payer per transfer, so a transaction that also moves someone else's dust cannot make that
 * someone a payer. A failed transaction, or one that debited none of the mint, has no payer.
 *
 * Reading: through the payments' RPC port (the process's RPC budget). A confirmed transaction never changes, so
 * each payer is read once per process and kept in a bounded cache; a read that fails is not kept (the caller then
 * says the payers are unknown for now). At most MAX_PAYMENTS_READ transfers of one order are read.
 */
import { withTimeout, type PaymentRpc, type PaymentTransaction } from './rpc';
import { tokenChanges } from './token-delta';

export const RPC_TIMEOUT_MS = 5_000;
/** At most this many ledger transfers of one order are read to learn who paid (each is one getTransaction). */
export const MAX_PAYMENTS_READ = 10;

/** The payer of one transfer: the debited token account and its owner (null when the node omits it). */
export interface Payer {
  owner: string | null;
  account: string;
}

/** A payer's identity across transfers: its owner (wallet) when known, else its token account. */
export const payerKey = (p: Payer): string => p.owner ?? p.account;

/** The payer of one ledger transfer: the account of `mint` the transaction debited most. Pure. */
export function payerOf(tx: PaymentTransaction, mint: string): Payer | null {
  if (tx.err !== null && tx.err !== undefined) return null;
  let best: { owner: string | null; account: string; delta: bigint } | null = null;
  for (const c of tokenChanges(tx))
    if (c.mint === mint && c.delta < 0n && c.address && (!best || c.delta < best.delta))
      best = { owner: c.owner, account: c.address, delta: c.delta };
  return best && { owner: best.owner, account: best.account };
}

export interface PayerCache {
  get(signature: string): Payer | null | undefined;
  set(signature: string, payer: Payer | null): void;
}

/** A cache of at most `max` transfers (the oldest entry goes first). */
export function createPayerCache(max = 10_000): PayerCache {
  const map = new Map<string, Payer | null>();
  return {
    get: (s) => map.get(s),
    set(s, p) {
      map.set(s, p);
      if (map.size > max) map.delete(map.keys().next().value as string);
    },
  };
}

/**
 * The payer of each of the first MAX_PAYMENTS_READ `signatures` (null: that transfer has no payer), in order.
 * Returns null when some transfer cannot be read now (no RPC, not found, or the read failed); `onError` sees why.
 */
export async function readPayers(
  rpc: PaymentRpc | undefined,
  cache: PayerCache,
  mint: string,
  signatures: readonly string[],
  onError?: (err: unknown) => void,
): Promise<(Payer | null)[] | null> {
  const out: (Payer | null)[] = [];
  for (const signature of signatures.slice(0, MAX_PAYMENTS_READ)) {
    let payer = cache.get(signature);
    if (payer === undefined) {
      if (!rpc) return null;
      try {
        const tx = await withTimeout('getTransaction', RPC_TIMEOUT_MS, () => rpc.getTransaction(signature));
        if (!tx) return null;
        payer = payerOf(tx, mint);
        cache.set(signature, payer);
      } catch (err) {
        onError?.(err);
        return null;
      }
    }
    out.push(payer);
  }
  return out;
}
