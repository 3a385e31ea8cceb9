/** Addresses on the demo chain: base58 text checked and turned into the 32 bytes LiteSVM takes (kit's codecs). */
import { getAddressEncoder, isAddress, type Address } from '@solana/kit';

const encoder = getAddressEncoder();

/** The address if `text` is a canonical base58 public key (32 bytes), else null. */
export function parseAddress(text: unknown): Address | null {
  return typeof text === 'string' && isAddress(text) ? text : null;
}

/** The 32 bytes of an address; throws when `text` is not one. */
export function addressBytes(text: string): Uint8Array {
  const a = parseAddress(text);
  if (a === null) throw new Error(`not a base58 public key: ${JSON.stringify(text)}`);
  return new Uint8Array(encoder.encode(a));
}
