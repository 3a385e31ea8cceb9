import { PublicKey } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { newReference } from './reference';

describe('newReference', () => {
  it('is a base58 ed25519 public key (on the curve, as Solana Pay references are), new each time', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const r = newReference();
      const key = new PublicKey(r);
      expect(key.toBase58()).toBe(r);
      expect(key.toBytes()).toHaveLength(32);
      expect(PublicKey.isOnCurve(key.toBytes())).toBe(true);
      seen.add(r);
    }
    expect(seen.size).toBe(200);
  });
});
