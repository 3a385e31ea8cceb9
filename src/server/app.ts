import { existsSync, readFileSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import fastifyStatic from '@fastify/static';
import type { Catalog } from '../core/catalog';
import { normalisePath, resolveScreen } from '../core/routes';
import { publicConfig, type Settings } from './settings';
import { installErrorHandler } from './http/errors';
import { qrRoute } from './http/qr-route';
import { registerSecurity } from './http/security';
import type { FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import { readiness } from './ops/health';
import { createMetrics } from './ops/metrics';
import type { OpsProbes } from './ops/probes';
import type { PriceSource } from './orders/quotes';
import { redact, redactRequestUrl } from './redact';
import type { Store } from './store/store';

export interface AppDeps {
  settings: Settings;
  catalog: Catalog;
  /** Directory of the built web app (vite build output). Omit to serve the API only. */
  webDir?: string;
  logger?: boolean;
  /** Where the logger writes (default stdout); tests read it. */
  logStream?: NodeJS.WritableStream;
  /** Readiness for GET /api/health (store open and migrated). Omitted: always ready. */
  health?: () => Promise<boolean> | boolean;
  /** Route plugins registered before the static/404 handlers (orders, price, payments, …). */
  plugins?: ((app: FastifyInstance) => Promise<void> | void)[];
  /** Whether a buyer order page token names an order (its HTML is then 200, else the 404 page). */
  orderPageExists?: (token: string) => Promise<boolean>;
  /** Operations: /api/health/ready and /metrics read the store, the price and these probes (all optional). */
  ops?: {
    store: Store;
    probes: OpsProbes;
    priceSource?: PriceSource;
    priceMaxAgeMs: number;
    /** Watcher lag above which ready is 503 (default WATCHER_MAX_LAG_S's 60). */
    watcherMaxLagSeconds?: number;
    now: () => Date;
  };
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

/** The build's prerendered pages (scripts/prerender.ts: dist/web/_prerender/manifest.json), read once. */
/** A prerendered page and its precompressed forms (scripts/compress.ts). */
interface Page {
  html: string;
  br: Buffer | undefined;
  gz: Buffer | undefined;
}

interface Prerendered {
  pages: Map<string, Page>;
  notFound: Page;
}

/** Encodings the client accepts (Accept-Encoding without the ones it refuses with q=0). */
function acceptedEncodings(header: string | undefined): Set<string> {
  const accepted = new Set<string>();
  for (const part of (header ?? '').split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (name && !(q && Number(q.slice(2)) === 0)) accepted.add(name);
  }
  return accepted;
}

/** The smallest form of the page the client accepts. */
function encodedPage(
  page: Page,
  acceptEncoding: string | undefined,
): { body: string | Buffer; encoding?: string } {
  const accepted = acceptedEncodings(acceptEncoding);
  if (page.br && accepted.has('br')) return { body: page.br, encoding: 'br' };
  if (page.gz && accepted.has('gzip')) return { body: page.gz, encoding: 'gzip' };
  return { body: page.html };
}

function loadPrerendered(webDir: string): Prerendered | undefined {
  const dir = resolve(webDir, '_prerender');
  const manifestFile = resolve(dir, 'manifest.json');
  if (!existsSync(manifestFile)) return undefined;
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as {
    pages: Record<string, string>;
    notFound: string;
  };
  const read = (file: string): Page => {
    const path = resolve(dir, file);
    const variant = (ext: string) => (existsSync(path + ext) ? readFileSync(path + ext) : undefined);
    return { html: readFileSync(path, 'utf8'), br: variant('.br'), gz: variant('.gz') };
  };
  return {
    pages: new Map(Object.entries(manifest.pages).map(([path, file]) => [path, read(file)])),
    notFound: read(manifest.notFound),
  };
}

/**
 * The HTTP surface: thin, schema-validated routes over the services. Serves the built React app for every
 * page path of the route table: the page's prerendered HTML (hydrated by the app), 404 status and the
 * prerendered 404 page for unknown paths; the bare app shell when the build has no prerendered HTML.
 */
/** /_prerender and anything below it, however spelled (case, encoded slashes, dot segments). */
function isPrerenderPath(url: string): boolean {
  let path = url.split('?')[0] ?? '';
  try {
    path = decodeURIComponent(path);
  } catch {
    // keep the raw path
  }
  const normal = path.replace(/\\/g, '/').replace(/\/+/g, '/').toLowerCase();
  return normal.split('/').includes('_prerender');
}

function timingSafeEqualText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function sendNotFoundPage(
  reply: FastifyReply,
  page: Page | undefined,
  shell: string,
  headers: { 'accept-encoding'?: string | string[] },
) {
  const ae = headers['accept-encoding'];
  const { body, encoding } = page
    ? encodedPage(page, Array.isArray(ae) ? ae.join(',') : ae)
    : { body: shell };
  reply
    .status(404)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-cache')
    .header('vary', 'Accept-Encoding');
  if (encoding) reply.header('content-encoding', encoding);
  return reply.send(body);
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const s = deps.settings;
  const app = Fastify({
    logger: loggerOptions(deps.logger, deps.logStream),
    bodyLimit: 64 * 1024,
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

  app.get('/api/health', async (_req, reply) => {
    const ok = deps.health ? await deps.health() : true;
    return reply
      .status(ok ? 200 : 503)
      .send(ok ? { ok: true } : { ok: false, error: 'not_ready', message: 'The store is not open yet.' });
  });
  // Liveness: the process answers (no dependency checked, so a database outage does not get it restarted).
  app.get('/api/health/live', async () => ({ ok: true }));
  const ops = deps.ops;
  if (ops) {
    app.get('/api/health/ready', async (_req, reply) => {
      const r = await readiness(ops);
      return reply.status(r.ready ? 200 : 503).send({
        ok: r.ready,
        ...(r.ready
          ? {}
          : { error: 'not_ready', message: `Not ready: ${r.failing.join(', ')}.`, failing: r.failing }),
        parts: r.parts,
      });
    });

    const metrics = createMetrics(ops);
    app.addHook('onResponse', async (req, reply) => {
      const route = req.routeOptions.url ?? 'unmatched';
      metrics.observeRequest(req.method, route, reply.statusCode, reply.elapsedTime / 1000);
    });
    // Open in demo mode; otherwise `Authorization: Bearer <METRICS_TOKEN>` (no token configured: closed).
    app.get('/metrics', async (req, reply) => {
      if (!s.demo) {
        const token = s.metricsToken;
        const given = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
        if (!token || !given || !timingSafeEqualText(given, token)) {
          return reply.status(401).header('www-authenticate', 'Bearer realm="metrics"').send({
            error: 'unauthorized',
            message: 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.',
          });
        }
      }
      const body = await metrics.registry.metrics();
      return reply.type(metrics.registry.contentType).header('cache-control', 'no-store').send(body);
    });
  }
  const catalogBody = JSON.stringify(deps.catalog); // serialised once: the catalogue does not change while we run
  app.get('/api/catalog', (_req, reply) => reply.type('application/json; charset=utf-8').send(catalogBody));
  app.get('/api/config', async () => publicConfig(deps.settings));
  qrRoute(app); // GET /api/qr.svg: the QR product pages' payment QR, drawn here instead of in the browser

  for (const plugin of deps.plugins ?? []) await plugin(app);

  const webDir = deps.webDir;
  if (webDir && existsSync(resolve(webDir, 'index.html'))) {
    const shell = readFileSync(resolve(webDir, 'index.html'), 'utf8');
    const prerendered = loadPrerendered(webDir);
    await app.register(fastifyStatic, {
      root: resolve(webDir),
      index: false,
      wildcard: false,
      preCompressed: true, // .br / .gz written at build time (scripts/compress.ts)
      // dist/web/_prerender/* (templates and manifest) answers 404 (allowedPath runs before any file lookup).
      allowedPath: (pathName) => !isPrerenderPath(pathName),
      cacheControl: false,
      setHeaders: (res, path) => {
        // Content-hashed build output never changes under its name; the rest (images, favicon) for an hour.
        const immutable = path.includes(`${sep}assets${sep}`);
        res.setHeader(
          'cache-control',
          immutable ? 'public, max-age=31536000, immutable' : 'public, max-age=3600',
        );
      },
    });
    app.setNotFoundHandler(async (req, reply) => {
      if (req.method !== 'GET' && req.method !== 'HEAD')
        return reply.status(404).send({ error: 'not_found', message: 'Not found' });
      if (req.url.startsWith('/api/'))
        return reply.status(404).send({ error: 'not_found', message: `No API route ${req.url}` });
      // The build's prerender folder (HTML templates, manifest) is an implementation detail: never served.
      if (isPrerenderPath(req.url)) return sendNotFoundPage(reply, prerendered?.notFound, shell, req.headers);
      const screen = resolveScreen(deps.catalog, req.url);
      // An order page is client-rendered data (the bare shell), and only for a token that names an order.
      const notFound =
        screen.kind === 'not-found' ||
        (screen.kind === 'order' && !(await (deps.orderPageExists?.(screen.token) ?? Promise.resolve(true))));
      const page = notFound ? prerendered?.notFound : prerendered?.pages.get(normalisePath(req.url));
      const { body, encoding } = page ? encodedPage(page, req.headers['accept-encoding']) : { body: shell };
      reply
        .status(notFound ? 404 : 200)
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-cache')
        .header('vary', 'Accept-Encoding');
      if (encoding) reply.header('content-encoding', encoding);
      // A capability URL: not indexed, never sent on as a Referer.
      if (screen.kind === 'order')
        reply.header('x-robots-tag', 'noindex').header('referrer-policy', 'no-referrer');
      return reply.send(body);
    });
  } else {
    app.setNotFoundHandler((req, reply) =>
      reply.status(404).send({ error: 'not_found', message: `No route ${req.method} ${req.url}` }),
    );
  }

  return app;
}
