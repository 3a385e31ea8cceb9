/**
 * The demo shows the price guards: the demo feeds (DexScreener and GeckoTerminal shapes) and the /dev/price
 * control on one app, the price service reading them on a fake clock, pushed through `npm run demo:price` (the
 * real script, as a child process) and the page's form: a pump is ignored, a dump followed at once, a thin pool
 * and a split refuse quotes.
 */
import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDemoMarket,
  createPriceService,
  SOURCES_DISAGREE_MESSAGE,
  type PriceService,
} from '../../src/server/price';
import { demoPriceControlPlugin } from '../../src/server/http/demo-price-control-routes';
import { demoPriceFeedPlugin } from '../../src/server/http/demo-price-routes';
import { pricePlugin } from '../../src/server/http/price-routes';
import { PRICE_GUARD_DEFAULTS } from '../../src/server/settings';
import { startStack, type Stack } from '../support/stack';

const PAIR = 'DemoPair111111111111111111111111111111111111';
const MINT = 'DemoC1aim11111111111111111111111111111111111';
const run = promisify(execFile);

describe('demo price control', () => {
  let app: FastifyInstance;
  let service: PriceService;
  let base: string;
  let port: number;
  let clock = Date.parse('2030-05-01T00:00:00Z');
  const now = () => clock;

  beforeAll(async () => {
    const market = createDemoMarket();
    app = Fastify();
    await app.register(demoPriceFeedPlugin, { market, mint: MINT, now });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
    service = createPriceService(
      {
        apiUrl: `${base}/demo/dexscreener`,
        pairAddress: PAIR,
        refreshMs: 10_000,
        maxAgeMs: 60_000,
        timeoutMs: 2_000,
        ...PRICE_GUARD_DEFAULTS,
        secondSourceUrl: `${base}/demo/geckoterminal`,
      },
      { now, claimMint: MINT, source: 'demo' },
    );
    // Ten quiet minutes of history.
    for (let i = 0; i < 60; i++) {
      clock += 10_000;
      await service.refresh();
    }
    await app.close();
    app = Fastify();
    await app.register(demoPriceFeedPlugin, { market, mint: MINT, now });
    await app.register(demoPriceControlPlugin, { market, price: service, now });
    await app.register(pricePlugin, { service });
    await app.listen({ port, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await service.stop();
    await app.close();
  });

  const script = async (...args: string[]) =>
    (
      await run(process.execPath, ['--import', 'tsx', 'scripts/demo-price.ts', ...args], {
        env: { ...process.env, PORT: String(port) },
      })
    ).stdout;
  const quote = (out: string) => /quote for a \$325 piece \(\$CLAIM\)\s+(\S+)/.exec(out)?.[1];

  it('pump is ignored, dump followed, thin and split refuse, normal again', async () => {
    const calm = Number(quote(await script('normal')));
    expect(calm).toBeGreaterThan(70_000); // $325 at about $0.0042

    const pumped = await script('pump');
    expect(pumped).toMatch(/market\s+pump until \d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} UTC\n/); // the one date format
    expect(Math.abs(Number(quote(pumped)) - calm) / calm).toBeLessThan(0.1);
    const spot = /DexScreener spot \(USD\)\s+(\S+)/.exec(pumped)?.[1];
    expect(Number(spot)).toBeGreaterThan(0.011); // the spike is there; the quote ignores it

    const dumped = await script('dump');
    expect(Number(quote(dumped)) / calm).toBeGreaterThan(1.9); // twice the tokens, at once

    expect(await script('thin')).toMatch(
      /quotes refused\s+The \$CLAIM price cannot be trusted right now \(too little liquidity\)/,
    );
    expect((await (await fetch(`${base}/api/price`)).json()) as unknown).toMatchObject({
      error: 'price_untrusted',
      reason: 'low_liquidity',
    });
    expect(await script('split')).toContain(SOURCES_DISAGREE_MESSAGE);

    // The page's form: a redirect back to the page, which shows the state.
    const res = await fetch(`${base}/dev/price/normal`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
      redirect: 'manual',
    });
    expect([res.status, res.headers.get('location')]).toEqual([303, '/dev/price']);
    const page = await (await fetch(`${base}/dev/price`)).text();
    expect(page).toContain('<th scope="row">Market</th><td>normal</td>');
    expect(page).toMatch(/Quote for a \$325\.00 piece<\/th><td>\d+\.\d{6} \$CLAIM/);
    // Read on demand, never a timed reload (axe: meta-refresh, critical), made for a phone too, in the one date
    // format, under its own policy (its inline style allowed, nothing else).
    expect(page).not.toContain('http-equiv="refresh"');
    expect(page).toContain('<meta name="viewport" content="width=device-width,initial-scale=1">');
    expect(page).toMatch(
      /As of \d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} UTC · <a href="\/dev\/price">Refresh<\/a>/,
    );
    const policy = (await fetch(`${base}/dev/price`)).headers.get('content-security-policy') ?? '';
    expect(policy).toContain("style-src 'unsafe-inline'");
    expect(policy).toContain("default-src 'none'");

    await expect(script('moon')).rejects.toThrow(/usage: npm run demo:price/);
    expect((await fetch(`${base}/dev/price/moon`, { method: 'POST' })).status).toBe(400);
  });
});

describe('the demo store (npm start): demo feeds, second source, control and the sellers alert', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => stack?.close());

  it('serves a trusted price from both demo sources; a split refuses quotes and e-mails the seller once', async () => {
    const price = (await (await fetch(`${stack.url}/api/price`)).json()) as Record<string, unknown>;
    expect(price).toMatchObject({ source: 'demo', liquidityUsd: '48210.55' });
    expect(stack.server.price?.current()?.spreadBps).toBeLessThanOrEqual(31); // 0.3 % apart
    const page = await fetch(`${stack.url}/dev/price`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self'");

    const split = await fetch(`${stack.url}/dev/price/split`, { method: 'POST' });
    expect(((await split.json()) as { refusal: string }).refusal).toBe(SOURCES_DISAGREE_MESSAGE);
    const quote = await fetch(`${stack.url}/api/quotes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ items: [{ productId: 'garlic-amaretto-live-resin', quantity: 1 }] }),
    });
    expect(quote.status).toBe(503);
    expect(await quote.json()).toMatchObject({ error: 'price_untrusted', message: SOURCES_DISAGREE_MESSAGE });
    await stack.server.price?.refresh(); // still split: the same episode
    for (let i = 0; i < 100 && stack.mail.all().length === 0; i++)
      await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 500));
    const alerts = stack.mail.all().filter((m) => m.subject?.startsWith('$CLAIM price alert'));
    expect(alerts.map((m) => [m.subject, m.to && 'text' in m.to ? m.to.text : ''])).toEqual([
      ['$CLAIM price alert: quotes paused, the price sources disagree', '"Seller" <seller@shop.test>'],
    ]);
    await fetch(`${stack.url}/dev/price/normal`, { method: 'POST' });
    expect((await fetch(`${stack.url}/api/price`)).status).toBe(200);
  });
});
