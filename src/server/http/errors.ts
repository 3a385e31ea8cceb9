import type { ApiError } from '../../core/api';
import type { OrderError, OrderErrorKind } from '../orders/errors';
import { OutOfStockError } from '../../core/stock';

/**
 * A refusal with its HTTP status and the ApiError body (src/core/api.ts). Services throw it for input they
 * refuse; the app's error handler sends it as is. Anything else becomes a 500 without details.
 */
export class ApiProblem extends Error {
  override name = 'ApiProblem';
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
    readonly extra: Pick<ApiError, 'field' | 'issues'> = {},
  ) {
    super(message);
  }

  body(): ApiError {
    return { error: this.error, message: this.message, ...this.extra };
  }
}

/** The HTTP status of each kind of domain refusal (src/server/orders/errors.ts). */
const STATUS_OF: Record<OrderErrorKind, number> = {
  invalid: 400,
  not_found: 404,
  conflict: 409,
  gone: 410,
  unavailable: 503,
};

/** Maps a domain refusal to the HTTP refusal the error handler sends. */
export function problemOf(err: OrderError): ApiProblem {
  return new ApiProblem(STATUS_OF[err.kind], err.code, err.message, err.details);
}

/** The stock's refusal (src/core/stock.ts): 409 "Sold out" / "Only N left"; undefined for any other error. */
export function problemOfStockError(err: unknown): ApiProblem | undefined {
  if (!(err instanceof OutOfStockError)) return undefined;
  // 409: the request is well-formed, but the shop's stock cannot serve it now.
  return new ApiProblem(409, err.available > 0 ? 'low_stock' : 'sold_out', err.message, { field: 'items' });
}
