import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { backoffMs } from './outbox';

describe('backoffMs', () => {
  it('doubles from 30 s, capped at an hour, with jitter between half and the full delay', () => {
    expect(backoffMs(1, 1)).toBe(30_000);
    expect(backoffMs(1, 0)).toBe(15_000);
    expect(backoffMs(2, 1)).toBe(60_000);
    expect(backoffMs(5, 1)).toBe(480_000);
    expect(backoffMs(50, 1)).toBe(3_600_000);
    expect(backoffMs(1_000_000, 0.5)).toBe(2_700_000);
  });
  it('stays within [base·2^(n−1)/2, min(cap, base·2^(n−1))] (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), fc.double({ min: 0, max: 1, noNaN: true }), (n, r) => {
        const full = Math.min(3_600_000, 30_000 * 2 ** Math.min(30, n - 1));
        const d = backoffMs(n, r);
        expect(d).toBeGreaterThanOrEqual(Math.floor(full / 2));
        expect(d).toBeLessThanOrEqual(full);
      }),
    );
  });
});
