import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  canonicalSiwsText,
  formatSiwsMessage,
  parseSiwsMessage,
  SiwsParseError,
  type SiwsFields,
} from './siws';

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
  resources: ['https://shop.example/seller'],
};
const TEXT = [
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
  'Resources:',
  '- https://shop.example/seller',
].join('\n');

describe('SIWS message text', () => {
  it('is the standard layout (Wallet Standard signIn / EIP-4361), Resources included', () => {
    expect(formatSiwsMessage(full)).toBe(TEXT);
    expect(parseSiwsMessage(TEXT)).toEqual(full);
  });

  it('accepts trailing newlines, as the standard parser does', () => {
    expect(parseSiwsMessage(`${TEXT}\n`)).toEqual(full);
    expect(parseSiwsMessage(`${TEXT}\n\n`)).toEqual(full);
    expect(canonicalSiwsText(`${TEXT}\n\n`)).toBe(TEXT);
  });

  it('parses back what it formats, with or without each field (property)', () => {
    const text = fc.stringMatching(/^[\w.:/ -]{1,30}$/).filter((s) => s.trim() === s && s.length > 0);
    fc.assert(
      fc.property(
        fc.record(
          {
            statement: text,
            uri: text,
            version: text,
            chainId: text,
            nonce: text,
            issuedAt: text,
            expirationTime: text,
            notBefore: text,
            requestId: text,
            resources: fc.array(text, { minLength: 1, maxLength: 3 }),
          },
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
    ['no Solana address', 'shop.example wants you to sign in with your Solana account:\nnot-an-address'],
  ])('refuses %s', (_what, text) => {
    expect(() => parseSiwsMessage(text)).toThrow(SiwsParseError);
  });
});
