/**
 * Proof of money before a wallet hold (docs/decisions/holds.md, "A wallet hold needs the money"): Buy Now sends
 * the paying wallet's address and its signature over a message that binds that address to the quote's reference
 * (single use: a reference makes one order). The server verifies the signature, reads the wallet's $CLAIM and
 * holds only while the sum of that wallet's open holds stays within it. Browser-safe (the web app builds the same
 * message).
 */
import { z } from 'zod';
import { formatBaseUnits } from './money';

// The message itself lives in a module without zod, so the browser's wallet chunk does not carry zod.
export { holdProofMessage } from './hold-proof-message';

/** `payer` in POST /api/orders: the wallet (base58) and its ed25519 signature of holdProofMessage (base64). */
export const PayerProofSchema = z
  .object({
    address: z
      .string()
      .regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'payer.address must be a Solana address (base58)'),
    signature: z
      .string()
      .regex(/^[A-Za-z0-9+/]{86}==$/, 'payer.signature must be a 64-byte signature in base64'),
  })
  .strict();

export type PayerProof = z.infer<typeof PayerProofSchema>;

/** Why an order holds nothing (the answer's `holdNote`); absent when it holds. Spec has no text: plain words. */
export type NoHoldReason = 'no_proof' | 'balance' | 'unchecked';

export function noHoldNote(reason: NoHoldReason, amountBaseUnits?: bigint): string {
  const tail =
    'Until your payment arrives someone else can still buy it; if they do first, you are refunded in full.';
  switch (reason) {
    case 'balance':
      return `Not reserved: this wallet does not hold the ${amountBaseUnits !== undefined ? `${formatBaseUnits(amountBaseUnits)} ` : ''}$CLAIM this order costs on top of its other reserved orders. You can still pay. ${tail}`;
    case 'unchecked':
      return `Not reserved: the wallet's $CLAIM could not be checked just now. You can still pay. ${tail}`;
    case 'no_proof':
      return `Not reserved: no wallet showed it holds the $CLAIM for this order. You can still pay. ${tail}`;
  }
}
