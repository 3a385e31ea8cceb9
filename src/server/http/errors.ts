/**
 * The one place a refusal becomes HTTP: every route, hook and plugin throws DomainError (src/core/errors.ts) and the
 * app's error handler sends `statusOf(err.kind)` with its ApiError body. Anything else is Fastify's own 4xx
 * (a malformed JSON body, a body too large) or a 500 without details.
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import { DomainError, type DomainErrorKind } from '../../core/errors';

export const STATUS_OF: Record<DomainErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  rate_limited: 429,
  unavailable: 503,
};

export function statusOf(err: DomainError): number {
  return STATUS_OF[err.kind];
}

/** Installs the app's error handler: domain refusals mapped once; 5xx logged and answered without details. */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | DomainError, _req, reply) => {
    if (err instanceof DomainError) return reply.status(statusOf(err)).send(err.body());
    const code = 'statusCode' in err ? err.statusCode : undefined;
    const status = code && code >= 400 && code < 600 ? code : 500;
    if (status >= 500) {
      app.log.error(err);
      return reply
        .status(status)
        .send({ error: 'internal', message: 'Something went wrong on our side. Please try again.' });
    }
    return reply.status(status).send({ error: err.code ?? 'bad_request', message: err.message });
  });
}
