import { generateKeyPairSync, sign } from 'node:crypto';
import { Keypair, PublicKey } from '@solana/web3.js';
import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import { ed25519Verify } from './wire';

// The node's signature check (native ed25519) agrees with tweetnacl's, which it replaced, on the cases that matter.
describe('ed25519Verify', () => {
  const signer = Keypair.generate();
  const message = new TextEncoder().encode('a transaction message');
  const signature = nacl.sign.detached(message, signer.secretKey);
  const key = signer.publicKey.toBytes();

  it('accepts the signer’s signature over the message', () => {
    expect(ed25519Verify(message, signature, key)).toBe(true);
    expect(nacl.sign.detached.verify(message, signature, key)).toBe(true);
  });

  it('refuses a flipped bit in the signature or the message, another key, and malformed input', () => {
    for (let i = 0; i < 64; i += 9) {
      const forged = new Uint8Array(signature);
      forged[i] = forged[i]! ^ 1;
      expect(ed25519Verify(message, forged, key)).toBe(false);
      expect(nacl.sign.detached.verify(message, forged, key)).toBe(false);
    }
    const altered = new Uint8Array(message);
    altered[0] = altered[0]! ^ 1;
    expect(ed25519Verify(altered, signature, key)).toBe(false);
    expect(ed25519Verify(message, signature, Keypair.generate().publicKey.toBytes())).toBe(false);
    expect(ed25519Verify(message, new Uint8Array(64), key)).toBe(false);
    expect(ed25519Verify(message, signature.subarray(0, 63), key)).toBe(false);
    expect(ed25519Verify(message, signature, key.subarray(0, 31))).toBe(false);
  });

  it('verifies nothing for an address off the curve (a program-derived address cannot sign)', () => {
    const [pda] = PublicKey.findProgramAddressSync([Buffer.from('seed')], signer.publicKey);
    expect(PublicKey.isOnCurve(pda.toBytes())).toBe(false);
    expect(ed25519Verify(message, signature, pda.toBytes())).toBe(false);
  });

  it('accepts a signature made by Node’s own ed25519 (the same scheme, either side)', () => {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
    expect(ed25519Verify(message, sign(null, message, privateKey), raw)).toBe(true);
  });
});
