/**
 * A new payment reference: the public key of a fresh ed25519 key pair (Solana Pay's `reference`), base58. Made
 * with Node's native ed25519 (about a tenth of the cost of web3.js's Keypair.generate, which runs in JavaScript);
 * the private half is never kept, so nobody can sign for it.
 */
import { generateKeyPairSync } from 'node:crypto';
import { PublicKey } from '@solana/web3.js';

export function newReference(): string {
  const der = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' });
  // SPKI for ed25519 is a fixed 12-byte header followed by the 32-byte key.
  return new PublicKey(der.subarray(der.length - 32)).toBase58();
}
