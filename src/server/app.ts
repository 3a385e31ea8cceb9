import { existsSync, readFileSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';
import type { Catalog } from '../core/catalog';
import { normalisePath, resolveScreen } from '../core/routes';
import { publicConfig, type Settings } from './settings';
import { ApiProblem } from './http/errors';
import { qrRoute } from './http/qr-route';
import { registerSecurity } from './http/security';

export interface AppDeps {
  settings: Settings;
  catalog: Catalog;
  /** Directory of the built web app (vite build output). Omit to serve the API only. */
  webDir?: string;
  logger?: boolean;
  /** Readiness for GET /api/health (store open and migrated). Omitted: always ready. */
  health?: () => Promise<boolean> | boolean;
  /** Route plugins registered before the static/404 handlers (orders, price, payments, …). */
  plugins?: ((app: FastifyInstance) => Promise<void> | void)[];
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
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({ logger: deps.logger ?? false, bodyLimit: 64 * 1024 });

  app.setErrorHandler(
    (err: { statusCode?: number; validation?: unknown; message: string; code?: string }, _req, reply) => {
      if (err instanceof ApiProblem) return reply.status(err.status).send(err.body());
      const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500;
      if (status >= 500) {
        app.log.error(err);
        return reply
          .status(status)
          .send({ error: 'internal', message: 'Something went wrong on our side. Please try again.' });
      }
      return reply.status(status).send({ error: err.code ?? 'bad_request', message: err.message });
    },
  );

  await registerSecurity(app, deps.settings); // CSP and security headers; rate limit on quotes and orders

  app.get('/api/health', async (_req, reply) => {
    const ok = deps.health ? await deps.health() : true;
    return reply
      .status(ok ? 200 : 503)
      .send(ok ? { ok: true } : { ok: false, error: 'not_ready', message: 'The store is not open yet.' });
  });
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
    app.setNotFoundHandler((req, reply) => {
      if (req.method !== 'GET' && req.method !== 'HEAD')
        return reply.status(404).send({ error: 'not_found', message: 'Not found' });
      if (req.url.startsWith('/api/'))
        return reply.status(404).send({ error: 'not_found', message: `No API route ${req.url}` });
      const screen = resolveScreen(deps.catalog, req.url);
      const notFound = screen.kind === 'not-found';
      const page = notFound ? prerendered?.notFound : prerendered?.pages.get(normalisePath(req.url));
      const { body, encoding } = page ? encodedPage(page, req.headers['accept-encoding']) : { body: shell };
      reply
        .status(notFound ? 404 : 200)
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-cache')
        .header('vary', 'Accept-Encoding');
      if (encoding) reply.header('content-encoding', encoding);
      return reply.send(body);
    });
  } else {
    app.setNotFoundHandler((req, reply) =>
      reply.status(404).send({ error: 'not_found', message: `No route ${req.method} ${req.url}` }),
    );
  }

  return app;
}
