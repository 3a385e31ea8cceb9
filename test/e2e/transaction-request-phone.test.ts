/**
 * Over HTTPS, on a phone (390 × 844, touch): the QR page's "Open in wallet" and QR carry the Solana Pay
 * transaction request, and "My wallet cannot read this code" gives the transfer request one tap away (and back).
 * The page is served through a TLS front with a certificate made for the run (test/support/tls-front.ts); the
 * browser context accepts it with Playwright's `ignoreHTTPSErrors` (Chromium has no NODE_EXTRA_CA_CERTS). The
 * wallet's side (GET, POST, sign, pay) is test/integration/transaction-requests.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { unexpectedErrors } from '../support/browser';
import { browserSuite } from '../support/browser-suite';
import { startTlsFront, type TlsFront } from '../support/tls-front';

let front: TlsFront;
const suite = browserSuite({
  before: async () => {
    front = await startTlsFront();
    return { env: { PUBLIC_URL: front.url } };
  },
  started: (server) => {
    front.target = server.url;
  },
  after: async () => {
    await front?.close();
  },
});

describe('transaction request on a phone over HTTPS', () => {
  it('"Open in wallet" carries the transaction request; the transfer request is one tap away', async () => {
    const { page, errors, close } = await suite.open(
      {
        viewport: { width: 390, height: 844 },
        hasTouch: true,
        isMobile: true,
        ignoreHTTPSErrors: true,
      },
      front.url,
    );
    try {
      await page.goto('/vendors/coopersglass/product9');
      const open = page.getByTestId('open-in-wallet');
      await expect.poll(() => open.getAttribute('href'), { timeout: 60_000 }).toMatch(/^solana:https:/);
      const tx = (await open.getAttribute('href')) ?? '';
      expect(tx).toMatch(new RegExp(`^solana:${front.url}/api/pay/[1-9A-HJ-NP-Za-km-z]+\\.[\\w-]{22}$`));
      const qr = page.getByTestId('qr-image');
      // The record's answer carried its QR (qrSvg): shown as a data: URL, exactly what GET /api/qr.svg draws.
      const drawn = await page.evaluate(
        async (link) => (await fetch(`/api/qr.svg?data=${encodeURIComponent(link)}`)).text(),
        tx,
      );
      expect(drawn).toMatch(/^<svg /);
      await expect
        .poll(() => qr.getAttribute('src'))
        .toBe(`data:image/svg+xml;charset=utf-8,${encodeURIComponent(drawn)}`);
      await expect
        .poll(() => qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0))
        .toBe(true);

      const fallback = page.getByTestId('transfer-fallback');
      expect(await fallback.textContent()).toBe('My wallet cannot read this code');
      // A thumb's target once the page's styles apply (measured once, it was 21 px in a loaded run: the styles late).
      await expect.poll(async () => (await fallback.boundingBox())?.height ?? 0).toBeGreaterThanOrEqual(44);
      await fallback.tap();
      await expect
        .poll(() => open.getAttribute('href'))
        .toMatch(/^solana:[1-9A-HJ-NP-Za-km-z]{32,44}\?amount=/);
      const transfer = (await open.getAttribute('href')) ?? '';
      expect(transfer).toContain('spl-token=');
      expect(await page.getByTestId('transfer-fallback-note').textContent()).toContain('works in any wallet');
      await expect
        .poll(() => qr.getAttribute('src'))
        .toBe(`/api/qr.svg?data=${encodeURIComponent(transfer)}`);
      await page.getByRole('button', { name: 'Show the first code again' }).tap();
      await expect.poll(() => open.getAttribute('href')).toBe(tx);
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await close();
    }
  });
});
