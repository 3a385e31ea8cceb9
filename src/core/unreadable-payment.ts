/**
 * The buyer's words for a transaction the store could not read that may pay their order (the order module's
 * note: docs/decisions/transaction-versions.md). Pure and browser-safe.
 */

/** "4xYz…8kLm": a signature short enough to read aloud, long enough to find in a wallet's history. */
export const shortSignature = (s: string): string => (s.length > 12 ? `${s.slice(0, 4)}…${s.slice(-4)}` : s);

export function unreadablePaymentNote(signatures: readonly string[]): string {
  const which = signatures.map(shortSignature).join(', ');
  const one = signatures.length === 1;
  return (
    `${one ? 'A transaction' : 'Transactions'} for this order reached the seller in a form the store cannot ` +
    `read yet (${which}). If ${one ? 'it is' : 'one is'} your payment, it is not lost: the seller has been ` +
    'told and will check it by hand.'
  );
}
