/**
 * The pages: the built React app for every page path of the route table — the page's prerendered HTML (hydrated
 * by the app), 404 status and the prerendered 404 page for unknown paths, the bare app shell when the build has
 * no prerendered HTML — and the build's static files. Registered last: every API route comes first.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';
import { normalisePath, resolveScreen } from '../../core/routes';
import type { Catalog } from '../../core/catalog';
import { bootDataBlock, type BootDataSource } from './boot-data';
import type { PageBoot } from './boot-page';

export interface PageRouteDeps {
  catalog: Catalog;
  /** Directory of the built web app (vite build output). Omit to serve the API only. */
  webDir?: string;
  /** The price and public config each page carries inline (./boot-data.ts); omitted: pages without them. */
  boot?: BootDataSource;
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

const brotli = (buf: Buffer) =>
  brotliCompressSync(buf, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 5 } });
const gzip = (buf: Buffer) => gzipSync(buf, { level: 6 });

/**
 * The page with the boot data block (price, public config, the page's stock) before `</head>`, compressed at
 * request time (brotli quality 5, gzip level 6: well under a millisecond for a page) and kept until the block
 * changes (the price's age moves once a second), so a burst of visits compresses each page once. A block with a
 * QR quote is one request's own (a quote makes one order): compressed in the one encoding the client takes, never
 * kept.
 */
function bootPages(boot: BootDataSource) {
  const cache = new Map<string, { block: string; page: Page }>();
  return (
    key: string,
    html: string,
    data: PageBoot | undefined,
    acceptEncoding: string | undefined,
  ): Page => {
    const block = bootDataBlock(boot, data);
    const hit = cache.get(key);
    if (hit && hit.block === block) return hit.page;
    const full = html.replace('</head>', () => `${block}</head>`);
    const buf = Buffer.from(full);
    if (data?.qrQuote) {
      const accepted = acceptedEncodings(acceptEncoding);
      if (accepted.has('br')) return { html: full, br: brotli(buf), gz: undefined };
      return { html: full, br: undefined, gz: accepted.has('gzip') ? gzip(buf) : undefined };
    }
    const page: Page = { html: full, br: brotli(buf), gz: gzip(buf) };
    if (cache.size > 200) cache.clear();
    cache.set(key, { block, page });
    return page;
  };
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

export async function pageRoutes(app: FastifyInstance, deps: PageRouteDeps): Promise<void> {
  const webDir = deps.webDir;
  if (webDir && existsSync(resolve(webDir, 'index.html'))) {
    const shell = readFileSync(resolve(webDir, 'index.html'), 'utf8');
    const prerendered = loadPrerendered(webDir);
    const withBoot = deps.boot ? bootPages(deps.boot) : undefined;
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
    const servePage = async (req: FastifyRequest, reply: FastifyReply) => {
      const screen = resolveScreen(deps.catalog, req.url);
      // An order page is client-rendered data (the bare shell) for every well-formed token, known or not: the
      // status never tells whether a token names an order (the page's own API call answers that, rate-limited
      // like this route). Its title names no one ("Your order").
      const notFound = screen.kind === 'not-found';
      const path = normalisePath(req.url);
      const built = notFound ? prerendered?.notFound : prerendered?.pages.get(path);
      // The page's own boot data (its products' stock, a QR page's first quote): prerendered pages only.
      const data = built && !notFound && deps.boot?.page ? await deps.boot.page(screen) : undefined;
      const ae = req.headers['accept-encoding'];
      const page = withBoot
        ? withBoot(built ? (notFound ? '404' : path) : '', built?.html ?? shell, data, ae)
        : built;
      const { body, encoding } = page ? encodedPage(page, ae) : { body: shell };
      reply
        .status(notFound ? 404 : 200)
        .type('text/html; charset=utf-8')
        // A page with a quote is this visit's own: never stored, so no cache or back button serves it twice.
        .header('cache-control', data?.qrQuote ? 'no-store' : 'no-cache')
        .header('vary', 'Accept-Encoding');
      if (encoding) reply.header('content-encoding', encoding);
      // A capability URL: not indexed, never sent on as a Referer.
      if (screen.kind === 'order')
        reply.header('x-robots-tag', 'noindex').header('referrer-policy', 'no-referrer');
      return reply.send(body);
    };
    // The buyer's order page (a capability URL) is a route of its own, rate-limited per client IP as its API.
    app.get('/order/:token', servePage);
    // Its "Download my data" page: the same capability, the same limit.
    app.get('/order/:token/data', servePage);
    app.setNotFoundHandler(async (req, reply) => {
      if (req.method !== 'GET' && req.method !== 'HEAD')
        return reply.status(404).send({ error: 'not_found', message: 'Not found' });
      if (req.url.startsWith('/api/'))
        return reply.status(404).send({ error: 'not_found', message: `No API route ${req.url}` });
      // The build's prerender folder (HTML templates, manifest) is an implementation detail: never served.
      if (isPrerenderPath(req.url)) return sendNotFoundPage(reply, prerendered?.notFound, shell, req.headers);
      return servePage(req, reply);
    });
  } else {
    app.setNotFoundHandler((req, reply) =>
      reply.status(404).send({ error: 'not_found', message: `No route ${req.method} ${req.url}` }),
    );
  }
}
