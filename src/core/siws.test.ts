import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatSiwsMessage, parseSiwsMessage, SiwsParseError, type SiwsFields } from './siws';

const ADDRESS = 'So11111111111111111111111111111111111111112';
const full: SiwsFields = {
  domain: 'shop.example',
  address: ADDRESS,
  statement: 'Sign in to the $CLAIM seller console with your payout wallet.',
  uri: 'https://shop.example',
  version: '1',
  chainId: 'mainnet',
  nonce: 'abc123',
  issuedAt: '2030-01-01T12:00:00.000Z',
  expirationTime: '2030-01-01T12:05:00.000Z',
};

describe('SIWS message text', () => {
  it('is the standard layout (Wallet Standard signIn / EIP-4361)', () => {
    expect(formatSiwsMessage(full)).toBe(
      [
        'shop.example wants you to sign in with your Solana account:',
        ADDRESS,
        '',
        'Sign in to the $CLAIM seller console with your payout wallet.',
        '',
        'URI: https://shop.example',
        'Version: 1',
        'Chain ID: mainnet',
        'Nonce: abc123',
        'Issued At: 2030-01-01T12:00:00.000Z',
        'Expiration Time: 2030-01-01T12:05:00.000Z',
      ].join('\n'),
    );
  });

  it('parses back what it formats, with or without statement and tags (property)', () => {
    const text = fc.stringMatching(/^[\w.:/ -]{1,30}$/).filter((s) => s.trim() === s && s.length > 0);
    fc.assert(
      fc.property(
        fc.record(
          { statement: text, uri: text, nonce: text, issuedAt: text, expirationTime: text },
          { requiredKeys: [] },
        ),
        (opt) => {
          const fields = { domain: 'shop.example', address: ADDRESS, ...opt } as SiwsFields;
          expect(parseSiwsMessage(formatSiwsMessage(fields))).toEqual(fields);
        },
      ),
    );
  });

  it.each([
    ['not a sign-in message', 'hello'],
    ['no address', 'shop.example wants you to sign in with your Solana account:\nnot-an-address'],
    ['an unknown line', `${formatSiwsMessage(full)}\nAdmin: yes`],
    [
      'tags out of order',
      formatSiwsMessage(full).replace('Version: 1\nChain ID: mainnet', 'Chain ID: mainnet\nVersion: 1'),
    ],
    ['a repeated tag', `${formatSiwsMessage(full)}\nNonce: other`],
  ])('refuses %s', (_what, text) => {
    expect(() => parseSiwsMessage(text)).toThrow(SiwsParseError);
  });
});
