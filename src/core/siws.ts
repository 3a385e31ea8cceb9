/**
 * Sign-In-With-Solana message text: the Wallet Standard `solana:signIn` format (after EIP-4361 and CAIP-122),
 * formatted and parsed by the standard's own code (`@solana/wallet-standard-util`, the library wallets and
 * verifiers use), so the console, the wallet and the server agree byte for byte. Pure and browser-safe.
 *
 *   ${domain} wants you to sign in with your Solana account:
 *   ${address}
 *
 *   ${statement}
 *
 *   URI: ${uri}
 *   Version: 1
 *   Chain ID: ${chainId}
 *   Nonce: ${nonce}
 *   Issued At: ${issuedAt}
 *   Expiration Time: ${expirationTime}
 *   Not Before: ${notBefore}
 *   Request ID: ${requestId}
 *   Resources:
 *   - ${resources[0]}
 *
 * The parser accepts every field as optional, a `Resources:` section and trailing newlines, as the standard's
 * parser does; the server then requires each field to equal the one it issued (src/server/seller/auth.ts).
 */
import { createSignInMessageText, parseSignInMessageText } from '@solana/wallet-standard-util';

export interface SiwsFields {
  domain: string;
  address: string;
  statement?: string;
  uri?: string;
  version?: string;
  chainId?: string;
  nonce?: string;
  issuedAt?: string;
  expirationTime?: string;
  notBefore?: string;
  requestId?: string;
  resources?: string[];
}

/** The fields the console asks the wallet to sign (GET /api/seller/nonce), minus the address the wallet fills in. */
export type SiwsRequest = Omit<SiwsFields, 'address'> & {
  nonce: string;
  issuedAt: string;
  expirationTime: string;
};

/** Every field of a sign-in message but the domain and address, in the standard's order, with its label. */
export const SIWS_FIELDS: readonly (readonly [Exclude<keyof SiwsFields, 'domain' | 'address'>, string])[] = [
  ['statement', 'statement'],
  ['uri', 'URI'],
  ['version', 'Version'],
  ['chainId', 'Chain ID'],
  ['nonce', 'Nonce'],
  ['issuedAt', 'Issued At'],
  ['expirationTime', 'Expiration Time'],
  ['notBefore', 'Not Before'],
  ['requestId', 'Request ID'],
  ['resources', 'Resources'],
];

/** The standard text of a sign-in request for an address (`createSignInMessageText`). */
export function formatSiwsMessage(f: SiwsFields): string {
  return createSignInMessageText(f);
}

export class SiwsParseError extends Error {
  override name = 'SiwsParseError';
}

/** Parses a signed sign-in text (`parseSignInMessageText`); throws SiwsParseError when it is not one. */
export function parseSiwsMessage(text: string): SiwsFields {
  const parsed = parseSignInMessageText(text);
  if (!parsed) throw new SiwsParseError('not a Sign-In-With-Solana message');
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(parsed.address))
    throw new SiwsParseError('the message names no Solana address');
  const fields: SiwsFields = { domain: parsed.domain, address: parsed.address };
  for (const [key] of SIWS_FIELDS) {
    const value = parsed[key];
    if (value === undefined) continue;
    if (key === 'resources') fields.resources = [...(value as readonly string[])];
    else fields[key] = value as string;
  }
  return fields;
}

/** The standard text with the trailing newlines the standard's parser tolerates removed. */
export function canonicalSiwsText(text: string): string {
  return text.replace(/\n+$/, '');
}
