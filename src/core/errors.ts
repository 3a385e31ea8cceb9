import type { ApiError } from './api';

/**
 * The one refusal type of the domain: what went wrong, without HTTP. The kind says what (bad input, no session,
 * not allowed, unknown, a conflict with what is stored, gone, too many requests, a dependency unavailable);
 * `code` and `message` are the ApiError body's (src/core/api.ts) and `message` is shown to people as is. The
 * HTTP edge (src/server/http/errors.ts) maps each kind to a status, once.
 */
export type DomainErrorKind =
  | 'invalid' // malformed input
  | 'unauthenticated' // no session, or a sign-in that did not prove the wallet
  | 'forbidden' // a wallet that is not a payout wallet, a cross-site request
  | 'not_found' // no such order (or not this seller's)
  | 'conflict' // the stored state does not allow it now
  | 'gone' // a quote or record that no longer exists
  | 'rate_limited' // too many requests from one client
  | 'unavailable'; // a dependency (price, chain) cannot answer now: try again

export class DomainError extends Error {
  override name = 'DomainError';
  constructor(
    readonly kind: DomainErrorKind,
    readonly code: string,
    message: string,
    readonly details: Pick<ApiError, 'field' | 'issues'> = {},
  ) {
    super(message);
  }

  body(): ApiError {
    return { error: this.code, message: this.message, ...this.details };
  }
}
