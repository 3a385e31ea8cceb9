/**
 * The seller console's summary against its tabs, on screen: headless Chromium on the built app and the real server
 * (demo mode, SQLite file; the demo sign-in). The store holds orders a vendor meets: paid (to ship), shipped,
 * cancelled at the buyer's request, cancelled and refunded, paid with an extra payment (an open exception), a QR
 * order paid without shipping details, and one placed ten days ago. At 1280 px and at 390 px every count of the
 * summary — each period's orders placed, the open exceptions — equals the count of the tab its "Show them" opens,
 * and the rows that tab lists. Then "Mark shipped" needs the money and an address: the QR order paid without
 * details and a paid-late order refunded in full offer none and say why (src/core/ship-readiness.ts). Screenshots of both widths go to test-results/screens/.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderCreated, QuoteResponse } from '../../src/core/api';
import type { SellerMe } from '../../src/core/seller-api';
import { shipBlockOf } from '../../src/core/ship-readiness';
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
  fullName: 'Ottilie Brandvold',
  email: 'ottilie@summary-e2e.example',
  address1: '9 Quay Lane',
  city: 'Bergen',
  stateProvince: 'Vestland',
  postalCode: '5003',
  country: 'Norway',
};
const GLASS = 'sonic-crushed-opal-spillproof';
/** Coopers Glass's QR product. */
const EAGLES = 'eagles-xl-joystick-cropal-stick';
/** The page asks GET /api/seller/me on load: 401 is its "not signed in" answer. */
const SIGNED_OUT_CHECK = [/\/api\/seller\/me$/];
const SCREENS = resolve(import.meta.dirname, '../../test-results/screens');

let server: TestServer;
let browser: Browser;
let n = 0;
let qrRecord: OrderCreated;

async function placeOrder(
  productId: string,
  paymentMethod: 'wallet' | 'qr' = 'wallet',
): Promise<OrderCreated> {
  let q: Response | undefined;
  // The demo price feed answers within a moment of start.
  for (let i = 0; i < 50; i++) {
    q = await fetch(`${server.url}/api/quotes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ items: [{ productId, quantity: 1 }] }),
    });
    if (q.status === 200) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(q?.status).toBe(200);
  const quote = (await q!.json()) as QuoteResponse;
  const o = await fetch(`${server.url}/api/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': `summary-e2e-${++n}` },
    body: JSON.stringify({
      quote: quote.quote,
      paymentMethod,
      ...(paymentMethod === 'wallet' ? { shipping: BUYER } : {}),
    }),
  });
  expect(o.status).toBe(201);
  return (await o.json()) as OrderCreated;
}

/** A transfer recorded through the order service (the ledger's own entry point); its signature. */
async function pay(o: OrderCreated, base = BigInt(o.amountBaseUnits)): Promise<string> {
  const signature = bs58.encode(randomBytes(64));
  const r = await server.running.orders.recordPayment(
    { orderId: o.orderId },
    { signature, receivedBaseUnits: base, finalized: true, blockTime: null },
  );
  expect(r.ok).toBe(true);
  return signature;
}

const tokenOf = (o: OrderCreated) => o.orderUrl.split('/').pop()!;

/** A request with the console's session, as the console makes it. */
async function sellerCall(page: Page, method: string, path: string, body?: unknown): Promise<number> {
  return page.evaluate(
    async ({ method, path, body }) =>
      (
        await fetch(path, {
          method,
          credentials: 'same-origin',
          headers: body === undefined ? {} : { 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        })
      ).status,
    { method, path, body },
  );
}

async function signIn(page: Page): Promise<void> {
  await page.goto('/seller');
  await page.getByRole('button', { name: 'Sign in as demo vendor' }).click();
  await page.getByText('Signed in as').getByText('Coopers Glass').waitFor();
}

const queueCount = async (page: Page, queue: string) =>
  Number(await page.locator(`[data-queue="${queue}"] .seller-count`).innerText());
const rows = (page: Page) => page.locator('tr[data-order]').count();

/** Clicks a "Show them" and waits until the tab it opens lists `expected` rows and counts them: both must agree. */
async function tabAfter(page: Page, click: () => Promise<void>, queue: string, expected: number) {
  await click();
  await expect.poll(() => page.locator(`[data-queue="${queue}"]`).getAttribute('aria-pressed')).toBe('true');
  await expect
    .poll(async () => ({ tab: await queueCount(page, queue), rows: await rows(page) }), { timeout: 10_000 })
    .toEqual({ tab: expected, rows: expected });
}

/** Every count of the summary against the tab its "Show them" opens. */
async function summaryEqualsTabs(page: Page): Promise<Record<string, number>> {
  const seen: Record<string, number> = {};
  for (const period of ['today', '7d', '30d']) {
    const card = page.locator(`.seller-card[data-period="${period}"]`);
    const orders = Number(await card.getByTestId('summary-orders').innerText());
    seen[period] = orders;
    await tabAfter(
      page,
      () => card.getByRole('button', { name: /^Show them \(orders placed/ }).click(),
      'all',
      orders,
    );
  }
  const open = Number((await page.getByTestId('summary-open-exceptions').innerText()).trim().split(/\s/)[0]);
  seen.openExceptions = open;
  await tabAfter(
    page,
    () => page.getByTestId('summary-open-exceptions').getByRole('button', { name: 'Show them' }).click(),
    'exceptions',
    open,
  );
  return seen;
}

beforeAll(async () => {
  [server, browser] = await Promise.all([
    startTestServer({ RATE_LIMIT_ORDERS_PER_MINUTE: '60' }, { retention: false }),
    launchBrowser(),
  ]);
  await restock(server.running, GLASS, 20);
  await restock(server.running, EAGLES, 5);
  mkdirSync(SCREENS, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('the seller summary equals its tabs', () => {
  it("paid, shipped, cancelled, refunded, exception and QR orders: every summary count is its tab's, at 1280 and at 390 px", async () => {
    const desk = await openPage(browser, server.url, { viewport: { width: 1280, height: 900 } });
    const { page } = desk;
    await signIn(page);
    const me = (await page.evaluate(async () => (await fetch('/api/seller/me')).json())) as SellerMe;
    const seller = { address: me.address, vendorIds: me.vendors.map((v) => v.id) };

    const paid = await placeOrder(GLASS);
    await pay(paid);
    const shipped = await placeOrder(GLASS);
    await pay(shipped);
    expect(
      await sellerCall(page, 'POST', `/api/seller/orders/${shipped.orderId}/ship`, {
        trackingNumber: 'TRACK-S1',
      }),
    ).toBe(200);
    // Cancelled at the buyer's request, nothing refunded yet: an open exception.
    const cancelled = await placeOrder(GLASS);
    await pay(cancelled);
    expect(
      (await fetch(`${server.url}/api/order-pages/${tokenOf(cancelled)}/cancel`, { method: 'POST' })).status,
    ).toBe(200);
    expect(await sellerCall(page, 'POST', `/api/seller/orders/${cancelled.orderId}/cancel`)).toBe(200);
    // Cancelled and refunded in full: done, no exception.
    const refunded = await placeOrder(GLASS);
    const paidWith = await pay(refunded);
    expect(
      (await fetch(`${server.url}/api/order-pages/${tokenOf(refunded)}/cancel`, { method: 'POST' })).status,
    ).toBe(200);
    expect(await sellerCall(page, 'POST', `/api/seller/orders/${refunded.orderId}/cancel`)).toBe(200);
    const buyerWallet = bs58.encode(randomBytes(32));
    // The refund as the console records it once the chain confirmed it (the chain read is seller-refund.test.ts's).
    await server.running.orders.recordRefund(seller, refunded.orderId, {
      exception: 'cancel_requested',
      signature: bs58.encode(randomBytes(64)),
      amountBaseUnits: BigInt(refunded.amountBaseUnits),
      to: buyerWallet,
      payers: new Map([[paidWith, buyerWallet]]),
    });
    // Paid, then a twentieth more (well above dust): to ship, and an open exception (extra payment).
    const extra = await placeOrder(GLASS);
    await pay(extra);
    await pay(extra, BigInt(extra.amountBaseUnits) / 20n);
    // A QR order paid before its buyer sent the details (within the grace: not an exception yet).
    qrRecord = await placeOrder(EAGLES, 'qr');
    await pay(qrRecord);
    // Placed ten days ago (the store's own clock cannot go back: its creation time is moved): in 30 days only.
    const older = await placeOrder(GLASS);
    await pay(older);
    await server.running.store.db
      .updateTable('orders')
      .set({ created_at: new Date(Date.now() - 10 * 86_400_000).toISOString() })
      .where('id', '=', older.orderId)
      .execute();

    await page.reload();
    await page.getByText('Signed in as').waitFor();
    await page.getByTestId('summary-orders').first().waitFor();
    const deskCounts = await summaryEqualsTabs(page);
    console.log(`summary at 1280 px: ${JSON.stringify(deskCounts)}`);
    // Every order placed counts, whatever became of it; the older one only in 30 days.
    expect(deskCounts).toEqual({ today: 6, '7d': 6, '30d': 7, openExceptions: 2 });
    // The statuses the tabs list read as they should (refunded means done).
    await page.locator('[data-queue="all"]').click();
    await page.getByRole('button', { name: 'Clear' }).click();
    await expect.poll(() => rows(page)).toBe(7);
    const words = await page.locator('tr[data-order] td[data-label="Status"]').allInnerTexts();
    expect(words.join('\n')).toContain('Cancelled and refunded');
    expect(words.join('\n')).toContain('Shipped');
    await page.locator('[data-queue="to_ship"]').click();
    await page.locator('.seller-summary').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SCREENS, 'seller-summary-1280.png'), fullPage: false });
    expect(unexpectedErrors(desk.errors, SIGNED_OUT_CHECK)).toEqual([]);
    await desk.close();

    const phone = await openPage(browser, server.url, {
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      deviceScaleFactor: 2,
    });
    await signIn(phone.page);
    const p = phone.page;
    // Folded on a phone: its one line names today's count, the All tab's for today.
    const line = await p.locator('.seller-summary > summary').innerText();
    expect(line).toContain('today 6 orders');
    await p.screenshot({ path: join(SCREENS, 'seller-summary-390-folded.png') });
    await p.locator('.seller-summary > summary').click();
    const phoneCounts = await summaryEqualsTabs(p);
    expect(phoneCounts).toEqual(deskCounts);
    expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    // "Show them" is a 44 px target like the console's other buttons.
    const small = await p
      .locator('.seller-summary button')
      .evaluateAll((els) => els.map((e) => e.getBoundingClientRect()).filter((r) => r.height < 44));
    expect(small).toEqual([]);
    await p.locator('.seller-summary').scrollIntoViewIfNeeded();
    await p.screenshot({ path: join(SCREENS, 'seller-summary-390.png') });
    expect(unexpectedErrors(phone.errors, SIGNED_OUT_CHECK)).toEqual([]);
    await phone.close();
  });

  it('"Mark shipped" is not offered on a paid order without a shipping address, nor on a paid-late order refunded: the view says why', async () => {
    // Paid after its quote ran out (the store's clock cannot move: its expiry is moved), then refunded in full.
    const late = await placeOrder(GLASS);
    await server.running.store.db
      .updateTable('orders')
      .set({ expires_at: new Date(Date.now() - 60_000).toISOString() })
      .where('id', '=', late.orderId)
      .execute();
    await server.running.orders.expireOrders();
    const latePaidWith = await pay(late);
    const addressBlock = shipBlockOf({
      shippingDetails: 'none',
      refundedExceptions: [],
      closedByRefund: false,
    })!;
    const refundedBlock = shipBlockOf({
      shippingDetails: 'given',
      refundedExceptions: ['paid_late'],
      closedByRefund: true,
    })!;
    for (const viewport of [
      { width: 1280, height: 900 },
      { width: 390, height: 844 },
    ]) {
      const opened = await openPage(browser, server.url, { viewport });
      const { page } = opened;
      await signIn(page);
      if (viewport.width === 1280) {
        // Refunded in full, as the console records it once the chain confirmed it.
        const me = (await page.evaluate(async () => (await fetch('/api/seller/me')).json())) as SellerMe;
        const buyerWallet = bs58.encode(randomBytes(32));
        await server.running.orders.recordRefund(
          { address: me.address, vendorIds: me.vendors.map((v) => v.id) },
          late.orderId,
          {
            exception: 'paid_late',
            signature: bs58.encode(randomBytes(64)),
            amountBaseUnits: BigInt(late.amountBaseUnits),
            to: buyerWallet,
            payers: new Map([[latePaidWith, buyerWallet]]),
          },
        );
      }
      for (const [o, block, name] of [
        [qrRecord, addressBlock, 'no-address'],
        [late, refundedBlock, 'refunded'],
      ] as const) {
        await page.locator('[data-queue="all"]').click();
        await page.locator(`tr[data-order="${o.orderId}"] button.seller-row-open`).click();
        await page.getByRole('heading', { name: `Order ${o.orderId.slice(0, 8).toUpperCase()}` }).waitFor();
        await page.getByTestId('no-shipping').waitFor();
        expect(await page.getByTestId('no-shipping').innerText()).toBe(block.message);
        expect(await page.getByRole('button', { name: 'Mark shipped' }).count()).toBe(0);
        expect(await page.getByLabel('Tracking number').count()).toBe(0);
        await page.getByTestId('no-shipping').scrollIntoViewIfNeeded();
        await page.screenshot({ path: join(SCREENS, `seller-${name}-${viewport.width}.png`) });
        // The server refuses it too, in the same words.
        const refusal = await page.evaluate(async (id) => {
          const r = await fetch(`/api/seller/orders/${id}/ship`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ trackingNumber: 'TRACK-QR' }),
          });
          return { status: r.status, body: (await r.json()) as { error: string; message: string } };
        }, o.orderId);
        expect(refusal).toEqual({ status: 409, body: { error: block.code, message: block.message } });
        await page.getByRole('button', { name: 'Back to orders' }).first().click();
      }
      expect(unexpectedErrors(opened.errors, [...SIGNED_OUT_CHECK, /\/ship$/])).toEqual([]);
      await opened.close();
    }
  });
});
