/**
 * GET /api/qr.svg (src/server/http/qr-route.ts) through buildApp: a solana: link comes back as an SVG QR code
 * that decodes to the same link (the SVG's module path rasterised here, then read with jsQR), cacheable,
 * under the strict CSP; anything else is a 400 with the ApiError body.
 */
import jsQR from 'jsqr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { catalog } from '../../catalog';
import { demoKeys } from '../../src/localnet/demo-keys';
import { buildApp } from '../../src/server/app';
import { MAX_QR_DATA, QR_ROUTE } from '../../src/server/http/qr-route';
import { loadSettings } from '../../src/server/settings';

let app: FastifyInstance;

beforeAll(async () => {
  const k = demoKeys();
  const settings = loadSettings(
    { PORT: '0' },
    {
      claimMint: k.mint.toBase58(),
      recipients: {
        coopersglass: k.recipients.coopersglass.toBase58(),
        gorilla: k.recipients.gorilla.toBase58(),
      },
    },
  );
  app = await buildApp({ settings, catalog });
});

afterAll(async () => {
  await app?.close();
});

const url = (data: string) => `${QR_ROUTE}?data=${encodeURIComponent(data)}`;

/**
 * The `qrcode` package's SVG: a viewBox of N×N modules and one dark path of horizontal runs
 * (`M x y.5h n m dx dy h n …`). Draws it at `scale` pixels per module into RGBA pixels for jsQR.
 */
function rasterise(svg: string, scale = 4): { data: Uint8ClampedArray; size: number } {
  const view = /viewBox="0 0 (\d+) (\d+)"/.exec(svg);
  const dark = /<path stroke="#000000" d="([^"]+)"/.exec(svg);
  if (!view || !dark) throw new Error(`unexpected SVG: ${svg.slice(0, 200)}`);
  const n = Number(view[1]);
  const size = n * scale;
  const data = new Uint8ClampedArray(size * size * 4).fill(255);
  let x = 0;
  let y = 0;
  for (const m of (dark[1] ?? '').matchAll(/([MmHh])\s*(-?[\d.]+)(?:[\s,]+(-?[\d.]+))?/g)) {
    const [, cmd, a, b] = m;
    if (cmd === 'M') [x, y] = [Number(a), Number(b)];
    else if (cmd === 'm') [x, y] = [x + Number(a), y + Number(b)];
    else {
      const to = cmd === 'h' ? x + Number(a) : Number(a);
      const row = Math.floor(y);
      for (let col = x; col < to; col++) {
        for (let py = row * scale; py < (row + 1) * scale; py++) {
          for (let px = col * scale; px < (col + 1) * scale; px++) {
            const i = (py * size + px) * 4;
            data[i] = data[i + 1] = data[i + 2] = 0;
          }
        }
      }
      x = to;
    }
  }
  return { data, size };
}

describe('GET /api/qr.svg', () => {
  const link =
    'solana:9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin?amount=650000.000000&spl-token=Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB&reference=82ZJ7nbGpixjeDCmEhUcmwXYfvurzAgGdtSMuHnUgyny&label=Cooper%27s%20Glass&message=Order%20ABC';

  it('draws a solana: link as an SVG QR code that decodes back to the link', async () => {
    const res = await app.inject({ method: 'GET', url: url(link) });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(res.headers['cache-control']).toBe('public, max-age=86400, immutable');
    expect(String(res.headers['content-security-policy'])).toContain("img-src 'self' data: blob:");
    expect(res.body.startsWith('<svg')).toBe(true);
    expect(res.body).toContain('shape-rendering="crispEdges"');
    const { data, size } = rasterise(res.body);
    expect(jsQR(data, size, size)?.data).toBe(link);
    // The same link again (served from the route's cache): the same image.
    const again = await app.inject({ method: 'GET', url: url(link) });
    expect(again.body).toBe(res.body);
  });

  it('draws a link of exactly the maximum length', async () => {
    const long = `solana:${'A'.repeat(MAX_QR_DATA - 'solana:'.length)}`;
    const res = await app.inject({ method: 'GET', url: url(long) });
    expect(res.statusCode).toBe(200);
    const { data, size } = rasterise(res.body);
    expect(jsQR(data, size, size)?.data).toBe(long);
  });

  it.each([
    ['missing', QR_ROUTE, /required/],
    ['empty', `${QR_ROUTE}?data=`, /required/],
    ['not a solana: link', url('https://evil.test/?x=1'), /solana: payment link/],
    ['a javascript: link', url('javascript:alert(1)'), /solana: payment link/],
    ['solana: with nothing after it', url('solana:'), /solana: payment link/],
    ['whitespace in the link', url('solana:abc def'), /solana: payment link/],
    ['too long', url(`solana:${'A'.repeat(MAX_QR_DATA)}`), /too long/],
    ['given twice', `${url('solana:abc')}&data=solana%3Adef`, /required/],
  ])('refuses %s with a 400 and the ApiError body', async (_what, path, message) => {
    const res = await app.inject({ method: 'GET', url: path });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.json<{ error: string; message: string; field?: string }>();
    expect(body.error).toBe('bad_request');
    expect(body.field).toBe('data');
    expect(body.message).toMatch(message);
  });
});
