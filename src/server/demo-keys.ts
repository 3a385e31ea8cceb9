/**
 * The demo chain's deterministic keys as the server needs them in demo mode: the mint's and the payout wallets'
 * addresses (demo-defaults.ts) and the demo seller's sign-in signature (http/seller-routes.ts), made with Node's
 * ed25519 and kit's address decoder, so the server's own code loads no web3.js. The localnet
 * (src/localnet/demo-keys.ts) makes the same key pairs from the same seeds, sha256(`claim-demo:${label}`)
 * (demo-keys.test.ts checks they agree). Never use them for anything of value.
 */
import { createHash, createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import { getAddressDecoder } from '@solana/kit';

/** PKCS #8 wrapping of a raw 32-byte ed25519 seed (RFC 8410). */
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

const addresses = getAddressDecoder();

/** The 32-byte ed25519 seed (private key) of the demo key labelled `label`. */
export function demoSeed(label: string): Uint8Array {
  return new Uint8Array(createHash('sha256').update(`claim-demo:${label}`).digest());
}

function privateKeyOf(label: string): KeyObject {
  return createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519, demoSeed(label)]),
    format: 'der',
    type: 'pkcs8',
  });
}

/** The address (base58 public key) of the demo key labelled `label` ('mint', `recipient:${group}`, …). */
export function demoAddress(label: string): string {
  const der = createPublicKey(privateKeyOf(label)).export({ format: 'der', type: 'spki' });
  // SPKI for ed25519 is a fixed 12-byte header followed by the 32-byte key.
  return addresses.decode(der.subarray(der.length - 32));
}

/** The ed25519 signature of `message` by the demo key labelled `label` (deterministic, as every ed25519 one). */
export function demoSign(label: string, message: Uint8Array): Uint8Array {
  return new Uint8Array(sign(null, message, privateKeyOf(label)));
}

/** The label of a payout group's demo wallet (a vendor added as data gets one too). */
export function demoRecipientLabel(group: string): string {
  return `recipient:${group}`;
}
