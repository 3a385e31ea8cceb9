/**
 * The seller console's refusals, raised by the seller modules and mapped to HTTP at the edge
 * (src/server/http/seller-routes.ts). `code` is the ApiError `error` field, `message` is shown to the seller.
 */
export type SellerRefusalKind =
  | 'invalid' // 400: malformed input
  | 'unauthenticated' // 401: no session, or the sign-in did not prove the wallet
  | 'forbidden' // 403: a wallet that is not a payout wallet, a cross-site request
  | 'not_found' // 404: no such order for this vendor
  | 'conflict' // 409: the order is not in a state for this action
  | 'unavailable'; // 503: the chain could not be read to check the action (try again)

export class SellerRefusal extends Error {
  override name = 'SellerRefusal';
  constructor(
    readonly kind: SellerRefusalKind,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

export const NOT_A_SELLER = "This wallet is not a seller's payout wallet.";
