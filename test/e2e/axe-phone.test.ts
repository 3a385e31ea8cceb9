/**
 * axe on every kind of page at 390 × 844 (a touch phone), as issue 33 asks: the shop's pages (home, guide, about,
 * giveaways, vendors, both catalogues, a wallet product, a QR product, sold-out pages of both kinds, the 404), the
 * buyer's order page and its readable "Download my data" page (of a paid order, so the e-mails exist too), the
 * demo's mailbox (list and a message) and price control, and the seller console signed in (orders, an order view,
 * stock, webhooks, sessions). No serious or critical violation anywhere, and no page of the first two wider than
 * the phone. The wallet picker is checked open at 390 px in wallet-buyer.test.ts ('wallet modal accessibility').
 */
import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { OrderCreated, QuoteResponse } from '../../src/core/api';
import { browserSuite } from '../support/browser-suite';
import { unexpectedErrors } from '../support/browser';
import { restock } from '../support/stock';

const PHONE = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true };
const PRODUCT_ID = 'sonic-crushed-opal-spillproof'; // Coopers Glass, paid with a wallet
const BUYER = {
  kind: 'international',
  fullName: 'Axel Checker',
  email: 'axel@axe-e2e.example',
  address1: '1 Contrast Lane',
  city: 'Lumen',
  stateProvince: 'Ratio',
  postalCode: '4500',
  country: 'Wcagland',
};

const suite = browserSuite();

let placed: Promise<OrderCreated & { token: string }> | undefined;
/** One wallet order for PRODUCT_ID, paid in full (its e-mails are written to the demo mailbox). */
const paidOrder = () => (placed ??= placeAndPay());

async function placeAndPay(): Promise<OrderCreated & { token: string }> {
  const { server } = suite;
  await restock(server.running, PRODUCT_ID, 5);
  let q: Response | undefined;
  for (let i = 0; i < 50; i++) {
    q = await fetch(`${server.url}/api/quotes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ items: [{ productId: PRODUCT_ID, quantity: 1 }] }),
    });
    if (q.status === 200) break;
    await new Promise((r) => setTimeout(r, 200)); // the demo price feed answers within a moment of start
  }
  expect(q?.status).toBe(200);
  const quote = (await q!.json()) as QuoteResponse;
  const o = await fetch(`${server.url}/api/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': `axe-e2e-${Date.now()}` },
    body: JSON.stringify({ quote: quote.quote, shipping: BUYER, paymentMethod: 'wallet' }),
  });
  expect(o.status).toBe(201);
  const created = (await o.json()) as OrderCreated;
  await server.running.orders.recordPayment(
    { orderId: created.orderId },
    {
      signature: '4'.repeat(88),
      receivedBaseUnits: BigInt(created.amountBaseUnits),
      finalized: true,
      blockTime: null,
    },
  );
  return { ...created, token: created.orderUrl.split('/order/')[1] ?? '' };
}

/** axe's serious and critical findings on the page as it is, in words (rule and where). */
async function serious(page: Page, what: string): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${what}: ${v.id} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

describe('axe at 390 px on every kind of page', () => {
  /** Each path once its ready element shows; axe's serious and critical findings over all of them. */
  async function sweep(pages: [string, string][]): Promise<void> {
    const { page, errors, close } = await suite.open(PHONE);
    const found: string[] = [];
    for (const [path, ready] of pages) {
      await page.goto(path);
      await page.locator(ready).first().waitFor();
      found.push(...(await serious(page, path)));
      // Nothing scrolls sideways (on a phone innerWidth grows with a too-wide page: compare with the screen).
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      if (width > PHONE.viewport.width) found.push(`${path}: ${width} px wide, scrolls sideways`);
    }
    expect(found).toEqual([]);
    // The demo pages name no icon: the browser's own /favicon.ico try is not the page's error.
    expect(unexpectedErrors(errors, [/\/no-such-page$/, /\/favicon\.ico$/])).toEqual([]);
    await close();
  }

  it('the shop: nothing serious or critical', { timeout: 240_000 }, async () => {
    await sweep([
      ['/', '[data-testid="claim-price"]'],
      ['/referrals', 'main h1'],
      ['/about', '[data-testid="mint-address"]'],
      ['/giveaways', '.countdown'],
      ['/vendors', 'main h1'],
      ['/vendors/coopersglass', '.product-grid'],
      ['/vendors/gorilla-pack-genetics', '.product-grid'],
      ['/vendors/coopersglass/product1', '.buy-now:not([disabled])'],
      ['/honey2', '[data-testid="qr-amount"]'],
      ['/strawberry-fritter', '.product-card'], // sold out: no QR, no form
      ['/bathsalts', 'main h1'], // every size sold out
      ['/no-such-page', 'main h1'],
    ]);
  });

  it(
    'the order page, "Download my data", the demo mailbox (a message as the buyer gets it) and price control',
    { timeout: 240_000 },
    async () => {
      const order = await paidOrder();
      await sweep([
        [`/order/${order.token}`, '[data-testid="order-details"]'],
        [`/order/${order.token}/data`, '[data-testid="my-data"]'],
        ['/dev/mail', 'tbody a'],
        ['/dev/price', 'table'],
      ]);
      const { page, close } = await suite.open(PHONE);
      await page.goto('/dev/mail');
      await page.locator('tbody a').first().click();
      const frame = page.locator('iframe');
      await frame.waitFor();
      // The message page around the frame (axe cannot run inside it: sandboxed, no scripts) ...
      const around = await new AxeBuilder({ page }).exclude('iframe').analyze();
      expect(around.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
      // ... and the HTML part itself, as the buyer's mail app gets it.
      const src = new URL((await frame.getAttribute('src')) ?? '', suite.server.url).href;
      const html = await (await fetch(src)).text();
      expect(html).toContain('<meta name="viewport"');
      await page.setContent(html);
      expect(await serious(page, 'the e-mail')).toEqual([]);
      await close();
    },
  );

  it(
    'the seller console signed in (demo vendor): orders, an order view, stock, webhooks, sessions',
    { timeout: 240_000 },
    async () => {
      const order = await paidOrder();
      const { page, close } = await suite.open(PHONE);
      await page.goto('/seller');
      await page.getByRole('button', { name: 'Sign in as demo vendor' }).click();
      await page.getByText('Signed in as').waitFor();
      const found: string[] = [];
      await page.locator(`[data-order="${order.orderId}"]`).waitFor();
      found.push(...(await serious(page, 'orders')));
      await page.locator(`[data-order="${order.orderId}"]`).getByRole('button').first().click();
      await page.getByRole('heading', { name: `Order ${order.orderId.slice(0, 8).toUpperCase()}` }).waitFor();
      found.push(...(await serious(page, 'order view')));
      await page.getByRole('button', { name: 'Back to orders' }).click();
      for (const tab of ['Stock', 'Webhooks', 'Sessions']) {
        await page.getByRole('button', { name: tab, exact: true }).click();
        await expect
          .poll(() => page.getByRole('button', { name: tab, exact: true }).getAttribute('aria-pressed'))
          .toBe('true');
        await page.waitForLoadState('networkidle').catch(() => undefined);
        found.push(...(await serious(page, tab)));
      }
      expect(found).toEqual([]);
      await close();
    },
  );
});
