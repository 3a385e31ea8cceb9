import type { ApiError } from '../../core/api';

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
