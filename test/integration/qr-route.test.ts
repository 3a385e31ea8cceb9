/**
 * GET /api/qr.svg (src/server/http/qr-route.ts) on a real store (SQLite file): the shop's own payment link comes
 * back as an SVG QR code that decodes to the same link (the SVG's module path rasterised here, then read with
 * jsQR), cacheable, under the strict CSP; anything else — not a link, too long, a transaction request to another
 * server, a transfer to another wallet or of another token, a reference of no order, words the shop did not
 * write — is a 400 with the ApiError body, in words.
 */
import jsQR from 'jsqr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderCreated, QuoteResponse } from '../../src/core/api';
import { MAX_QR_DATA, QR_ROUTE } from '../../src/server/http/qr-route';
import { startServer, type RunningServer } from '../../src/server/server';
import { payoutAccountsAssumedToExist } from '../support/payout-accounts';
import { Clock, keys, RecordingTransport, sqliteBackend, testSettings, TestPrice } from './orders-support';

const backend = sqliteBackend();
let server: RunningServer;
/** A QR record's link and a wallet order's link, as the shop wrote them. */
let qrLink: string;
let walletLink: string;

beforeAll(async () => {
  const clock = new Clock();
  server = await startServer(testSettings(), {
    payoutAccounts: payoutAccountsAssumedToExist,
    store: await backend.fresh(),
    priceSource: new TestPrice(clock, '0.5'),
    transport: new RecordingTransport(),
    now: clock.now,
    listen: false,
    startOutbox: false,
    expireEveryMs: 0,
  });
  let n = 0;
  const place = async (productId: string, paymentMethod: 'qr' | 'wallet') => {
    const q = await server.app.inject({
      method: 'POST',
      url: '/api/quotes',
      payload: { items: [{ productId, quantity: 1 }] },
    });
    const o = await server.app.inject({
      method: 'POST',
      url: '/api/orders',
      headers: { 'idempotency-key': `qr-route-${++n}` },
      payload: {
        quote: q.json<QuoteResponse>().quote,
        paymentMethod,
        ...(paymentMethod === 'wallet'
          ? {
              shipping: {
                kind: 'international',
                fullName: 'Ada Lovelace',
                email: 'ada@example.com',
                address1: '12 St James Square',
                city: 'London',
                stateProvince: 'Greater London',
                postalCode: 'SW1Y 4JH',
                country: 'United Kingdom',
              },
            }
          : {}),
      },
    });
    expect(o.statusCode, o.body).toBe(201);
    return o.json<OrderCreated>().solanaPayUrl;
  };
  qrLink = await place('honey-dew-papaya-live-rosin', 'qr');
  walletLink = await place('sonic-crushed-opal-spillproof', 'wallet');
});

afterAll(async () => {
  await server?.close();
  await backend.cleanup();
});

const inject = (path: string) => server.app.inject({ method: 'GET', url: path });

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
  it('draws the shop’s payment link as an SVG QR code that decodes back to the link', async () => {
    const link = qrLink;
    const res = await inject(url(link));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(res.headers['cache-control']).toBe('public, max-age=86400, immutable');
    expect(String(res.headers['content-security-policy'])).toContain("img-src 'self' data: blob:");
    expect(res.body.startsWith('<svg')).toBe(true);
    expect(res.body).toContain('shape-rendering="crispEdges"');
    const { data, size } = rasterise(res.body);
    expect(jsQR(data, size, size)?.data).toBe(link);
    // The same link again (served from the route's cache): the same image.
    const again = await inject(url(link));
    expect(again.body).toBe(res.body);
    // The wallet checkout's payment link too.
    const wallet = await inject(url(walletLink));
    expect(wallet.statusCode, wallet.body).toBe(200);
    const drawn = rasterise(wallet.body);
    expect(jsQR(drawn.data, drawn.size, drawn.size)?.data).toBe(walletLink);
    // Its top-up link (same reference, the missing amount, the shop's top-up words).
    const ref = new URLSearchParams(qrLink.split('?')[1]).get('reference');
    const topUp = await server.store.db
      .selectFrom('orders')
      .select('id')
      .where('reference', '=', ref ?? '')
      .executeTakeFirstOrThrow();
    const topUpLink = `${qrLink.split('?')[0]}?amount=12.5&spl-token=${keys.mint}&reference=${ref}&label=${encodeURIComponent(new URLSearchParams(qrLink.split('?')[1]).get('label') ?? '')}&message=${encodeURIComponent(`Top-up for order ${topUp.id.slice(0, 8).toUpperCase()}`)}`;
    expect((await inject(url(topUpLink))).statusCode).toBe(200);
  });

  it('refuses what is not the shop’s own payment link, in words, and draws nothing', async () => {
    const [head = '', query = ''] = qrLink.split('?');
    const params = () => new URLSearchParams(query);
    const withParam = (key: string, value: string | null) => {
      const p = params();
      if (value === null) p.delete(key);
      else p.set(key, value);
      return `${head}?${p.toString()}`;
    };
    const cases: [string, string, RegExp][] = [
      [
        'a transaction request to another server',
        'solana:https://evil.example/api/pay?order=1',
        /transaction request/,
      ],
      [
        'an encoded transaction request',
        `solana:${encodeURIComponent('https://evil.example/tx')}`,
        /transaction request/,
      ],
      [
        'our other vendor’s wallet with this order’s reference',
        `solana:${head.slice('solana:'.length) === keys.gorilla ? keys.coopersglass : keys.gorilla}?${query}`,
        /for this vendor/,
      ],
      [
        'a transfer to a stranger’s wallet',
        `solana:9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin?${query}`,
        /wallet that is not one of this shop/,
      ],
      [
        'another token',
        withParam('spl-token', 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB'),
        /only \$CLAIM/,
      ],
      [
        'a reference of no order',
        withParam('reference', '82ZJ7nbGpixjeDCmEhUcmwXYfvurzAgGdtSMuHnUgyny'),
        /reference must be one of this shop/,
      ],
      ['no reference', withParam('reference', null), /reference must be one of this shop/],
      [
        'another order’s reference to this wallet',
        withParam('reference', new URLSearchParams(walletLink.split('?')[1]).get('reference')),
        /reference must be one of this shop/,
      ],
      [
        'words the shop did not write',
        withParam('message', 'Support: call +1 555 0100'),
        /message is not the one/,
      ],
      ['another label', withParam('label', 'Shop refunds desk'), /label is not the one/],
      ['a memo', withParam('memo', 'x'), /no 'memo' field/],
      ['a zero amount', withParam('amount', '0'), /positive/],
      [
        'a reference given twice',
        `${qrLink}&reference=${new URLSearchParams(query).get('reference')}`,
        /once/,
      ],
    ];
    for (const [what, link, message] of cases) {
      const res = await inject(url(link));
      expect(res.statusCode, what).toBe(400);
      const body = res.json<{ error: string; message: string; field?: string }>();
      expect(body.error, what).toBe('not_a_shop_payment_link');
      expect(body.field).toBe('data');
      expect(body.message, what).toMatch(/^This QR code is drawn only for this shop's payment links: /);
      expect(body.message, what).toMatch(message);
    }
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
    const res = await inject(path);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.json<{ error: string; message: string; field?: string }>();
    expect(body.error).toBe('bad_request');
    expect(body.field).toBe('data');
    expect(body.message).toMatch(message);
  });
});
