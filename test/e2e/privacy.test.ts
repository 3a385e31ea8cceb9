/**
 * The buyer's control over their data, end to end: headless Chromium on the built app and the real server (SQLite
 * file, sealed details). The order page shows what is kept, "Download my data" downloads everything kept (the
 * details and the e-mails sent), "Delete my details" is refused before shipping with "cancel instead", and after
 * cancelling erases the details for good. The order page's HTML route says nothing about whether a token exists,
 * names no one in its title, and is rate-limited like its API.
 */
import { readFileSync } from 'node:fs';
import AxeBuilder from '@axe-core/playwright';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderCreated, OrderDataExport, QuoteResponse } from '../../src/core/api';
import {
  launchBrowser,
  openPage,
  startTestServer,
  unexpectedErrors,
  type TestServer,
} from '../support/browser';
import { restock } from '../support/stock';

const BUYER = {
  kind: 'international',
  fullName: 'Ottoline Periwinkle-Sparrow',
  email: 'ottoline.ps@privacy-e2e.example',
  address1: '9 Lanternlight Mews',
  city: 'Mistbridge',
  stateProvince: 'Fogshire',
  postalCode: 'MB1 9LL',
  country: 'Secretland',
};

/** The buyer reads the order page on a phone. */
const PHONE = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true };

let server: TestServer;
let browser: Browser;
let n = 0;

beforeAll(async () => {
  [server, browser] = await Promise.all([
    startTestServer({ RATE_LIMIT_ORDERS_PER_MINUTE: '40' }, { retention: false }),
    launchBrowser(),
  ]);
  await restock(server.running, 'sonic-crushed-opal-spillproof', 10);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function placeOrder(): Promise<OrderCreated & { token: string }> {
  let q: Response | undefined;
  // The demo price feed answers within a moment of start.
  for (let i = 0; i < 50; i++) {
    q = await fetch(`${server.url}/api/quotes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ items: [{ productId: 'sonic-crushed-opal-spillproof', quantity: 1 }] }),
    });
    if (q.status === 200) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(q?.status).toBe(200);
  const quote = (await q!.json()) as QuoteResponse;
  const o = await fetch(`${server.url}/api/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': `privacy-e2e-${++n}` },
    body: JSON.stringify({ quote: quote.quote, shipping: BUYER, paymentMethod: 'wallet' }),
  });
  expect(o.status).toBe(201);
  const created = (await o.json()) as OrderCreated;
  return { ...created, token: created.orderUrl.split('/order/')[1] ?? '' };
}

describe('buyer privacy on the order page', () => {
  it('downloads my data, refuses deletion before shipping, cancels instead, then deletes my details', async () => {
    const order = await placeOrder();
    const { page, errors, close } = await openPage(browser, server.url, { ...PHONE, acceptDownloads: true });
    try {
      await page.goto(`/order/${order.token}`);
      const section = page.getByTestId('order-privacy');
      await expect.poll(() => section.getAttribute('data-details')).toBe('kept');
      expect(await page.title()).not.toContain('Ottoline');
      expect(await section.innerText()).toMatch(/keeps your name, e-mail and shipping address encrypted/);
      // The details as typed (a typo can be caught), the e-mail masked.
      const details = page.getByTestId('order-details');
      expect(await details.innerText()).toContain(BUYER.fullName);
      expect(await details.innerText()).toContain('9 Lanternlight Mews');
      expect(await details.innerText()).toContain('Mistbridge, Fogshire MB1 9LL');
      expect(await page.getByTestId('order-email').innerText()).toBe('o•••@privacy-e2e.example');
      expect(await page.content()).not.toContain(BUYER.email);

      // Download my data: a page a phone can read, with the JSON file beside it.
      await page.getByTestId('download-my-data').click();
      await page.waitForURL(`**/order/${order.token}/data`);
      const readable = page.getByTestId('my-data');
      await readable.waitFor();
      expect(await page.getByTestId('my-data-details').innerText()).toContain(BUYER.email);
      expect(await readable.innerText()).toContain(
        `Your data for order ${order.orderId.slice(0, 8).toUpperCase()}`,
      );
      // Nothing scrolls sideways: on a phone innerWidth grows with a too-wide page, so compare with the screen.
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width).toBeLessThanOrEqual(PHONE.viewport.width);
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByTestId('download-json').click(),
      ]);
      const file = await download.path();
      const data = JSON.parse(readFileSync(file, 'utf8')) as OrderDataExport;
      expect(download.suggestedFilename()).toMatch(/^order-[0-9A-F]{8}-my-data\.json$/);
      expect(data.details).toMatchObject({ state: 'kept', shipping: { fullName: BUYER.fullName } });
      expect(data.order.number).toBe(order.orderId.slice(0, 8).toUpperCase());
      expect(data.retention.days).toBe(90);
      await page.goBack();
      await expect.poll(() => section.getAttribute('data-details')).toBe('kept');

      // Before shipping: no deletion, the page explains and offers to cancel (nothing was paid).
      expect(await page.getByTestId('delete-my-details').count()).toBe(0);
      expect(await page.getByTestId('delete-cancel-first').innerText()).toMatch(
        /vendor needs your name and address to ship/,
      );
      await page.getByTestId('cancel-instead').click();
      await page.getByTestId('cancel-confirm-yes').click();
      await expect.poll(() => page.getByTestId('privacy-message').innerText()).toMatch(/Order cancelled/);
      await expect.poll(() => page.getByTestId('order-page').getAttribute('data-status')).toBe('expired');

      // Now it will not ship: delete, with a confirmation.
      await page.getByTestId('delete-my-details').click();
      await page.getByTestId('delete-confirm-yes').click();
      await expect.poll(() => section.getAttribute('data-details')).toBe('erased');
      expect(await page.getByTestId('details-kept').innerText()).toMatch(/^Details erased on /);
      expect(await page.getByTestId('privacy-message').innerText()).toMatch(/The vendor has been told/);

      const [again] = await Promise.all([
        page.waitForEvent('download'),
        page.getByTestId('download-my-data-json').click(),
      ]);
      const after = readFileSync(await again.path(), 'utf8');
      expect(JSON.parse(after)).toMatchObject({ details: { state: 'erased' } });
      expect(after).not.toContain(BUYER.fullName);
      expect(after).not.toContain(BUYER.address1);
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await close();
    }
    // The store: the order stays (amounts, history), its details are gone, the vendor was told.
    const row = await server.running.store.db
      .selectFrom('orders')
      .select(['status', 'shipping_json', 'details_erased_at', 'total_cents'])
      .where('id', '=', order.orderId)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'expired', shipping_json: 'erased' });
    expect(row.details_erased_at).not.toBeNull();
    const told = await server.running.store.db
      .selectFrom('outbox')
      .select(['role'])
      .where('order_id', '=', order.orderId)
      .where('kind', '=', 'details_erased')
      .execute();
    expect(told).toEqual([{ role: 'seller' }]);
  });

  it('a paid order before shipping asks the vendor to cancel, once', async () => {
    const order = await placeOrder();
    await server.running.orders.recordPayment(
      { orderId: order.orderId },
      {
        signature: '5'.repeat(88),
        receivedBaseUnits: BigInt(order.amountBaseUnits),
        finalized: true,
        blockTime: null,
      },
    );
    const { page, close } = await openPage(browser, server.url, PHONE);
    try {
      await page.goto(`/order/${order.token}`);
      await expect
        .poll(() => page.getByTestId('order-status-line').innerText())
        .toBe('Payment received and final');
      // One tap does not cancel: the page asks first, and "Keep my order" keeps it.
      await page.getByTestId('cancel-instead').click();
      const confirm = page.getByTestId('cancel-confirm');
      expect(await confirm.innerText()).toMatch(/Ask the vendor to cancel this order\?/);
      await confirm.getByRole('button', { name: 'Keep my order' }).click();
      expect(await confirm.count()).toBe(0);
      await page.getByTestId('cancel-instead').click();
      // The confirmation's buttons are 44 px targets; axe finds nothing serious on the page.
      const yes = await page.getByTestId('cancel-confirm-yes').boundingBox();
      expect(yes?.height ?? 0).toBeGreaterThanOrEqual(44);
      const axe = await new AxeBuilder({ page }).analyze();
      expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
      await page.getByTestId('cancel-confirm-yes').click();
      await expect
        .poll(() => page.getByTestId('delete-cancel-first').innerText())
        .toMatch(/You asked the vendor to cancel it/);
      expect(await page.getByTestId('cancel-instead').count()).toBe(0);
      // The status follows the request: not "final" and "the seller ships it" any more.
      await expect
        .poll(() => page.getByTestId('order-status-line').innerText())
        .toBe('Cancellation requested: waiting for the seller');
      expect(await page.getByTestId('order-next').innerText()).not.toMatch(/ships it/);
      expect(await page.getByTestId('order-next').innerText()).toMatch(/asked the seller to cancel/);
    } finally {
      await close();
    }
  });

  it('the order page HTML is the same for a known and an unknown token, and rate-limited', async () => {
    const order = await placeOrder();
    const known = await fetch(`${server.url}/order/${order.token}`);
    const unknown = await fetch(`${server.url}/order/${'0'.repeat(32)}`);
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    const [a, b] = [await known.text(), await unknown.text()];
    expect(a).toBe(b);
    expect(a).not.toContain(BUYER.fullName);
    expect(known.headers.get('referrer-policy')).toBe('no-referrer');
    // The same limit as the order page's API (RATE_LIMIT_ORDERS_PER_MINUTE=40 here).
    const statuses: number[] = [];
    for (let i = 0; i < 45; i++) statuses.push((await fetch(`${server.url}/order/${order.token}`)).status);
    expect(statuses).toContain(429);
  });
});
