/**
 * Security headers and the order rate limit, registered first in buildApp.
 *
 * - Helmet with a strict Content-Security-Policy: scripts, styles and fonts from this origin only (the built app
 *   has no inline script; React's `style={…}` goes through the CSSOM, which CSP does not restrict; the one inline
 *   style allowed is the Android Mobile Wallet Adapter's, by the sha256 of each of its texts: mobile-wallet-styles.ts),
 *   images also from data:/blob: (QR code), network calls to this origin and to the Solana RPC/WebSocket the
 *   browser uses, no plugins, no framing, no <base> hijack.
 * - @fastify/rate-limit on every API route that writes, sends mail or costs RPC, and on the QR drawing (per
 *   client and route), answered with the ApiError body (429 rate_limited) and Retry-After. With PostgreSQL
 *   the counters live in the database (src/server/ops/rate-limit-store.ts), shared by every instance.
 * - `clientKey(req)`: who a request comes from, for every per-client limit (rate limits here, the hold cap).
 */
import helmet from 'helmet';
import rateLimit, { type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isIPv4, isIPv6 } from 'node:net';
import type { Settings } from '../settings';
import { DomainError } from '../../core/errors';
import { QR_ROUTE } from './qr-route';
import { mobileWalletStyleSources } from './mobile-wallet-styles';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/**
 * Reads that are limited too: the buyer's order page by capability token, its HTML page and its data download
 * (no guessing tokens by brute force).
 */
const LIMITED_READS = new Set([
  'GET /api/order-pages/:token',
  'GET /api/order-pages/:token/data',
  'GET /order/:token',
  'GET /order/:token/data',
  // A Solana Pay transaction request's label (pay-routes.ts): a token in the path, as the order page's.
  'GET /api/pay/:token',
]);
/**
 * The seller console's sign-in routes have their own, tighter limit (`sellerAuthPerMinute`): each nonce is a row
 * in the store (GET /api/seller/nonce writes), each session attempt verifies a signature, and a person signs in a
 * few times a day. Signing out (DELETE /api/seller/session) keeps the general write limit.
 */
export const SELLER_AUTH_ROUTES = new Set([
  'GET /api/seller/nonce',
  'POST /api/seller/session',
  'POST /api/seller/demo-session',
]);

/** The 8 groups of an IPv6 address (`::` expanded, an embedded IPv4 tail as two groups), or undefined. */
function ipv6Groups(ip: string): number[] | undefined {
  let text = ip.split('%')[0] ?? ''; // no zone index
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const part = (h: string | undefined) => (h ? h.split(':').map((x) => parseInt(x, 16)) : []);
  const head = part(halves[0]);
  const tail = part(halves[1]);
  const groups =
    halves.length === 2
      ? [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail]
      : head;
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff)
    ? groups
    : undefined;
}

/**
 * The client key of an address: an IPv4 address is itself (an IPv4-mapped IPv6 address too: `::ffff:1.2.3.4` is
 * 1.2.3.4); an IPv6 address counts as its /64 (`2001:db8:1:2::/64`), the block one subscriber or host gets, so a
 * client cannot become 2^64 clients by changing the low bits. Anything else (no address) is kept as it is.
 */
export function clientKeyOf(ip: string): string {
  if (isIPv4(ip)) return ip;
  if (!isIPv6(ip)) return ip;
  const g = ipv6Groups(ip);
  if (!g) return ip;
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) {
    const [hi, lo] = [g[6] ?? 0, g[7] ?? 0];
    return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  }
  return `${g
    .slice(0, 4)
    .map((x) => x.toString(16))
    .join(':')}::/64`;
}

/**
 * Who a request comes from, for every per-client limit (the rate limits below, the cap on holds): the client's
 * address as Fastify sees it (behind a reverse proxy, TRUST_PROXY's hop count or proxy addresses make it the
 * forwarded one), grouped as `clientKeyOf` says (IPv6 by /64).
 */
export function clientKey(req: Pick<FastifyRequest, 'ip'>): string {
  return clientKeyOf(req.ip);
}

/** Origin of an http(s)/ws(s) URL for a CSP source list ('' when it has none). */
function originOf(url: string): string {
  try {
    const o = new URL(url).origin;
    return o === 'null' ? '' : o;
  } catch {
    return '';
  }
}

export function contentSecurityPolicy(settings: Settings): Record<string, string[]> {
  const connect = new Set(
    [
      "'self'",
      originOf(settings.solana.browserRpcUrl),
      originOf(settings.solana.browserWsUrl),
      // Android's Mobile Wallet Adapter: the page talks to the wallet app on the same phone through a local
      // WebSocket (any port the protocol picks), after a fetch of localhost that asks for Local Network Access.
      'ws://localhost:*',
      'http://localhost',
    ].filter(Boolean),
  );
  const directives: Record<string, string[]> = {
    'default-src': ["'self'"],
    'script-src': ["'self'"],
    // The Android wallet's own screens: the hashes of its <style> texts and style attributes (read from the package).
    'style-src': ["'self'", ...mobileWalletStyleSources()],
    'img-src': ["'self'", 'data:', 'blob:'],
    'font-src': ["'self'"],
    'connect-src': [...connect],
    'object-src': ["'none'"],
    'base-uri': ["'self'"],
    'form-action': ["'self'"],
    'frame-ancestors': ["'none'"],
  };
  if (settings.publicUrl.startsWith('https:')) directives['upgrade-insecure-requests'] = [];
  return directives;
}

export interface SecurityOptions {
  /** The shared database rate-limit store (PostgreSQL, several instances); omitted: in-memory per process. */
  rateLimitStore?: FastifyRateLimitStoreCtor;
}

/** The per-minute limit of a route, or 0 when the route is not limited. */
export function rateLimitFor(settings: Settings, method: string, url: string): number {
  if (method === 'GET' && url === QR_ROUTE) return settings.rateLimit.qrPerMinute;
  if (SELLER_AUTH_ROUTES.has(`${method} ${url}`)) return settings.rateLimit.sellerAuthPerMinute;
  if (LIMITED_READS.has(`${method} ${url}`)) return settings.rateLimit.perMinute;
  if (WRITE_METHODS.has(method) && url.startsWith('/api/')) return settings.rateLimit.perMinute;
  return 0;
}

export async function registerSecurity(
  app: FastifyInstance,
  settings: Settings,
  opts: SecurityOptions = {},
): Promise<void> {
  const https = settings.publicUrl.startsWith('https:');
  // Helmet's headers on every answer. Its middleware is made once, here (@fastify/helmet made it again for each
  // request: ~0.1 ms of the event loop per request, measured in bench:drop).
  const headers = helmet({
    contentSecurityPolicy: { useDefaults: false, directives: contentSecurityPolicy(settings) },
    // Wallets may open popups (Wallet Standard); keep the opener for them.
    crossOriginOpenerPolicy: { policy: 'same-origin-allow-popups' },
    strictTransportSecurity: https ? { maxAge: 15_552_000, includeSubDomains: true } : false,
  });
  app.addHook('onRequest', (req, reply, done) =>
    headers(req.raw, reply.raw, (err?: unknown) => done(err as Error | undefined)),
  );

  const { perMinute, qrPerMinute, sellerAuthPerMinute } = settings.rateLimit;
  if (perMinute <= 0 && qrPerMinute <= 0 && sellerAuthPerMinute <= 0) return;
  // Mark the limited routes as they are added (before @fastify/rate-limit's own onRoute hook reads the config):
  // every API route that writes (POST/PUT/PATCH/DELETE: quotes, orders, payment hints, confirmations, seller
  // actions), the QR drawing and the seller sign-in routes (nonce, session, demo session: their own limit). Reads of the catalogue, price, config and order status are never limited.
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const max = Math.max(0, ...methods.map((m) => rateLimitFor(settings, m, route.url ?? '')));
    if (max <= 0) return;
    route.config = {
      ...(route.config as object),
      rateLimit: { max, timeWindow: 60_000 },
    } as typeof route.config;
  });
  await app.register(rateLimit, {
    global: false,
    // The client (IPv6 by /64), as every per-client limit counts it.
    keyGenerator: clientKey,
    ...(opts.rateLimitStore ? { store: opts.rateLimitStore } : {}),
    // The shared store is down: serve rather than refuse (the routes themselves need the same database).
    skipOnError: true,
    errorResponseBuilder: (_req, ctx) =>
      new DomainError(
        'rate_limited',
        'rate_limited',
        `Too many requests from your address. Please try again in ${ctx.after}.`,
      ),
  });
}
