import { describe, expect, it } from 'vitest';
import { captureReferral, referralFromSearch, REFERRER_MAX_LENGTH } from './referral';

describe('referral capture', () => {
  it('trims and caps the value', () => {
    expect(referralFromSearch('?ref=%20alice%20')).toBe('alice');
    expect(referralFromSearch(`?ref=${'x'.repeat(500)}`)).toHaveLength(REFERRER_MAX_LENGTH);
    expect(referralFromSearch('?ref=a%00b')).toBe('ab');
  });
  it('ignores missing or blank values', () => {
    expect(referralFromSearch('')).toBeNull();
    expect(referralFromSearch('?ref=%20%20')).toBeNull();
    expect(referralFromSearch('?other=1')).toBeNull();
  });
  it('stores under "referrer" and survives a throwing storage', () => {
    const store = new Map<string, string>();
    captureReferral('?ref=bob', { setItem: (k, v) => void store.set(k, v) });
    expect(store.get('referrer')).toBe('bob');
    expect(() =>
      captureReferral('?ref=bob', {
        setItem: () => {
          throw new Error('quota');
        },
      }),
    ).not.toThrow();
  });
});
