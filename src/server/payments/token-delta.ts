/**
 * What counts as money received (or sent back): the raw token balance change (post − pre, integer strings →
 * bigint) of the token accounts of a mint held by an owner — the accounts the node says it owns, or, when a node
 * omits owners, its associated token account for the mint. An account created in the transaction counts from
 * zero. The one rule for the payment judging (verify.ts) and the refund judging (refund.ts). Pure.
 */
import { associatedTokenAddress } from './ata';
import type { PaymentTransaction } from './rpc';

/** One token account's raw balance change in a transaction. */
export interface TokenAccountChange {
  /** The token account's address (undefined when the node's key list lacks it). */
  address: string | undefined;
  mint: string;
  /** Owner of the token account, null when the node omits it. */
  owner: string | null;
  delta: bigint;
}

function rawAmount(s: string): bigint {
  return /^\d+$/.test(s) ? BigInt(s) : 0n;
}

/** The associated token account of `owner` for `mint`, null when either is not a valid key. */
export function associatedTokenAccount(mint: string, owner: string): string | null {
  try {
    return associatedTokenAddress(mint, owner);
  } catch {
    return null;
  }
}

/** Each token account's raw balance change in a transaction (an account created in it counts from zero). */
export function tokenChanges(tx: PaymentTransaction): TokenAccountChange[] {
  const byIndex = new Map<number, { mint: string; owner: string | null; pre: bigint; post: bigint }>();
  for (const b of tx.preTokenBalances)
    byIndex.set(b.accountIndex, { mint: b.mint, owner: b.owner, pre: rawAmount(b.amount), post: 0n });
  for (const b of tx.postTokenBalances) {
    const seen = byIndex.get(b.accountIndex);
    if (seen) seen.post = rawAmount(b.amount);
    else byIndex.set(b.accountIndex, { mint: b.mint, owner: b.owner, pre: 0n, post: rawAmount(b.amount) });
  }
  return [...byIndex].map(([i, a]) => ({
    address: tx.accountKeys[i],
    mint: a.mint,
    owner: a.owner,
    delta: a.post - a.pre,
  }));
}

/**
 * Is the changed account `owner`'s? By the owner the node reports, else (owner omitted) by being `owner`'s
 * associated token account `ata` (from associatedTokenAccount).
 */
export function heldBy(change: TokenAccountChange, owner: string, ata: string | null): boolean {
  return change.owner !== null
    ? change.owner === owner
    : change.address !== undefined && change.address === ata;
}

/**
 * The rule: `owner`'s raw balance change of `mint` in the transaction (positive: received; negative: sent), summed
 * over its token accounts of that mint, so several transfers in one transaction add up. 0n for a failed one.
 */
export function tokenDelta(tx: PaymentTransaction, owner: string, mint: string): bigint {
  if (tx.err !== null && tx.err !== undefined) return 0n;
  const ata = associatedTokenAccount(mint, owner);
  let delta = 0n;
  for (const c of tokenChanges(tx)) if (c.mint === mint && heldBy(c, owner, ata)) delta += c.delta;
  return delta;
}
