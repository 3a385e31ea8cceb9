import { describe, expect, it } from 'vitest';
import { stalePriceNote } from './price';

describe('stalePriceNote', () => {
  it('says nothing while the price is fresh, and how old it is in plain words once quotes no longer take it', () => {
    const known = (ageSeconds?: number) => ({
      status: 'known' as const,
      priceUsd: '0.5',
      fetchedAt: '2026-01-01T00:00:00Z',
      ...(ageSeconds === undefined ? {} : { ageSeconds }),
    });
    expect(stalePriceNote(known())).toBeNull();
    expect(stalePriceNote(known(60))).toBeNull();
    expect(stalePriceNote({ status: 'loading' })).toBeNull();
    expect(stalePriceNote(known(61))).toBe(
      'Last updated 1 minute ago: the price source is not answering right now, so this price is only a guide until it updates.',
    );
    expect(stalePriceNote(known(14 * 60))).toMatch(/^Last updated 14 minutes ago: /);
  });
});
