import { PublicKey } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { newReference } from './reference';

describe('newReference', () => {
  it('is 32 bytes in canonical base58 (an address Solana Pay and the chain accept), new each time', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const r = newReference();
      const key = new PublicKey(r);
      expect(key.toBase58()).toBe(r);
      expect(key.toBytes()).toHaveLength(32);
      seen.add(r);
    }
    expect(seen.size).toBe(2000);
  });
});
