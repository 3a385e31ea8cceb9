/**
 * Sign-In-With-Solana message text (the Wallet Standard `solana:signIn` format, after EIP-4361), pure and
 * browser-safe. The seller console asks the wallet to sign it (its `signIn` where offered, which builds this
 * same text, else `signMessage` of `formatSiwsMessage`); the server parses the signed text back and checks
 * every field.
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
 */

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
}

/** The fields the console asks for (GET /api/seller/nonce), minus the address the wallet fills in. */
export type SiwsRequest = Omit<SiwsFields, 'address'> & {
  nonce: string;
  issuedAt: string;
  expirationTime: string;
};

const HEADER = ' wants you to sign in with your Solana account:';

const TAGS: [keyof SiwsFields, string][] = [
  ['uri', 'URI'],
  ['version', 'Version'],
  ['chainId', 'Chain ID'],
  ['nonce', 'Nonce'],
  ['issuedAt', 'Issued At'],
  ['expirationTime', 'Expiration Time'],
  ['notBefore', 'Not Before'],
  ['requestId', 'Request ID'],
];

export function formatSiwsMessage(f: SiwsFields): string {
  let text = `${f.domain}${HEADER}\n${f.address}`;
  if (f.statement) text += `\n\n${f.statement}`;
  const lines = TAGS.filter(([k]) => f[k] !== undefined).map(([k, tag]) => `${tag}: ${f[k]}`);
  if (lines.length) text += `\n\n${lines.join('\n')}`;
  return text;
}

export class SiwsParseError extends Error {
  override name = 'SiwsParseError';
}

/** Parses a signed SIWS text; throws SiwsParseError when it is not one (unknown line, missing address…). */
export function parseSiwsMessage(text: string): SiwsFields {
  const lines = text.split('\n');
  const first = lines[0] ?? '';
  if (!first.endsWith(HEADER)) throw new SiwsParseError('not a Sign-In-With-Solana message');
  const domain = first.slice(0, -HEADER.length);
  const address = lines[1] ?? '';
  if (!domain || !/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(address))
    throw new SiwsParseError('the message names no domain or no address');
  const fields: SiwsFields = { domain, address };
  let i = 2;
  // Optional statement: a blank line, the statement, and (if tags follow) another blank line.
  if (
    lines[i] === '' &&
    lines[i + 1] !== undefined &&
    !TAGS.some(([, t]) => lines[i + 1]!.startsWith(`${t}: `))
  ) {
    fields.statement = lines[i + 1];
    i += 2;
  }
  if (i < lines.length) {
    if (lines[i] !== '') throw new SiwsParseError('unexpected text after the address');
    i += 1;
  }
  let lastTag = -1;
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    const at = TAGS.findIndex(([, tag]) => line.startsWith(`${tag}: `));
    if (at < 0 || at <= lastTag) throw new SiwsParseError(`unexpected line '${line.slice(0, 40)}'`);
    lastTag = at;
    const [key, tag] = TAGS[at]!;
    fields[key] = line.slice(tag.length + 2);
  }
  return fields;
}
