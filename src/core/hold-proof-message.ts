/**
 * The text a wallet signs as proof of money before a hold (src/core/hold-proof.ts; docs/decisions/holds.md), in a
 * module of its own without dependencies so the browser's wallet chunk carries no schema library.
 */

/** The text the wallet signs (plain words: the wallet shows it). It moves no funds and approves nothing else. */
export function holdProofMessage(wallet: string, reference: string): string {
  return [
    'Reserve my order in the $CLAIM shop.',
    `Wallet: ${wallet}`,
    `Order reference: ${reference}`,
    'Signing this moves no funds: it shows this wallet holds the $CLAIM the order costs.',
  ].join('\n');
}
