/**
 * A new payment reference: 32 random bytes from the operating system's CSPRNG, base58 (Solana Pay's `reference`:
 * "a base58-encoded 32 byte array … may or may not be public keys, on or off the curve"). Nobody can sign for it:
 * a point off the curve has no private key, and one on it has a key nobody knows. It is attached to the transfer
 * as a read-only non-signer account, which any 32 bytes may be. Before, a fresh ed25519 key pair's public half:
 * ~0.3 ms of the event loop for each quote (docs/decisions/drops.md "Where a refused buyer's time goes").
 */
import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';

export function newReference(): string {
  return bs58.encode(randomBytes(32));
}
