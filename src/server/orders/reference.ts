/**
 * A new payment reference: the public key of a fresh ed25519 key pair (Solana Pay's `reference`), base58. Made
 * with Node's native ed25519 (about a tenth of the cost of a key pair made in JavaScript), written as an address
 * by @solana/kit's address decoder; the private half is never kept, so nobody can sign for it.
 */
import { generateKeyPairSync } from 'node:crypto';
import { getAddressDecoder } from '@solana/kit';

const addresses = getAddressDecoder();

export function newReference(): string {
  const der = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' });
  // SPKI for ed25519 is a fixed 12-byte header followed by the 32-byte key.
  return addresses.decode(der.subarray(der.length - 32));
}
