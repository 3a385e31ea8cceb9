/** What the buyer's wallet lacks for a payment, found before any order is created or the wallet is asked. */
export type Shortfall =
  | { kind: 'no-token-account' }
  | { kind: 'claim'; have: bigint; need: bigint }
  | { kind: 'sol'; haveLamports: number; needLamports: number; createsSellerAccount: boolean };
