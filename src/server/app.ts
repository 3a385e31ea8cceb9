import { createServer } from 'node:http';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import { installErrorHandler } from './http/errors';
import { opsRoutes, type OpsRouteDeps } from './http/ops-routes';
import { pageRoutes, type PageRouteDeps } from './http/pages';
import { registerSecurity } from './http/security';
import { redact, redactRequestUrl } from './redact';

export interface AppDeps extends OpsRouteDeps, PageRouteDeps {
  logger?: boolean;
  /** Where the logger writes (default stdout); tests read it. */
  logStream?: NodeJS.WritableStream;
  /** Route plugins registered before the static/404 handlers (orders, price, payments, …). */
  plugins?: ((app: FastifyInstance) => Promise<void> | void)[];
  /** Shared rate-limit counters (PostgreSQL); omitted: per-process memory. */
  rateLimitStore?: FastifyRateLimitStoreCtor;
}

/**
 * Fastify's logger: JSON lines whose messages, errors and URLs are redacted (no keys, no e-mail addresses, no
 * search terms, no order page tokens, no client IPs).
 */
function loggerOptions(
  enabled: boolean | undefined,
  stream?: NodeJS.WritableStream,
): false | Record<string, unknown> {
  if (!enabled) return false;
  const errSerializer = (err: Error & { code?: string; statusCode?: number }) => ({
    type: err.name,
    message: redact(err.message),
    ...(err.code ? { code: err.code } : {}),
    ...(err.statusCode ? { statusCode: err.statusCode } : {}),
    stack: redact(err.stack ?? ''),
  });
  return {
    ...(stream ? { stream } : {}),
    serializers: {
      err: errSerializer,
      error: errSerializer,
      // No client IP: addresses are kept only as long as the rate limits need them (their own windows), never
      // in logs. The URL without search terms, order page tokens or whole order ids (redactRequestUrl).
      req: (req: { method: string; url: string }) => ({
        method: req.method,
        url: redactRequestUrl(req.url),
      }),
    },
    hooks: {
      logMethod(this: unknown, args: unknown[], method: (...a: unknown[]) => void) {
        method.apply(
          this,
          args.map((a) => (typeof a === 'string' ? redact(a) : a)),
        );
      },
    },
  };
}

/**
 * One log line per request, when it is answered: its method and redacted URL (the `req` serializer above), the
 * status and the time taken, instead of Fastify's two (incoming, completed): half the log writes, measured at 3–5 %
 * of an instance's time in a drop's first second (docs/decisions/drops.md).
 */
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: Parameters<LogController['requestCompleted']>[1],
    reply: Parameters<LogController['requestCompleted']>[2],
  ): void {
    if (this.isLogDisabled(request)) return;
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}

/**
 * The HTTP surface: one Fastify app whose every route lives in src/server/http/ — thin, schema-validated routes
 * over the services, refusals mapped once (./http/errors.ts) — and, last, the pages of the built React app
 * (./http/pages.ts).
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const s = deps.settings;
  const app = Fastify({
    logger: loggerOptions(deps.logger, deps.logStream),
    logController: new OneLinePerRequest(),
    bodyLimit: 64 * 1024,
    // While the server closes (after the drain, main.ts), a request still arriving on an open keep-alive
    // connection is served, with `Connection: close`, rather than refused with 503: the drain promises that every
    // request that reaches the instance is answered. Idle keep-alive connections are closed when the close starts
    // (forceCloseConnections 'idle', Fastify's default with a serverFactory).
    return503OnClosing: false,
    // Behind a reverse proxy, the client's address comes from X-Forwarded-For (rate limits, logs): TRUST_PROXY.
    // A number of hops trusts that many proxies in front of us (proxy-addr's rule, as Fastify documents it).
    trustProxy:
      typeof s.trustProxy === 'number'
        ? (
            (hops: number) => (_addr: string, i: number) =>
              i < hops
          )(s.trustProxy)
        : s.trustProxy,
    // A request must arrive whole within requestTimeoutMs (a body sent slowly is cut with 408), headers within
    // 10 s; idle sockets close a little later. Node checks open connections every second, not every 30 s.
    serverFactory: (handler) => {
      const server = createServer({ connectionsCheckingInterval: 1_000 }, handler);
      server.requestTimeout = s.requestTimeoutMs;
      server.headersTimeout = Math.min(10_000, s.requestTimeoutMs);
      server.keepAliveTimeout = 5_000;
      server.setTimeout(s.requestTimeoutMs + 5_000);
      return server;
    },
  });

  installErrorHandler(app);

  // CSP and security headers; rate limits on every writing, mailing or RPC-costing route and the QR drawing.
  await registerSecurity(
    app,
    deps.settings,
    deps.rateLimitStore ? { rateLimitStore: deps.rateLimitStore } : {},
  );

  opsRoutes(app, deps);

  for (const plugin of deps.plugins ?? []) await plugin(app);

  await pageRoutes(app, deps);

  return app;
}

/** Listens on settings.port and host (0: a free port) and returns the URL actually bound, http://host:port. */
export async function listenAt(app: FastifyInstance, at: { port: number; host: string }): Promise<string> {
  await app.listen({ port: at.port, host: at.host });
  const addr = app.server.address();
  if (!addr || typeof addr !== 'object') return '';
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return `http://${host}:${addr.port}`;
}
