import { describe, expect, it } from 'vitest';
import {
  isFresh,
  nextPayoutEntry,
  notSetUpMessage,
  PAYOUT_ACCOUNT_TTL_MS,
  PAYOUT_UNKNOWN_MESSAGE,
  payoutRefusal,
} from './payout-account';

const T = 1_000_000;

describe('payout accounts: no QR to a recipient that cannot receive', () => {
  it('issues a payable link only when the account exists; missing is 409 in words, unknown is 503', () => {
    expect(payoutRefusal('exists', 'Gorilla Pack Genetics')).toBeNull();
    const missing = payoutRefusal('missing', 'Gorilla Pack Genetics');
    expect(missing).toMatchObject({ kind: 'conflict', code: 'payout_account_missing' });
    expect(missing?.message).toBe(notSetUpMessage('Gorilla Pack Genetics'));
    expect(missing?.message).toMatch(/^Gorilla Pack Genetics is not set up for QR payments yet/);
    const unknown = payoutRefusal('unknown', 'Gorilla Pack Genetics');
    expect(unknown).toMatchObject({ kind: 'unavailable', code: 'payout_account_unknown' });
    expect(unknown?.message).toBe(PAYOUT_UNKNOWN_MESSAGE);
  });

  it('believes an answer for its period: exists 10 min, missing 15 s, a failed read 5 s', () => {
    expect(isFresh(undefined, T)).toBe(false);
    expect(isFresh({ state: 'exists', checkedAt: T }, T + 10 * 60_000 - 1)).toBe(true);
    expect(isFresh({ state: 'exists', checkedAt: T }, T + 10 * 60_000)).toBe(false);
    expect(isFresh({ state: 'missing', checkedAt: T }, T + 14_999)).toBe(true);
    expect(isFresh({ state: 'missing', checkedAt: T }, T + 15_000)).toBe(false);
    expect(isFresh({ state: 'unknown', checkedAt: T }, T + 4_999)).toBe(true);
    expect(isFresh({ state: 'unknown', checkedAt: T }, T + 5_000)).toBe(false);
  });

  it('takes what the chain said: a missing account that was created reads exists', () => {
    expect(nextPayoutEntry({ state: 'missing', checkedAt: T }, 'exists', T + 15_000)).toEqual({
      state: 'exists',
      checkedAt: T + 15_000,
    });
    expect(nextPayoutEntry(undefined, 'missing', T)).toEqual({ state: 'missing', checkedAt: T });
  });

  it('a failed read never makes a missing (or never seen) account payable', () => {
    expect(nextPayoutEntry({ state: 'missing', checkedAt: T }, 'unknown', T + 20_000)).toEqual({
      state: 'unknown',
      checkedAt: T + 20_000,
    });
    expect(nextPayoutEntry(undefined, 'unknown', T)).toEqual({ state: 'unknown', checkedAt: T });
  });

  it('a failed read keeps an account seen existing, due again after the failed-read period', () => {
    const kept = nextPayoutEntry({ state: 'exists', checkedAt: T }, 'unknown', T + 11 * 60_000);
    expect(kept.state).toBe('exists');
    expect(isFresh(kept, T + 11 * 60_000 + PAYOUT_ACCOUNT_TTL_MS.unknown - 1)).toBe(true);
    expect(isFresh(kept, T + 11 * 60_000 + PAYOUT_ACCOUNT_TTL_MS.unknown)).toBe(false);
  });
});
