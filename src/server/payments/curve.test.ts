import { createHash, randomBytes } from 'node:crypto';
import { getAddressDecoder, isOffCurveAddress } from '@solana/kit';
import { describe, expect, it } from 'vitest';
import { bytesAreOnCurve } from './curve';

const decoder = getAddressDecoder();
/** @solana/addresses' own answer, on the base58 address of the same bytes. */
const kitOnCurve = (bytes: Uint8Array) => !isOffCurveAddress(decoder.decode(bytes));

const le = (n: bigint) => {
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = Number((n >> BigInt(8 * i)) & 0xffn);
  return out;
};
const P = 2n ** 255n - 19n;

describe('bytesAreOnCurve', () => {
  it("agrees with @solana/addresses' isOffCurveAddress on random bytes, hashes and public keys", () => {
    const inputs: Uint8Array[] = [];
    for (let i = 0; i < 600; i++) inputs.push(randomBytes(32));
    // What a derivation tries: SHA-256 digests (about half of them on the curve).
    for (let i = 0; i < 600; i++) inputs.push(createHash('sha256').update(`seed ${i}`).digest());
    let on = 0;
    for (const bytes of inputs) {
      const ours = bytesAreOnCurve(bytes);
      expect(ours, Buffer.from(bytes).toString('hex')).toBe(kitOnCurve(bytes));
      if (ours) on++;
    }
    // Both answers occur (a check that always said one thing would fail above, or here).
    expect(on).toBeGreaterThan(400);
    expect(on).toBeLessThan(800);
  });

  it('agrees at the edges: y = 0, ±1 (x = 0, with and without the sign bit), p − 1, p and above, 2^255 − 1', () => {
    const ys = [0n, 1n, 2n, P - 1n, P, P + 1n, 2n ** 255n - 1n];
    for (const y of ys)
      for (const sign of [0, 0x80]) {
        const bytes = le(y);
        bytes[31] = (bytes[31]! & 0x7f) | sign;
        expect(bytesAreOnCurve(bytes), `y ${y} sign ${sign}`).toBe(kitOnCurve(bytes));
      }
    // y = 1 is the neutral point (x = 0): on the curve, but not with the sign bit set.
    const one = le(1n);
    expect(bytesAreOnCurve(one)).toBe(true);
    one[31] = 0x80;
    expect(bytesAreOnCurve(one)).toBe(false);
  });

  it('is false for anything but 32 bytes', () => {
    expect(bytesAreOnCurve(new Uint8Array(31))).toBe(false);
    expect(bytesAreOnCurve(new Uint8Array(33))).toBe(false);
  });
});
