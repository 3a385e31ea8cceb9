import { describe, expect, it } from 'vitest';
import { claimBaseUnits, formatBaseUnits, formatClaim, formatUsd, groupThousands } from './claim-amount';

describe('claimBaseUnits', () => {
  it('is exact and rounds half-up to 6 decimals', () => {
    expect(claimBaseUnits(32500, '0.001')).toBe(325_000_000_000n);
    expect(claimBaseUnits(100, '3')).toBe(333_333n);
    expect(claimBaseUnits(200, '3')).toBe(666_667n);
    expect(claimBaseUnits(201, '1')).toBe(2_010_000n); // the 2.01 * 10**6 float trap
    expect(formatBaseUnits(claimBaseUnits(5000, '0.0003') ?? 0n)).toBe('166666.666667');
  });
  it('gives null when there is no usable amount (Buy stays disabled)', () => {
    expect(claimBaseUnits(100, undefined)).toBeNull();
    expect(claimBaseUnits(null, '1')).toBeNull();
    expect(claimBaseUnits(100, '0')).toBeNull();
    expect(claimBaseUnits(100, 'abc')).toBeNull();
    expect(claimBaseUnits(0, '1')).toBeNull();
    expect(claimBaseUnits(Number.NaN, '1')).toBeNull();
  });
  it('formats USD cents', () => {
    expect(formatUsd(32500)).toBe('$325.00');
    expect(formatUsd(5)).toBe('$0.05');
    expect(formatUsd(123456789)).toBe('$1,234,567.89');
  });
});

describe('thousands separators', () => {
  it('groups the whole part only, exactly', () => {
    expect(formatClaim(1_166_666_666_667n)).toBe('1,166,666.666667');
    expect(formatClaim(650_000_000_000n)).toBe('650,000.000000');
    expect(formatClaim(999_000_000n)).toBe('999.000000');
    expect(groupThousands('1234')).toBe('1,234');
  });
});
