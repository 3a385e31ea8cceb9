/**
 * Security headers and the order rate limit, registered first in buildApp.
 *
 * - Helmet with a strict Content-Security-Policy: scripts, styles and fonts from this origin only (the built app
 *   has no inline script; React's `style={…}` goes through the CSSOM, which CSP does not restrict), images also
 *   from data:/blob: (QR code), network calls to this origin and to the Solana RPC/WebSocket the browser uses,
 *   no plugins, no framing, no <base> hijack.
 * - @fastify/rate-limit on POST /api/quotes and POST /api/orders only (per client IP, per route), answered with
 *   the ApiError body (429 rate_limited) and Retry-After. settings.rateLimit.perMinute = 0 turns it off.
 */
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { Settings } from '../settings';
import { ApiProblem } from './errors';

export const RATE_LIMITED_ROUTES: readonly string[] = ['POST /api/quotes', 'POST /api/orders'];

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
    ["'self'", originOf(settings.solana.rpcUrl), originOf(settings.solana.wsUrl)].filter(Boolean),
  );
  const directives: Record<string, string[]> = {
    'default-src': ["'self'"],
    'script-src': ["'self'"],
    'style-src': ["'self'"],
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

export async function registerSecurity(app: FastifyInstance, settings: Settings): Promise<void> {
  const https = settings.publicUrl.startsWith('https:');
  await app.register(helmet, {
    contentSecurityPolicy: { useDefaults: false, directives: contentSecurityPolicy(settings) },
    // Wallets may open popups (Wallet Standard); keep the opener for them.
    crossOriginOpenerPolicy: { policy: 'same-origin-allow-popups' },
    strictTransportSecurity: https ? { maxAge: 15_552_000, includeSubDomains: true } : false,
  });

  const max = settings.rateLimit.perMinute;
  if (max <= 0) return;
  // Mark the limited routes as they are added (before @fastify/rate-limit's own onRoute hook reads the config).
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.some((m) => RATE_LIMITED_ROUTES.includes(`${m} ${route.url}`))) return;
    route.config = {
      ...(route.config as object),
      rateLimit: { max, timeWindow: 60_000 },
    } as typeof route.config;
  });
  await app.register(rateLimit, {
    global: false,
    errorResponseBuilder: (_req, ctx) =>
      new ApiProblem(
        429,
        'rate_limited',
        `Too many requests from your address. Please try again in ${ctx.after}.`,
      ),
  });
}
