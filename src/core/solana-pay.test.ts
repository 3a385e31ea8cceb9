import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseURL, encodeURL } from 'solana-pay-client';
import { encodeTransferRequestUrl, quantityMessage, SolanaPayUrlError } from './solana-pay';

const recipient = 'GvHeR432g7MjN9uKyX3Dzg66TqwrEWgANLnnFZXMeyyj';
const mint = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const reference = '7ZP2S5fQkPaHmxHkKVQ6GvjFJbKJtj5R9NW6uUAvBuGx';

describe('encodeTransferRequestUrl', () => {
  it('builds the URL with a six-decimal amount', () => {
    const url = encodeTransferRequestUrl({
      recipient,
      amountBaseUnits: 1_234_500_000n,
      splToken: mint,
      reference,
      label: 'Gorilla Pack Genetics',
      message: '2 × Garlic Amaretto Live Resin',
    });
    expect(url).toBe(
      `solana:${recipient}?amount=1234.500000&spl-token=${mint}&reference=${reference}` +
        `&label=Gorilla%20Pack%20Genetics&message=2%20%C3%97%20Garlic%20Amaretto%20Live%20Resin`,
    );
  });

  it('round-trips through @solana/pay parseURL, special characters included', () => {
    const label = 'Coopers & Glass #1 ?=/+%';
    const message = '1 × Eagles XL "Joystick" Cropal Stick — 100% 🔥';
    const parsed = parseURL(
      encodeTransferRequestUrl({
        recipient,
        amountBaseUnits: 85_000_001n,
        splToken: mint,
        reference,
        label,
        message,
      }),
    );
    expect('recipient' in parsed).toBe(true);
    if (!('recipient' in parsed)) return;
    expect(String(parsed.recipient)).toBe(recipient);
    expect(String(parsed.splToken)).toBe(mint);
    expect(parsed.reference?.map(String)).toEqual([reference]);
    expect(parsed.label).toBe(label);
    expect(parsed.message).toBe(message);
    expect(String(parsed.amount)).toBe('85.000001');
  });

  it('agrees with @solana/pay encodeURL on every field (property)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 15n }),
        fc.string({ minLength: 1 }),
        fc.string({ minLength: 1 }),
        (units, label, message) => {
          const ours = parseURL(
            encodeTransferRequestUrl({
              recipient,
              amountBaseUnits: units,
              splToken: mint,
              reference,
              label,
              message,
            }),
          );
          const theirs = parseURL(
            // @solana/pay's own encoder (amount as a number: compare it through parse, where both become numbers)
            encodeURL({
              recipient: recipient as never,
              amount: (Number(units) / 1e6) as never,
              splToken: mint as never,
              reference: reference as never,
              label,
              message,
            }),
          );
          expect(ours).toEqual(theirs);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('refuses bad addresses and non-positive amounts', () => {
    const ok = { recipient, amountBaseUnits: 1n, splToken: mint, reference };
    expect(() => encodeTransferRequestUrl({ ...ok, recipient: 'not-an-address' })).toThrow(SolanaPayUrlError);
    expect(() => encodeTransferRequestUrl({ ...ok, splToken: '0OIl' })).toThrow(SolanaPayUrlError);
    expect(() => encodeTransferRequestUrl({ ...ok, reference: [reference, 'x'] })).toThrow(SolanaPayUrlError);
    expect(() => encodeTransferRequestUrl({ ...ok, amountBaseUnits: 0n })).toThrow(SolanaPayUrlError);
  });

  it('names the quantity in the message', () => {
    expect(quantityMessage([{ quantity: 2, name: 'Garlic Amaretto Live Resin' }])).toBe(
      '2 × Garlic Amaretto Live Resin',
    );
    expect(
      quantityMessage([
        { quantity: 1, name: 'A' },
        { quantity: 3, name: 'B' },
      ]),
    ).toBe('1 × A, 3 × B');
  });
});
