/** Why a wallet purchase stops before money moves (no heavy imports: the attempt module and its tests use these). */

/** What the buyer's wallet lacks for a payment, found before any order is created or the wallet is asked. */
export type Shortfall =
  | { kind: 'no-token-account' }
  | { kind: 'claim'; have: bigint; need: bigint }
  | { kind: 'sol'; haveLamports: number; needLamports: number; createsSellerAccount: boolean };

/** Stops the purchase before any order is created: the wallet lacks something (shown next to Buy Now). */
export class ShortfallStop extends Error {
  override name = 'ShortfallStop';
  constructor(readonly shortfall: Shortfall) {
    super(shortfall.kind);
  }
}

/** A stop with one of the spec's own alerts (not the generic 'Transaction or email logic failed: …'). */
export class CheckoutStop extends Error {
  override name = 'CheckoutStop';
}
