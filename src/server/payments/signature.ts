/**
 * What a Solana transaction signature looks like: base58 of exactly 64 bytes (at most 88 characters). The one
 * pattern for every place that takes a signature: the watcher's hints, the ledger, the buyer's "I sent it" and
 * the seller's "Mark refunded". Pure.
 */
import bs58 from 'bs58';

const BASE58_64_TO_88 = /^[1-9A-HJ-NP-Za-km-z]{64,88}$/;

/** A Solana transaction signature: base58 of 64 bytes. */
export function isSignature(s: unknown): s is string {
  if (typeof s !== 'string' || !BASE58_64_TO_88.test(s)) return false;
  try {
    return bs58.decode(s).length === 64;
  } catch {
    return false;
  }
}
