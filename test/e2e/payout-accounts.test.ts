/**
 * No QR to a recipient that cannot receive, in the browser against the whole store (localnet, server with its real
 * check of the vendors' token accounts, SMTP sink). The localnet starts without the gorilla vendor's $CLAIM
 * account (`withoutTokenAccount`, as `DEMO_VENDORS_WITHOUT_TOKEN_ACCOUNT=gorilla npm start` does): its QR page
 * shows no QR and no payment link and says so in plain words, on a phone (390 × 844, touch) and at a desk; the
 * phone's "payment link or QR code" path of its wallet page is refused the same way (Buy Now with a wallet, which
 * creates the account, is in wallet.test.ts); once the account is created the open QR page shows its QR by itself.
 */
import type { Browser, BrowserContextOptions, Request } from 'playwright-core';
import { createKeyPairSignerFromBytes } from '@solana/kit';
import { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notSetUpMessage } from '../../src/core/payout-account';
import { setupVendorAccounts } from '../../src/server/ops/vendor-accounts';
import { chainRpc } from '../../src/server/payments/connection';
import { launchBrowser, openPage, unexpectedErrors } from '../support/browser';
import { startStack, type Stack } from '../support/stack';

let stack: Stack;
let browser: Browser;

beforeAll(async () => {
  [stack, browser] = await Promise.all([startStack({ withoutTokenAccount: ['gorilla'] }), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

const PHONE: BrowserContextOptions = {
  viewport: { width: 390, height: 844 },
  hasTouch: true,
  isMobile: true,
};
const viewports: [string, BrowserContextOptions][] = [
  ['phone 390 × 844 (touch)', PHONE],
  ['desktop', { viewport: { width: 1280, height: 900 } }],
];
const NOT_SET_UP = notSetUpMessage('Gorilla Pack Genetics');
const orderCalls = (r: Request) =>
  new URL(r.url()).pathname.startsWith('/api/orders') && r.method() !== 'GET';

describe.each(viewports)('a vendor without a token account, on %s', (_name, options) => {
  it('its QR page shows no QR and no payment link, says why in plain words, and records nothing', async () => {
    const { page, errors, close } = await openPage(browser, stack.url, options);
    const calls: string[] = [];
    page.on('request', (r) => {
      if (orderCalls(r)) calls.push(r.url());
    });
    await page.goto('/honey2');
    const box = page.getByTestId('payout-not-ready');
    await box.getByText(NOT_SET_UP).waitFor();
    // Nothing to scan, and the heading says so.
    expect(await page.getByRole('heading', { name: 'Not ready for QR payments' }).isVisible()).toBe(true);
    expect(await page.getByRole('heading', { name: 'Scan to pay' }).count()).toBe(0);
    // The wallet path stays: the vendor's wallet products are linked.
    expect(await box.getByRole('link', { name: 'wallet products' }).getAttribute('href')).toBe(
      '/vendors/gorilla-pack-genetics',
    );
    // The message fits its box (not squeezed into the 180 px QR square), on a phone too.
    expect(
      await page
        .getByTestId('qr-box')
        .evaluate((el) => el.scrollHeight <= el.clientHeight + 1 && el.clientWidth > 200),
    ).toBe(true);
    expect(await page.getByTestId('qr-image').count()).toBe(0);
    expect(await page.locator('[href^="solana:"]').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Send Order Confirmation' }).isDisabled()).toBe(true);
    // The other vendor's QR page is unaffected.
    await page.goto('/vendors/coopersglass/product9');
    await page.getByTestId('qr-image').waitFor();
    expect(calls.filter((u) => !u.endsWith('/api/orders'))).toEqual([]);
    expect(calls).toHaveLength(1); // the glass page's record only
    // The quote refusal (409) is the page's expected answer, logged by the browser as a failed resource.
    expect(unexpectedErrors(errors, [/\/api\/quotes$/])).toEqual([]);
    await close();
  });
});

describe('a vendor without a token account', () => {
  it("on a phone without a wallet, its wallet page's payment-link path is refused in words: no order, no link", async () => {
    const { page, errors, close } = await openPage(browser, stack.url, PHONE);
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.accept();
    });
    const calls: string[] = [];
    page.on('request', (r) => {
      if (orderCalls(r)) calls.push(r.url());
    });
    await page.goto('/garlic');
    const buy = page.locator('button.buy-now:not([disabled])', { hasText: 'Buy Now' });
    await buy.waitFor();
    const form = page.locator('form.order-form');
    for (const [name, value] of [
      ['fullName', 'Ada Lovelace'],
      ['email', 'ada@example.test'],
      ['address1', '12 St James Square'],
      ['city', 'London'],
      ['stateProvince', 'Greater London'],
      ['postalCode', 'SW1Y 4JH'],
      ['country', 'United Kingdom'],
    ] as const)
      await form.locator(`[name="${name}"]`).fill(value);
    await buy.tap();
    const modal = page.getByRole('dialog', { name: "You'll need a wallet on Solana to continue" });
    await modal.waitFor();
    await modal.getByRole('button', { name: /payment link or QR code/ }).tap();
    await expect.poll(() => dialogs.length).toBe(1);
    expect(dialogs[0]).toBe(
      `${NOT_SET_UP} To pay now, open this page in the Phantom app: your wallet creates the vendor’s account first (one more approval).`,
    );
    expect(calls).toEqual([]);
    expect(await page.getByTestId('pay-link').count()).toBe(0);
    expect(await page.locator('[href^="solana:"]').count()).toBe(0);
    expect(unexpectedErrors(errors)).toEqual([]);
    await close();
  });

  it('once the account is created, the open QR page shows its QR by itself (no reload)', async () => {
    const { page, errors, close } = await openPage(browser, stack.url);
    await page.goto('/honey2');
    await page.getByTestId('payout-not-ready').waitFor();
    const operator = Keypair.generate();
    await stack.fund(operator.publicKey.toBase58(), { sol: 1 });
    const made = await setupVendorAccounts(
      chainRpc(stack.localnet.rpcUrl),
      await createKeyPairSignerFromBytes(operator.secretKey),
      stack.settings.claimMint,
      { gorilla: stack.settings.recipients.gorilla ?? '' },
    );
    expect(made[0]?.created).toBe(true);
    // The server believes "missing" for 15 s and the page asks again every 20 s.
    await page.getByTestId('qr-image').waitFor({ timeout: 60_000 });
    const link = await page.getByTestId('open-in-wallet').getAttribute('href');
    expect(link).toMatch(new RegExp(`^solana:${stack.settings.recipients.gorilla ?? 'none'}\\?`));
    expect(await page.getByTestId('payout-not-ready').count()).toBe(0);
    expect(unexpectedErrors(errors, [/\/api\/quotes$/])).toEqual([]);
    await close();
  }, 90_000);
});
