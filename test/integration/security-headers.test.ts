/**
 * Security headers and the order rate limit (src/server/http/security.ts), through the real composition.
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { demoKeys } from '../support/demo-keypairs';
import { loadSettings } from '../../src/server/settings';
import { closeLightServers, lightServer } from '../support/light-server';

afterEach(closeLightServers);

const server = (env: Record<string, string> = {}) => lightServer(env);

function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((p) => p[0])
      .map(([name, ...values]) => [name as string, values]),
  );
}

describe('security headers', () => {
  it('sends a strict Content-Security-Policy naming the RPC and WebSocket origins', async () => {
    const s = await server({ SOLANA_WS_URL: 'ws://127.0.0.1:8900/' });
    const res = await s.app.inject({ method: 'GET', url: '/api/health' });
    const csp = directives(String(res.headers['content-security-policy']));
    expect(csp.get('script-src')).toEqual(["'self'"]);
    // Styles: this origin, and the Android wallet's own screens by hash (mobile-wallet-styles.ts): its <style>
    // texts, and with 'unsafe-hashes' its two style attributes (the e2e Android journey checks they apply).
    const hash = (t: string) => `'sha256-${createHash('sha256').update(t).digest('base64')}'`;
    const styles = csp.get('style-src') ?? [];
    expect(styles[0]).toBe("'self'");
    expect(styles.slice(-3)).toEqual([
      "'unsafe-hashes'",
      hash('position: absolute; width: 100%; height: 100%;'),
      hash('mask-type:alpha'),
    ]);
    expect(styles.slice(1, -3)).toHaveLength(6);
    for (const s of styles.slice(1, -3)) expect(s).toMatch(/^'sha256-[A-Za-z0-9+/]{43}='$/);
    expect(csp.get('object-src')).toEqual(["'none'"]);
    expect(csp.get('base-uri')).toEqual(["'self'"]);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    expect(csp.get('font-src')).toEqual(["'self'"]);
    expect(csp.get('img-src')).toEqual(["'self'", 'data:', 'blob:']);
    expect(csp.get('connect-src')).toEqual([
      "'self'",
      'http://127.0.0.1:8899',
      'ws://127.0.0.1:8900',
      'ws://localhost:*',
      'http://localhost',
    ]);
    expect([...csp.values()].flat()).not.toContain("'unsafe-inline'");
    expect([...csp.values()].flat()).not.toContain("'unsafe-eval'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    // Plain-http demo: no HSTS, no upgrade-insecure-requests.
    expect(res.headers['strict-transport-security']).toBeUndefined();
    expect(csp.has('upgrade-insecure-requests')).toBe(false);
  });

  it('sends the same headers on refusals, unknown paths and every request alike', async () => {
    const s = await server();
    const first = await s.app.inject({ method: 'GET', url: '/api/health' });
    const answers = [
      first,
      await s.app.inject({ method: 'POST', url: '/api/quotes', payload: { items: [] } }),
      await s.app.inject({ method: 'GET', url: '/api/no-such-route' }),
      await s.app.inject({ method: 'GET', url: '/api/health' }),
    ];
    expect(answers.map((r) => r.statusCode)).toEqual([200, 400, 404, 200]);
    for (const r of answers) {
      expect(r.headers['content-security-policy']).toBe(first.headers['content-security-policy']);
      expect(r.headers['x-content-type-options']).toBe('nosniff');
      expect(r.headers['cross-origin-opener-policy']).toBe('same-origin-allow-popups');
      expect(r.headers['x-frame-options']).toBe('SAMEORIGIN');
      expect(r.headers['x-powered-by']).toBeUndefined();
    }
  });

  it('adds HSTS and upgrade-insecure-requests when the public URL is https', async () => {
    const s = await server({ PUBLIC_URL: 'https://shop.example' });
    const res = await s.app.inject({ method: 'GET', url: '/api/config' });
    expect(res.headers['strict-transport-security']).toMatch(/max-age=\d+/);
    expect(directives(String(res.headers['content-security-policy'])).has('upgrade-insecure-requests')).toBe(
      true,
    );
  });
});

describe('rate limit on quotes and orders', () => {
  it('answers 429 rate_limited with Retry-After past the limit, per route, and leaves reads alone', async () => {
    const s = await server({ RATE_LIMIT_ORDERS_PER_MINUTE: '3' });
    const quote = () => s.app.inject({ method: 'POST', url: '/api/quotes', payload: { items: [] } });
    for (let i = 0; i < 3; i++) expect((await quote()).statusCode).toBe(400);
    const limited = await quote();
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({
      error: 'rate_limited',
      message: expect.stringMatching(/try again/i),
    });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Orders count separately.
    const order = await s.app.inject({
      method: 'POST',
      url: '/api/orders',
      payload: {},
      headers: { 'idempotency-key': 'k1' },
    });
    expect(order.statusCode).toBe(400);
    // Reads are not limited.
    for (let i = 0; i < 10; i++)
      expect((await s.app.inject({ method: 'GET', url: '/api/catalog' })).statusCode).toBe(200);
  });

  it('is off with RATE_LIMIT_ORDERS_PER_MINUTE=0, and a bad value stops the start', async () => {
    const s = await server({ RATE_LIMIT_ORDERS_PER_MINUTE: '0' });
    for (let i = 0; i < 150; i++) {
      const res = await s.app.inject({ method: 'POST', url: '/api/quotes', payload: { items: [] } });
      expect(res.statusCode).toBe(400);
    }
    expect(() =>
      loadSettings(
        { RATE_LIMIT_ORDERS_PER_MINUTE: 'lots' },
        {
          claimMint: demoKeys().mint.toBase58(),
          recipients: {
            coopersglass: demoKeys().recipients.coopersglass.toBase58(),
            gorilla: demoKeys().recipients.gorilla.toBase58(),
          },
        },
      ),
    ).toThrow(/RATE_LIMIT_ORDERS_PER_MINUTE/);
  });
});
