/**
 * Solana Pay transfer request URLs (https://docs.solanapay.com/spec), built from exact amounts. Browser-safe:
 * no node imports, no web3.js (addresses are checked as base58 text; the server checks them as keys).
 * Consistent with @solana/pay's encodeURL/parseURL (tested by round trip), except that the amount is written
 * with exactly six decimals (the token's precision) instead of a float's shortest form.
 */
import { formatBaseUnits } from './money';

export const SOLANA_PAY_PROTOCOL = 'solana:';
const BASE58_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

export interface TransferRequest {
  recipient: string;
  /** Amount in token base units (6 decimals). */
  amountBaseUnits: bigint;
  splToken: string;
  reference: string | string[];
  label?: string;
  message?: string;
  memo?: string;
}

export class SolanaPayUrlError extends Error {
  override name = 'SolanaPayUrlError';
}

export function isBase58Address(s: string): boolean {
  return BASE58_ADDRESS.test(s);
}

/** Percent-encodes like encodeURIComponent (spaces as %20, which every wallet decodes; never '+'). */
const enc = (s: string) => encodeURIComponent(s);

export function encodeTransferRequestUrl(req: TransferRequest): string {
  const check = (name: string, v: string) => {
    if (!isBase58Address(v)) throw new SolanaPayUrlError(`${name} is not a base58 address: '${v}'`);
  };
  check('recipient', req.recipient);
  check('spl-token', req.splToken);
  const refs = Array.isArray(req.reference) ? req.reference : [req.reference];
  refs.forEach((r) => check('reference', r));
  if (req.amountBaseUnits <= 0n) throw new SolanaPayUrlError('amount must be greater than zero');

  const params: string[] = [`amount=${formatBaseUnits(req.amountBaseUnits)}`, `spl-token=${req.splToken}`];
  for (const r of refs) params.push(`reference=${r}`);
  if (req.label) params.push(`label=${enc(req.label)}`);
  if (req.message) params.push(`message=${enc(req.message)}`);
  if (req.memo) params.push(`memo=${enc(req.memo)}`);
  return `${SOLANA_PAY_PROTOCOL}${req.recipient}?${params.join('&')}`;
}

/** The message naming the quantity, e.g. '2 × Garlic Amaretto Live Resin'. */
export function quantityMessage(items: { quantity: number; name: string }[]): string {
  return items.map((i) => `${i.quantity} × ${i.name}`).join(', ');
}
