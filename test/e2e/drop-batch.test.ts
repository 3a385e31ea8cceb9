/**
 * A vendor's batch in the browser (docs/decisions/drops.md "A vendor's batch"): Lilac TipTop and Pivot Cropal Top
 * are one drop, 'Spring 2026', one piece per buyer across both, on sale since a moment ago. The built app is served
 * as a build whose catalogue has the batch (test/support/drop-build.ts); the server has the same catalogue.
 *
 * - A buyer who holds Lilac TipTop opens Pivot Cropal Top at 390 px: the page says they have their piece of this
 *   drop, with no Buy Now (axe clean); another buyer's page of it gives them their turn with Buy Now.
 * - The console's Drops table lists the batch as a group under a row with its name and totals.
 */
import AxeBuilder from '@axe-core/playwright';
import { Keypair } from '@solana/web3.js';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { OrderCreated, QuoteResponse } from '../../src/core/api';
import type { Drop } from '../../src/core/drop';
import { unexpectedErrors, type OpenedPage } from '../support/browser';
import { browserSuite } from '../support/browser-suite';
import { dropsCatalog, serveDropsBuild } from '../support/drop-build';
import { INTERNATIONAL_SHIPPING } from '../support/fixtures';
import { balancesAssumed, proofOf } from '../support/hold-proof';

const LILAC = 'lilac-tiptop';
const PIVOT = 'pivot-cropal-top';
const PIVOT_PAGE = '/vendors/coopersglass/product12';
const BUYER = { a: '198.51.100.11', b: '198.51.100.12' };
/** The console asks GET /api/seller/me on load: 401 is its "not signed in" answer. */
const SIGNED_OUT_CHECK = [/\/api\/seller\/me$/];

let drops: Record<string, Drop>;
const suite = browserSuite({
  env: { TRUST_PROXY: '1' },
  overrides: { walletBalances: balancesAssumed(), retention: false },
  before: () => {
    const drop = {
      startsAt: new Date(Date.now() - 60_000).toISOString(),
      holdMinutes: 1,
      batch: 'Spring 2026',
    };
    drops = { [LILAC]: drop, [PIVOT]: drop };
    return Promise.resolve({ overrides: { catalog: dropsCatalog(drops) } });
  },
});

const api = (ip: string, path: string, body: object, headers = {}) =>
  fetch(`${suite.server.url}${path}`, {
    method: 'POST',
    headers: { 'x-forwarded-for': ip, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

/** Buy Now from `ip` (its own wallet signing the hold message): the order, which holds the piece. */
async function buy(ip: string, productId: string): Promise<OrderCreated> {
  let q = await api(ip, '/api/quotes', { items: [{ productId, quantity: 1 }] });
  // The demo price feed answers within a moment of the start: 503 until then.
  for (let i = 0; q.status === 503 && i < 50; i++) {
    await new Promise((r) => setTimeout(r, 200));
    q = await api(ip, '/api/quotes', { items: [{ productId, quantity: 1 }] });
  }
  expect(q.status, await q.clone().text()).toBe(200);
  const { quote, reference } = (await q.json()) as QuoteResponse;
  const o = await api(
    ip,
    '/api/orders',
    {
      quote,
      shipping: INTERNATIONAL_SHIPPING,
      paymentMethod: 'wallet',
      payer: proofOf(Keypair.generate(), reference),
    },
    { 'idempotency-key': `batch-e2e-${ip}-${productId}` },
  );
  expect(o.status, await o.clone().text()).toBe(201);
  return (await o.json()) as OrderCreated;
}

async function buyerPage(ip: string): Promise<OpenedPage> {
  const phone: BrowserContextOptions = {
    viewport: { width: 390, height: 844 },
    isMobile: true,
    hasTouch: true,
    locale: 'en-US',
    extraHTTPHeaders: { 'x-forwarded-for': ip },
  };
  const opened = await suite.open(phone);
  await serveDropsBuild(opened.context, suite.server.webDir, drops);
  return opened;
}

async function axeClean(page: Page): Promise<void> {
  const result = await new AxeBuilder({ page }).analyze();
  const bad = result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
  expect(bad).toEqual([]);
}

const oneSpace = (s: string | null) => (s ?? '').replace(/\s+/g, ' ').trim();

describe("a vendor's batch on the product page and in the console", () => {
  it("a buyer with their piece is told so on the batch's other piece; the console groups the batch", async () => {
    expect((await buy(BUYER.a, LILAC)).held).toBe(true);

    // The buyer opens the batch's other piece: they have their piece of this drop; no Buy Now.
    const a = await buyerPage(BUYER.a);
    await a.page.goto(PIVOT_PAGE);
    const aState = a.page.getByTestId('drop-state');
    await aState.getByText('You already have your piece').waitFor();
    expect(oneSpace(await aState.textContent())).toBe(
      'You already have your piece of this drop (Spring 2026), reserved or bought: one piece per buyer.',
    );
    expect(oneSpace(await a.page.getByTestId('drop').locator('p.muted').textContent())).toBe(
      'This piece is part of a drop (Spring 2026): one piece per buyer across all of its pieces; a piece is held 1 minute for payment.',
    );
    expect(await a.page.locator('button.buy-now').count()).toBe(0);
    await axeClean(a.page);

    // Another buyer's page of it: their turn, with Buy Now.
    const b = await buyerPage(BUYER.b);
    await b.page.goto(PIVOT_PAGE);
    await b.page.locator('button.buy-now').waitFor();
    expect(oneSpace(await b.page.getByTestId('drop-state').textContent())).toMatch(
      /^It is your turn: click Buy Now before \d{1,2}:\d\d( [AP]M)?/,
    );

    // The console: the batch's row with its totals, then its two pieces.
    const vendor = await suite.open();
    await vendor.page.goto('/seller');
    await vendor.page.getByRole('button', { name: 'Sign in as demo vendor' }).click();
    await vendor.page.getByText('Signed in as').waitFor();
    await vendor.page.locator('.seller-tabs').getByRole('button', { name: 'Stock' }).click();
    const batch = vendor.page.getByTestId('drop-batch-row');
    await batch.getByText('Spring 2026: a batch of 2 pieces').waitFor();
    const cell = (label: string) => batch.locator(`td[data-label="${label}"]`).textContent();
    expect([await cell('Sold'), await cell('Held'), await cell('Released'), await cell('Available')]).toEqual(
      ['0', '1', '0', '1 of 2'],
    );
    expect(await cell('In line')).toBe('One piece per buyer across the batch');
    const rows = vendor.page.getByTestId('drop-row');
    expect(await rows.locator('th').allTextContents()).toEqual(['Lilac TipTop', 'Pivot Cropal Top']);
    expect(oneSpace(await rows.nth(1).locator('td[data-label="In line"]').textContent())).toBe(
      '0 waiting, 1 let through (1 joined); 1 had their turn on another piece or address',
    );
    await axeClean(vendor.page);

    for (const p of [a, b]) expect(unexpectedErrors(p.errors)).toEqual([]);
    expect(unexpectedErrors(vendor.errors, SIGNED_OUT_CHECK)).toEqual([]);
    for (const p of [a, b, vendor]) await p.close();
  });
});
