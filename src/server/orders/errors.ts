import type { ApiError } from '../../core/api';

/**
 * What the order domain refuses, and why, without HTTP: the kind says what went wrong (bad input, unknown order,
 * a conflict with what is stored, a quote that is gone, a dependency that is unavailable); the HTTP edge
 * (src/server/http/errors.ts) maps the kind to a status. `code` and `message` are the ApiError body's.
 */
export type OrderErrorKind = 'invalid' | 'not_found' | 'conflict' | 'gone' | 'unavailable';

export class OrderError extends Error {
  override name = 'OrderError';
  constructor(
    readonly kind: OrderErrorKind,
    readonly code: string,
    message: string,
    readonly details: Pick<ApiError, 'field' | 'issues'> = {},
  ) {
    super(message);
  }
}
