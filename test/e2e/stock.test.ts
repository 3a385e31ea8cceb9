/**
 * Stock in the browser: pages read live stock from GET /api/stock after hydration. A sold-out QR page
 * says Sold out and offers no QR, no payment link, no quantity and no confirmation button; the prerendered HTML
 * carries no stock and, once hydrated, the page agrees with the store (a restock shows at once, "Only N left"
 * when low). Buying a glass piece (tile and page turn Sold out, the quote refused with 409) is in
 * wallet.test.ts, with a real wallet payment on the localnet.
 */
import { describe, expect, it } from 'vitest';
import { unexpectedErrors } from '../support/browser';
import { browserSuite } from '../support/browser-suite';
import { restock } from '../support/stock';

const suite = browserSuite();
const POLL_MS = 10_000;

describe('stock on the pages', () => {
  it('a sold-out QR page shows Sold out and offers no QR, no payment link and no confirmation', async () => {
    const { page, errors, close } = await suite.open();
    const quotes: string[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/api/quotes')) quotes.push(r.url());
    });
    // The prerendered HTML carries no stock: the store decides after hydration.
    const html = await (await fetch(`${suite.server.url}/strawberry-fritter`)).text();
    expect(html).not.toContain('Sold out');

    await page.goto('/strawberry-fritter');
    await page.getByTestId('stock').getByText('Sold out').waitFor({ timeout: POLL_MS });
    await page.waitForLoadState('networkidle');
    expect(await page.locator('[data-testid="qr-box"]').count()).toBe(0);
    expect(await page.locator('.qr-area, .qr-box').count()).toBe(0);
    expect(await page.locator('img.qr-image, img[src*="/api/qr.svg"], img[src^="data:"]').count()).toBe(0);
    expect(await page.locator('a[href^="solana:"]').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Send Order Confirmation' }).count()).toBe(0);
    expect(await page.locator('input[name="quantity"]').count()).toBe(0);
    expect(await page.getByText('Generating QR Code...').count()).toBe(0);
    // Not even a quote was asked for.
    expect(quotes).toEqual([]);
    expect(unexpectedErrors(errors)).toEqual([]);
    await close();
  });

  it('after hydration the page agrees with the store: restocked shows the QR and "Only N left"; sold out again hides it', async () => {
    await restock(suite.server.running, 'strawberry-fritter-live-rosin', 2);
    const { page, errors, close } = await suite.open();
    await page.goto('/strawberry-fritter');
    await page.getByTestId('stock').getByText('Only 2 left').waitFor({ timeout: POLL_MS });
    await page.getByRole('button', { name: 'Send Order Confirmation' }).waitFor({ timeout: POLL_MS });

    // The catalogue tile is a link again.
    await page.goto('/vendors/gorilla-pack-genetics');
    await expect
      .poll(() => page.locator('a.tile[data-product="strawberry-fritter-live-rosin"]').count(), {
        timeout: POLL_MS,
      })
      .toBe(1);

    // Sold out again (the seller sets 0): a fresh visit shows Sold out, the tile is not a link.
    await restock(suite.server.running, 'strawberry-fritter-live-rosin', 0);
    await page.reload();
    await expect
      .poll(() => page.locator('div.tile.sold-out[data-product="strawberry-fritter-live-rosin"]').count(), {
        timeout: POLL_MS,
      })
      .toBe(1);
    // A fresh visit: a new tab (this one keeps the QR record its first visit made in its session storage).
    const fresh = await suite.open();
    await fresh.page.goto('/strawberry-fritter');
    await fresh.page.getByTestId('stock').getByText('Sold out').waitFor({ timeout: POLL_MS });
    // The prerendered form goes once the page has read the stock (the lazy QR checkout may hydrate a moment later).
    await expect
      .poll(() => fresh.page.getByRole('button', { name: 'Send Order Confirmation' }).count(), {
        timeout: POLL_MS,
      })
      .toBe(0);
    expect(unexpectedErrors(errors)).toEqual([]);
    expect(unexpectedErrors(fresh.errors)).toEqual([]);
    await fresh.close();
    await close();
  });

  it('a wallet product page with no stock has no Buy Now and no form; a variant with stock sells', async () => {
    const { page, errors, close } = await suite.open();
    // Every size sold out (as BathSalts starts): Sold out, and no size choice, quantity, form or Buy Now.
    await page.goto('/bathsalts');
    await page.getByTestId('stock').getByText('Sold out').waitFor({ timeout: POLL_MS });
    await expect.poll(() => page.locator('input[name="variant"]').count(), { timeout: POLL_MS }).toBe(0);
    expect(await page.locator('button.buy-now').count()).toBe(0);
    expect(await page.locator('input[name="quantity"]').count()).toBe(0);
    // One size back in stock: the choice is back.
    await restock(suite.server.running, { productId: 'bathsalts-flower', variantId: 'zips' }, 3);
    await page.goto('/bathsalts');
    // 18ths (the default variant) has no stock.
    await page.getByTestId('stock').getByText('Sold out').waitFor({ timeout: POLL_MS });
    expect(await page.locator('button.buy-now').count()).toBe(0);
    await page.locator('input[name="variant"][value="zips"]').check();
    await page.getByTestId('stock').getByText('Only 3 left').waitFor({ timeout: POLL_MS });
    await page.locator('button.buy-now').first().waitFor({ timeout: POLL_MS });
    expect(unexpectedErrors(errors)).toEqual([]);
    await close();
  });
});
