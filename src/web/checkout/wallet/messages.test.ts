import { describe, expect, it } from 'vitest';
import { ApiRequestError } from '../../lib/call';
import { formatSol, plainError, shortfallText } from './messages';

describe('plain wallet-checkout messages', () => {
  it('maps the raw chain and wallet errors a buyer met to plain sentences', () => {
    expect(plainError(new Error('failed to send transaction: custom program error: 0x1'), false)).toBe(
      'Your wallet does not hold enough $CLAIM for this payment. Nothing was paid.',
    );
    expect(
      plainError(new Error('Attempt to debit an account but found no record of a prior credit.'), false),
    ).toBe('Your wallet does not have enough SOL to pay the network fee. Nothing was paid.');
    expect(
      plainError(Object.assign(new Error('x'), { code: 4001, message: 'User rejected the request.' }), false),
    ).toBe('User rejected the request.');
    expect(plainError(new Error('Blockhash not found'), false)).toMatch(/did not take the payment in time/);
    expect(plainError(new ApiRequestError(0, 'network', 'x'), false)).toBe(
      'The store could not be reached. Check your connection and try again.',
    );
    expect(plainError(new ApiRequestError(409, 'sold_out', 'Lilac TipTop is sold out.'), false)).toBe(
      'Lilac TipTop is sold out.',
    );
    // Once a transfer was sent, never claim that nothing was paid.
    expect(plainError(new Error('custom program error: 0x1'), true)).toMatch(/^Your payment was sent/);
    expect(plainError(new Error('???'), false)).toMatch(/Nothing was paid/);
  });

  it('says what is missing in exact amounts', () => {
    expect(formatSol(0)).toBe('0');
    expect(formatSol(5_000)).toBe('0.000005');
    expect(formatSol(2_039_280 + 10_000)).toBe('0.00204928');
    expect(formatSol(1_500_000_000)).toBe('1.5');
    expect(shortfallText({ kind: 'claim', have: 1_000_000n, need: 190_000_000_000n })).toContain(
      'Your wallet holds 1.000000 $CLAIM, but this order needs 190000.000000 $CLAIM.',
    );
    expect(
      shortfallText({ kind: 'sol', haveLamports: 0, needLamports: 2_049_280, createsSellerAccount: true }),
    ).toContain(
      "0.00204928 SOL is needed for the network fee and a one-time deposit that opens the seller's",
    );
  });
});
