/**
 * QR checkout end to end, in headless Chromium against the whole store (test/support/stack.ts: localnet, server
 * with the payment watcher, SMTP sink). The payment link is read the way a phone reads it: by DECODING THE
 * RENDERED QR (element screenshot → pngjs → jsQR), then parsed with @solana/pay's parseURL and paid from a
 * funded test keypair with a wallet's transaction (TransferChecked + the reference as a read-only key).
 * The QR belongs to a server record made before it is shown; a payment shows 'Payment received' live
 * (also after a reload), the details complete the order, and every buyer e-mail links the order page.
 */
import { ordersOfBuyer } from '../support/sealed';
import AxeBuilder from '@axe-core/playwright';
import { parseURL, type TransferRequestURL } from 'solana-pay-client';
import { Connection, Keypair, PublicKey } from '@solana/web3.js';
import BigNumber from 'bignumber.js';
import jsQR from 'jsqr';
import type { ParsedMail } from 'mailparser';
import type { Browser, BrowserContextOptions, Dialog, Locator, Page, Request } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPayments } from '../../src/server/payments/index';
import { launchBrowser, openPage, unexpectedErrors, type OpenedPage } from '../support/browser';
import { startStack, type Stack } from '../support/stack';
import { pay } from '../integration/payments-support';
import { restock } from '../support/stock';
import { groupThousands } from '../../src/core/money';
import { orderNumberOf } from '../../src/core/order-number';
import { expectReceipt } from '../support/receipt';

const PRICE = '0.0003'; // 50 / 0.0003 = 166666.666666…: the amounts must be rounded exactly
const API_PRICE = /\/api\/price(\/history)?(\?.*)?$/;
const MISSING = 'Please fill out all required shipping details.';
const SENT = 'Order confirmation sent to both seller and buyer!';
const FAILED = 'Failed to send order confirmation.';

let stack: Stack;
let browser: Browser;
/** The server's own price; undefined = its price service knows none (as when DexScreener keeps failing). */
let serverPrice: string | undefined = PRICE;
let connection: Connection;
const buyer = Keypair.generate();

/** usd × quantity / price, rounded half-up to six decimals (independent of src/core/money). */
const expected = (usd: number, quantity: number) =>
  new BigNumber(usd).times(quantity).div(PRICE).decimalPlaces(6, BigNumber.ROUND_HALF_UP);

beforeAll(async () => {
  stack = await startStack({
    // Paid without details: the seller is told after 4 s here (30 min by default); the timer runs every 300 ms.
    env: { QR_DETAILS_GRACE_MS: '4000' },
    server: {
      expireEveryMs: 300,
      // A fixed price (the page gets the same one from the routed /api/price below).
      priceSource: {
        current: () =>
          serverPrice === undefined ? undefined : { priceUsd: serverPrice, fetchedAt: new Date() },
      },
      services: [
        (ctx) =>
          startPayments({
            settings: ctx.settings,
            orders: ctx.orders,
            lanes: ctx.lanes,
            now: ctx.now,
            watcher: {
              refreshIntervalMs: 200,
              pollIntervalMs: 500,
              sweepIntervalMs: 1_000,
              finalityIntervalMs: 300,
            },
          }),
      ],
    },
  });
  browser = await launchBrowser();
  connection = new Connection(stack.localnet.rpcUrl, 'confirmed');
  await stack.fund(buyer.publicKey.toBase58(), { sol: 5, claim: 10_000_000 });
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

interface QrPage extends OpenedPage {
  dialogs: string[];
  requests: Request[];
}

async function openQr(
  path: string,
  opts: { priceFails?: boolean; context?: BrowserContextOptions } = {},
): Promise<QrPage> {
  // A phone-like pixel density: the 180 px QR is screenshotted at 3× like a camera would see it sharply.
  const opened = await openPage(browser, stack.url, { deviceScaleFactor: 3, ...opts.context });
  const dialogs: string[] = [];
  const requests: Request[] = [];
  opened.page.on('dialog', (d: Dialog) => {
    dialogs.push(d.message());
    void d.accept();
  });
  opened.page.on('request', (r) => requests.push(r));
  await opened.page.route(API_PRICE, (route) =>
    route.request().url().includes('/history')
      ? route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ points: [] }) })
      : opts.priceFails
        ? route.fulfill({
            status: 503,
            contentType: 'application/json',
            body: JSON.stringify({ error: 'price_unavailable', message: 'no price' }),
          })
        : route.fulfill({
            status: 200,
            contentType: 'application/json',
            body: JSON.stringify({
              priceUsd: PRICE,
              fetchedAt: new Date().toISOString(),
              ageSeconds: 1,
              source: 'demo',
            }),
          }),
  );
  await opened.page.goto(path);
  return { ...opened, dialogs, requests };
}

/** Screenshot of the rendered QR → pixels → jsQR → the text it encodes. */
async function decodeQr(page: Page): Promise<string> {
  const img = page.getByTestId('qr-image');
  await img.waitFor({ state: 'visible', timeout: 15_000 });
  await page.waitForFunction(() => {
    const el = document.querySelector<HTMLImageElement>('[data-testid="qr-image"]');
    return el !== null && el.complete && el.naturalWidth > 0;
  });
  const png = PNG.sync.read(await img.screenshot());
  const code = jsQR(
    new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length),
    png.width,
    png.height,
  );
  if (!code) throw new Error('the QR code on the page could not be decoded');
  return code.data;
}

/** Decodes until the QR shows something other than `previous` (it is rebuilt after a debounce). */
async function decodeNewQr(page: Page, previous: string): Promise<string> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      const text = await decodeQr(page);
      if (text !== previous) return text;
    } catch {
      // between two images
    }
    if (Date.now() > deadline) throw new Error('the QR code was not rebuilt');
    await page.waitForTimeout(200);
  }
}

function transfer(url: string): TransferRequestURL {
  const parsed = parseURL(url);
  if (!('recipient' in parsed)) throw new Error(`not a transfer request: ${url}`);
  return parsed;
}

/** The URL's amount exactly, as the six-decimal text a wallet reads. */
function amountText(url: string): string {
  const text = new URL(url).searchParams.get('amount');
  if (text === null || !/^\d+\.\d{6}$/.test(text)) throw new Error(`bad amount in ${url}`);
  return text;
}

/** Pays a transfer request the way a wallet does: TransferChecked of the exact amount, references read-only. */
async function payUrl(url: string, amount?: bigint): Promise<string> {
  const t = transfer(url);
  expect(t.splToken).toBeDefined();
  const units = amount ?? BigInt(amountText(url).replace('.', ''));
  return pay(connection, {
    from: buyer,
    recipientOwner: new PublicKey(String(t.recipient)),
    mint: new PublicKey(String(t.splToken)),
    amount: units,
    references: (t.reference ?? []).map((r) => new PublicKey(String(r))),
    createRecipientAta: true, // idempotent: the seeded localnet already has every vendor's account
  });
}

async function fillUsForm(page: Page, name: string, email: string): Promise<void> {
  const form = page.getByRole('form', { name: 'Shipping details' });
  await form.locator('[name="fullName"]').fill(name);
  await form.locator('[name="email"]').fill(email);
  await form.locator('[name="address1"]').fill('12 Elm St');
  await form.locator('[name="city"]').fill('Portland');
  await form.locator('[name="usState"]').selectOption('OR');
  await form.locator('[name="zip"]').fill('97201');
}

async function waitForDialog(q: QrPage, count: number, timeoutMs = 40_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (q.dialogs.length < count) {
    if (Date.now() > deadline)
      throw new Error(`no alert after ${timeoutMs} ms (alerts so far: ${JSON.stringify(q.dialogs)})`);
    await q.page.waitForTimeout(100);
  }
  return q.dialogs[count - 1] as string;
}

async function waitForStatus(page: Page, ...statuses: string[]): Promise<string> {
  const el = page.getByTestId('order-status');
  await page.waitForFunction(
    (wanted) =>
      wanted.includes(
        document.querySelector('[data-testid="order-status"]')?.getAttribute('data-status') ?? '',
      ),
    statuses,
    { timeout: 30_000, polling: 200 },
  );
  return (await el.getAttribute('data-status')) ?? '';
}

const mailsTo = (address: string, subject: RegExp): ParsedMail[] =>
  stack.mail
    .messages()
    .filter(
      (m) =>
        (m.to && !Array.isArray(m.to) ? m.to.text : '').includes(address) && subject.test(m.subject ?? ''),
    );

async function waitForMail(address: string, subject: RegExp, count = 1): Promise<ParsedMail[]> {
  const deadline = Date.now() + 30_000;
  while (mailsTo(address, subject).length < count) {
    if (Date.now() > deadline) throw new Error(`expected ${count} '${subject}' e-mail(s) to ${address}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return mailsTo(address, subject);
}

/** The first message to `address` with that subject whose text contains `text` (waits for it). */
async function waitForMailWith(address: string, subject: RegExp, text: string): Promise<ParsedMail> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const found = mailsTo(address, subject).find((m) => (m.text ?? '').includes(text));
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no '${subject}' e-mail to ${address} with '${text}'`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const SELLER = 'seller@shop.test';

/** Where an element sits in the document (not the viewport: a screenshot may have scrolled the page). */
const docBox = (l: Locator) =>
  l.evaluate((el) => {
    const r = el.getBoundingClientRect();
    return { x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height };
  });

/** The key journeys run on a phone (390 × 844, touch: taps) and at a desk (clicks). */
const viewports: [string, BrowserContextOptions][] = [
  ['a phone (390 × 844, touch)', { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true }],
  ['a desk', { viewport: { width: 1280, height: 900 } }],
];
const press = (options: BrowserContextOptions, target: Locator) =>
  options.hasTouch ? target.tap() : target.click();
/** A confirmation (details) request; the record itself is made by POST /api/orders when the QR is shown. */
const orderApi = (r: Request) =>
  /\/api\/orders\/[^/]+\/confirmation$/.test(new URL(r.url()).pathname) && r.method() === 'POST';
const recordApi = (r: Request) => new URL(r.url()).pathname === '/api/orders' && r.method() === 'POST';

/** The order page link of a message (every buyer e-mail has one). */
function orderPageLink(mail: ParsedMail | undefined): string {
  const m = /Order page: (http:\/\/\S+\/order\/[0-9a-f]{32})/.exec(mail?.text ?? '');
  if (!m?.[1]) throw new Error(`no order page link in: ${mail?.text ?? '(no mail)'}`);
  return m[1];
}

describe('QR checkout', () => {
  it('shows the validation alert and sends nothing when required fields are missing', async () => {
    const q = await openQr('/honey2');
    await decodeQr(q.page);
    await q.page.getByRole('button', { name: 'Send Order Confirmation' }).click();
    expect(await waitForDialog(q, 1)).toBe(MISSING);
    // Only some fields: still refused.
    await q.page.locator('[name="fullName"]').fill('Half Done');
    await q.page.locator('[name="email"]').fill('half@example.test');
    await q.page.getByRole('button', { name: 'Send Order Confirmation' }).click();
    expect(await waitForDialog(q, 2)).toBe(MISSING);
    await q.page.waitForTimeout(500);
    expect(q.requests.filter(orderApi)).toEqual([]);
    // The QR on screen belongs to a record made before it was shown (one, without details).
    expect(q.requests.filter(recordApi)).toHaveLength(1);
    expect(unexpectedErrors(q.errors)).toEqual([]);
    await q.close();
  });

  it('encodes the server quote and rebuilds the QR with the exact new amount when the quantity changes', async () => {
    const q = await openQr('/honey2');
    const one = await decodeQr(q.page);
    const t1 = transfer(one);
    expect(String(t1.recipient)).toBe(stack.settings.recipients.gorilla);
    expect(String(t1.splToken)).toBe(stack.settings.claimMint);
    expect(t1.reference).toHaveLength(1);
    expect(t1.label).toBe('Gorilla Pack Genetics');
    expect(t1.message).toBe('1 × Honey Dew Papaya Live Rosin');
    expect(new BigNumber(amountText(one)).isEqualTo(expected(50, 1))).toBe(true);
    expect(amountText(one)).toBe('166666.666667');
    expect(t1.amount).toBe(166666.666667);
    // The phone links carry the same URL; the image has alt text.
    expect(await q.page.getByTestId('open-in-wallet').getAttribute('href')).toBe(one);
    expect(await q.page.getByTestId('qr-image').getAttribute('alt')).toMatch(/Solana Pay QR code/);
    await q.context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await q.page.getByRole('button', { name: 'Copy payment link' }).click();
    await q.page.getByText('Payment link copied.').waitFor();
    expect(await q.page.evaluate(() => navigator.clipboard.readText())).toBe(one);

    await q.page.getByLabel('Quantity').fill('3');
    const three = await decodeNewQr(q.page, one);
    const t3 = transfer(three);
    expect(amountText(three)).toBe(expected(50, 3).toFixed(6));
    expect(amountText(three)).toBe('500000.000000');
    expect(t3.message).toBe('3 × Honey Dew Papaya Live Rosin');
    // A new quote, but the same payment reference (renewed), so a payment of the earlier QR still matches.
    expect(String(t3.reference?.[0])).toBe(String(t1.reference?.[0]));

    await q.page.getByLabel('Quantity').fill('7');
    const seven = await decodeNewQr(q.page, three);
    expect(new BigNumber(amountText(seven)).isEqualTo(expected(50, 7))).toBe(true);
    expect(amountText(seven)).toBe('1166666.666667');
    expect(String(transfer(seven).reference?.[0])).toBe(String(t1.reference?.[0]));
    // A quantity that is not a number: no link at all, and the page says why (not 'Generating QR Code...').
    await q.page.getByLabel('Quantity').fill('0');
    await q.page.getByTestId('qr-box').getByText('Enter a whole number of 1 or more.').waitFor();
    expect(unexpectedErrors(q.errors)).toEqual([]);
    await q.close();
  });

  it.each(viewports)(
    'Eagles XL on %s: details first → focus on the QR, "Now pay", no e-mail to anyone; the payment sends both confirmations; the only piece bought, the page says sold out without a reload',
    async (_where, options) => {
      // One of a kind: each run buys the only piece, so it is put back first.
      await restock(stack.server, 'eagles-xl-joystick-cropal-stick', 1);
      const erin = `erin.${options.hasTouch ? 'phone' : 'desk'}@example.test`;
      const sellerBefore = mailsTo(SELLER, /Eagles XL/).length;
      const q = await openQr('/vendors/coopersglass/product9', { context: options });
      await q.page.getByTestId('stock').getByText('Only 1 left').waitFor();
      const url = await decodeQr(q.page);
      // One amount on the screen: the amount to pay (no approximate price beside it).
      expect(await q.page.getByTestId('qr-amount').textContent()).toBe(
        `${groupThousands(amountText(url))} $CLAIM`,
      );
      expect(await q.page.getByTestId('claim-amount').count()).toBe(0);
      // "Open in wallet" and "Copy payment link": 44 px targets that do not touch.
      const open = await docBox(q.page.getByTestId('open-in-wallet'));
      const copy = await docBox(q.page.getByRole('button', { name: 'Copy payment link' }));
      for (const b of [open, copy]) expect(b.height).toBeGreaterThanOrEqual(44);
      const apart =
        open.x + open.width < copy.x ||
        copy.x + copy.width < open.x ||
        open.y + open.height < copy.y ||
        copy.y + copy.height < open.y;
      expect(apart).toBe(true);
      if (options.hasTouch) {
        // The phone is the device that pays: its first screen offers its own wallet, the QR (for another device)
        // comes below.
        expect(await q.page.locator('#qr-title').textContent()).toBe('Pay with a wallet on this phone');
        expect(open.y + open.height).toBeLessThanOrEqual(844);
        expect((await docBox(q.page.getByTestId('qr-box'))).y).toBeGreaterThan(open.y);
        const axe = await new AxeBuilder({ page: q.page }).analyze();
        expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
      } else expect(await q.page.locator('#qr-title').textContent()).toBe('Scan to pay');
      expect(new BigNumber(amountText(url)).isEqualTo(expected(85, 1))).toBe(true);
      expect(String(transfer(url).recipient)).toBe(stack.settings.recipients.coopersglass);
      await fillUsForm(q.page, 'Erin Eagle', erin);
      const button = q.page.getByRole('button', { name: 'Send Confirmation Email' });
      await press(options, button);
      // The next step, where the QR is: focus moves there with what to pay. No alert, no "Confirmation Sent".
      const next = q.page.getByTestId('pay-next');
      await next.waitFor();
      expect(await next.textContent()).toContain(
        `Now pay ${groupThousands(amountText(url))} $CLAIM to complete the order.`,
      );
      await q.page.waitForFunction(() => document.activeElement?.classList.contains('qr-area') === true);
      expect(await q.page.getByRole('button', { name: 'Confirmation Sent' }).count()).toBe(0);
      // Details hold nothing (docs/decisions/holds.md): the page says so in plain words, the piece stays on sale.
      expect(await next.textContent()).toContain(
        'The piece is yours once your payment arrives; until then someone else can still buy it.',
      );
      expect(await q.page.getByTestId('stock').textContent()).toContain('Only 1 left');
      expect(await waitForStatus(q.page, 'awaiting_payment')).toBe('awaiting_payment');
      // Nothing is e-mailed to anyone while unpaid.
      await new Promise((r) => setTimeout(r, 1_500));
      expect(mailsTo(SELLER, /Eagles XL/)).toHaveLength(sellerBefore);
      expect(mailsTo(erin, /.*/)).toHaveLength(0);
      expect(q.dialogs).toEqual([]);
      // The QR still shows the recorded order's link.
      expect(await decodeQr(q.page)).toBe(url);

      const signature = await payUrl(url);
      await waitForStatus(q.page, 'paid', 'final');
      // The only piece is bought: the page is current without a reload (no "Only 1 left"), and the buyer's own
      // last piece brings no sold-out news: the page turns into the receipt.
      await q.page.waitForFunction(() => !document.querySelector('[data-testid="stock"]'));
      const orderId = await q.page.evaluate(
        () =>
          (
            JSON.parse(localStorage.getItem('qr-order:eagles-xl-joystick-cropal-stick') ?? '{}') as {
              orderId?: string;
            }
          ).orderId ?? '',
      );
      await expectReceipt(q.page, orderNumberOf(orderId), `${groupThousands(amountText(url))} $CLAIM`);
      expect(await q.page.getByTestId('qr-image').count()).toBe(0);
      // Now both confirmations go (seller, then buyer), saying it is paid, with no payable link; one alert.
      const sellerNew = (await waitForMail(SELLER, /^New order: Eagles XL/, sellerBefore + 1)).at(-1);
      const [buyerNew] = await waitForMail(erin, /^Your \$CLAIM order: Eagles XL/);
      for (const mail of [sellerNew, buyerNew]) {
        expect(mail?.text).toContain('Payment has been received on-chain.');
        expect(mail?.text).toContain('Paid — nothing more to pay');
        expect(`${mail?.text ?? ''}${String(mail?.html ?? '')}`).not.toContain('solana:');
      }
      expect(buyerNew?.text).toContain('Erin Eagle');
      expect(buyerNew?.text).toContain(`Transaction link: https://explorer.solana.com/tx/${signature}`);
      expect(await waitForDialog(q, 1)).toBe(SENT);
      const sent = q.page.getByRole('button', { name: 'Confirmation Sent' });
      await sent.waitFor();
      expect(await sent.isDisabled()).toBe(true);
      expect(await waitForStatus(q.page, 'final')).toBe('final');
      const href = await q.page.getByTestId('tx-link').getAttribute('href');
      expect(href).toBe(
        `https://explorer.solana.com/tx/${signature}?cluster=custom&customUrl=${encodeURIComponent(stack.settings.solana.rpcUrl)}`,
      );
      // The order page of a paid order carries no payable link either.
      const orderPage = await q.page.context().newPage();
      await orderPage.goto(orderPageLink(buyerNew));
      await orderPage.getByTestId('order-status-line').waitFor();
      expect(await orderPage.locator('a[href^="solana:"]').count()).toBe(0);
      await orderPage.close();

      // Reload: the order is resumed from localStorage and its status read from the server; paid, so no QR.
      await q.page.reload();
      expect(await waitForStatus(q.page, 'final')).toBe('final');
      expect(await q.page.getByRole('button', { name: 'Confirmation Sent' }).isDisabled()).toBe(true);
      await q.page.getByTestId('payment-received').waitFor();
      expect(await q.page.getByTestId('qr-image').count()).toBe(0);
      // A paid order offers no "Start a new order"; exactly one confirmation pair, and one alert in all.
      expect(await q.page.getByRole('button', { name: 'Start a new order' }).count()).toBe(0);
      expect(mailsTo(SELLER, /Eagles XL/)).toHaveLength(sellerBefore + 1);
      expect(mailsTo(erin, /.*/)).toHaveLength(1);
      expect(q.dialogs).toHaveLength(1);
      expect(unexpectedErrors(q.errors)).toEqual([]);
      await q.close();
    },
  );

  it('pay the QR, reload, Payment received, send details: both e-mails right, the order page shows it paid', async () => {
    const q = await openQr('/honey2');
    const first = await decodeQr(q.page);
    await q.page.getByLabel('Quantity').fill('2');
    const url = await decodeNewQr(q.page, first);
    expect(amountText(url)).toBe(expected(50, 2).toFixed(6));
    const signature = await payUrl(url);
    // Live: the watcher records it, the QR goes, the page asks for the details.
    await q.page.getByTestId('payment-received').waitFor({ timeout: 30_000 });
    expect(await q.page.getByTestId('qr-image').count()).toBe(0);
    // Reload before sending anything: the record is resumed, still paid.
    await q.page.reload();
    await q.page.getByTestId('payment-received').waitFor({ timeout: 30_000 });
    expect(await q.page.getByTestId('payment-received').textContent()).toContain('Payment received');
    await fillUsForm(q.page, 'Paula Early', 'paula@example.test');
    await q.page.getByRole('button', { name: 'Send Order Confirmation' }).click();
    expect(await waitForDialog(q, 1)).toBe(SENT);
    expect(await waitForStatus(q.page, 'paid', 'final')).toMatch(/paid|final/);
    expect(await q.page.getByTestId('tx-link').getAttribute('href')).toContain(signature);
    // One record, no second order.
    expect(q.requests.filter(recordApi)).toHaveLength(1);

    const seller = await waitForMailWith(SELLER, /^New order: Honey Dew Papaya/, 'Paula Early');
    const [buyerMail] = await waitForMail('paula@example.test', /^Your \$CLAIM order: Honey Dew Papaya/);
    for (const m of [seller, buyerMail]) {
      expect(m?.text).toContain('Payment has been received on-chain.');
      expect(m?.text).not.toContain('not been seen');
      expect(m?.text).toContain('Quantity: 2');
      expect(m?.text).toContain(`Transaction link: https://explorer.solana.com/tx/${signature}`);
    }
    // The buyer's order page: paid, the transaction linked for the localnet, the details as typed.
    const link = orderPageLink(buyerMail);
    await q.page.goto(link);
    await q.page.getByTestId('order-page').waitFor();
    await q.page.waitForFunction(
      () =>
        ['paid', 'final'].includes(
          document.querySelector('[data-testid="order-page"]')?.getAttribute('data-status') ?? '',
        ),
      undefined,
      { timeout: 30_000, polling: 200 },
    );
    expect(await q.page.getByTestId('order-status-line').textContent()).toContain('Payment received');
    expect(await q.page.getByTestId('order-items').textContent()).toContain(
      '2 × Honey Dew Papaya Live Rosin',
    );
    expect(await q.page.getByTestId('order-tx-link').getAttribute('href')).toBe(
      `https://explorer.solana.com/tx/${signature}?cluster=custom&customUrl=${encodeURIComponent(stack.settings.solana.rpcUrl)}`,
    );
    // The details as typed, so a typo can be caught; the e-mail masked.
    expect(await q.page.getByTestId('order-details').innerText()).toBe(
      'Paula Early\n12 Elm St\nPortland, OR 97201\nE-mail: p•••@example.test',
    );
    expect((await q.page.locator('main').textContent()) ?? '').not.toContain('paula@example.test');
    expect(unexpectedErrors(q.errors)).toEqual([]);
    await q.close();
  });

  it('pay, close the tab and never come back: the seller is told "paid, shipping details missing"', async () => {
    const q = await openQr('/honey2');
    const one = await decodeQr(q.page);
    await q.page.getByLabel('Quantity').fill('3');
    const url = await decodeNewQr(q.page, one);
    expect(amountText(url)).toBe('500000.000000');
    const orderId = await q.page.evaluate(
      () =>
        (
          JSON.parse(localStorage.getItem('qr-order:honey-dew-papaya-live-rosin') ?? '{}') as {
            orderId?: string;
          }
        ).orderId,
    );
    await q.close();
    const signature = await payUrl(url);
    const told = await waitForMailWith(
      SELLER,
      /^Paid, shipping details missing: Honey Dew Papaya/,
      signature,
    );
    expect(told.text).toContain('Received ($CLAIM): 500,000.000000');
    expect(told.text).toContain('Name: not given yet');
    const res = await fetch(`${stack.url}/api/orders/${orderId ?? ''}`);
    expect(await res.json()).toMatchObject({ shippingDetails: 'missing', signature });
  });

  it('a wallet order page survives a reload; a wrong token shows "Order not found"', async () => {
    const quote = (await (
      await fetch(`${stack.url}/api/quotes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ items: [{ productId: 'garlic-amaretto-live-resin', quantity: 2 }] }),
      })
    ).json()) as { quote: string };
    const created = (await (
      await fetch(`${stack.url}/api/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': `wallet-page-${Date.now()}` },
        body: JSON.stringify({
          quote: quote.quote,
          paymentMethod: 'wallet',
          shipping: {
            kind: 'international',
            fullName: 'Walt Wallet',
            email: 'walt@example.test',
            address1: '1 Wallet Way',
            city: 'Lisbon',
            stateProvince: 'Lisboa',
            postalCode: '1000-001',
            country: 'Portugal',
          },
        }),
      })
    ).json()) as { orderUrl: string; solanaPayUrl: string };
    expect(created.orderUrl).toMatch(/\/order\/[0-9a-f]{32}$/);
    const signature = await payUrl(created.solanaPayUrl);
    const [buyerMail] = await waitForMail('walt@example.test', /^Your \$CLAIM order: Garlic Amaretto/);
    expect(orderPageLink(buyerMail)).toBe(created.orderUrl);
    expect(buyerMail?.text).toContain('Quantity: 2');

    const opened = await openPage(browser, stack.url);
    await opened.page.goto(created.orderUrl);
    await opened.page.getByTestId('order-page').waitFor();
    await opened.page.reload();
    await opened.page.getByTestId('order-tx-link').waitFor({ timeout: 30_000 });
    expect(await opened.page.getByTestId('order-tx-link').getAttribute('href')).toContain(signature);
    expect(await opened.page.getByTestId('order-items').textContent()).toContain(
      '2 × Garlic Amaretto Live Resin',
    );

    const wrong = created.orderUrl.replace(/[0-9a-f]{32}$/, '0'.repeat(32));
    // The HTML says nothing about whether a token exists (200 either way); the page's API call answers 404 and
    // the page says so.
    const res = await opened.page.goto(wrong);
    expect(res?.status()).toBe(200);
    await opened.page.getByRole('heading', { name: /not found/i }).waitFor();
    expect(unexpectedErrors(opened.errors, [/\/order(-pages)?\/0{32}$/])).toEqual([]);
    await opened.close();
  });

  it('an e-mail failure alerts and keeps the button; the retry sends without a second order or e-mail', async () => {
    const q = await openQr('/honey2');
    const url = await decodeQr(q.page);
    // Paid first (no mail for the unpaid), then the details while e-mail is down.
    await payUrl(url);
    await q.page.getByTestId('payment-received').waitFor({ timeout: 30_000 });
    await fillUsForm(q.page, 'Rita Retry', 'rita@example.test');
    stack.mail.setFailing(true);
    const button = q.page.getByRole('button', { name: 'Send Order Confirmation' });
    await button.click();
    expect(await waitForDialog(q, 1)).toBe(FAILED);
    await q.page.waitForFunction(() =>
      [...document.querySelectorAll('button')].some(
        (b) => b.textContent === 'Send Order Confirmation' && !b.disabled,
      ),
    );
    stack.mail.setFailing(false);
    await button.click();
    expect(await waitForDialog(q, 2)).toBe(SENT);
    expect(await q.page.getByRole('button', { name: 'Confirmation Sent' }).isDisabled()).toBe(true);
    // One order (the retry reused it), one confirmation per recipient.
    const creates = q.requests.filter(
      (r) => new URL(r.url()).pathname === '/api/orders' && r.method() === 'POST',
    );
    expect(creates).toHaveLength(1);
    const rows = await ordersOfBuyer(stack.server.store, stack.settings, 'Rita Retry');
    expect(rows).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(mailsTo('rita@example.test', /.*/)).toHaveLength(1);
    expect(
      mailsTo(SELLER, /^New order: Honey Dew Papaya/).filter((m) => (m.text ?? '').includes('Rita Retry')),
    ).toHaveLength(1);
    expect(unexpectedErrors(q.errors)).toEqual([]);
    await q.close();
  });

  it('paid at the QR, then the quantity changed: the record stays as paid and the details complete it', async () => {
    const q = await openQr('/honey2');
    const one = await decodeQr(q.page);
    const reference = String(transfer(one).reference?.[0]);
    const signature = await payUrl(one); // 166666.666667 $CLAIM
    await q.page.getByTestId('payment-received').waitFor({ timeout: 30_000 });
    // The buyer then raises the quantity: the paid record does not move; the page says so.
    await q.page.getByLabel('Quantity').fill('2');
    await q.page.getByText('This order is for 1.').waitFor();
    expect(await q.page.getByTestId('qr-image').count()).toBe(0);
    await fillUsForm(q.page, 'Drew Drift', 'drew@example.test');
    await q.page.getByRole('button', { name: 'Send Order Confirmation' }).click();
    expect(await waitForDialog(q, 1)).toBe(SENT);
    const [drew] = await ordersOfBuyer(stack.server.store, stack.settings, 'Drew Drift');
    const row = {
      reference: drew?.reference,
      signature: drew?.signature,
      received_base_units: drew?.received_base_units,
      amount_base_units: drew?.amount_base_units,
    };
    expect(row).toEqual({
      reference,
      signature,
      received_base_units: '166666666667',
      amount_base_units: '166666666667',
    });
    expect(unexpectedErrors(q.errors)).toEqual([]);
    await q.close();
  });

  it('no price anywhere: no QR, and the confirmation is still sent (with retry) with totalCLAIM N/A', async () => {
    serverPrice = undefined; // the server's price service knows none, and /api/price answers 503
    try {
      const q = await openQr('/honey2', { priceFails: true });
      await q.page.getByTestId('qr-box').getByText('Failed to load price. Try again later.').waitFor();
      await q.page.getByTestId('unpriced-note').waitFor();
      expect(await q.page.getByTestId('qr-image').count()).toBe(0);
      const button = q.page.getByRole('button', { name: 'Send Order Confirmation' });
      // The US form is still checked first (spec alert, nothing sent).
      await button.click();
      expect(await waitForDialog(q, 1)).toBe(MISSING);
      expect(q.requests.filter(orderApi)).toEqual([]);
      await q.page.getByLabel('Quantity').fill('2');
      await fillUsForm(q.page, 'Nora Noprice', 'nora@example.test');
      await q.page.getByTestId('unpriced-note').waitFor(); // the unpriced quote for quantity 2
      // A mail failure: the failure alert, the button stays enabled; the retry sends once.
      stack.mail.setFailing(true);
      await button.click();
      expect(await waitForDialog(q, 2)).toBe(FAILED);
      await q.page.waitForFunction(() =>
        [...document.querySelectorAll('button')].some(
          (b) => b.textContent === 'Send Order Confirmation' && !b.disabled,
        ),
      );
      stack.mail.setFailing(false);
      await button.click();
      expect(await waitForDialog(q, 3)).toBe(SENT);
      expect(await q.page.getByRole('button', { name: 'Confirmation Sent' }).isDisabled()).toBe(true);
      await q.page.getByTestId('unpriced-order').waitFor();

      const [seller] = await waitForMail(SELLER, /^New order: Honey Dew Papaya/).then((all) =>
        all.filter((m) => (m.text ?? '').includes('Nora Noprice')),
      );
      const [buyerMail] = await waitForMail('nora@example.test', /^Your \$CLAIM order: Honey Dew Papaya/);
      for (const m of [seller, buyerMail]) {
        expect(m?.text).toContain('Total ($CLAIM): N/A');
        expect(m?.text).toContain('Solana Pay link: N/A');
        expect(m?.text).toContain('Total (USD): $100.00');
        expect(m?.text).toContain('Quantity: 2');
      }
      await new Promise((r) => setTimeout(r, 1_500));
      expect(mailsTo('nora@example.test', /.*/)).toHaveLength(1);
      const rows = (await ordersOfBuyer(stack.server.store, stack.settings, 'Nora Noprice')).map((o) => ({
        amount_base_units: o.amount_base_units,
        solana_pay_url: o.solana_pay_url,
        status: o.status,
      }));
      expect(rows).toEqual([{ amount_base_units: null, solana_pay_url: null, status: 'awaiting_payment' }]);
      expect(unexpectedErrors(q.errors, [API_PRICE])).toEqual([]); // only the routed 503 of /api/price
      await q.close();
    } finally {
      serverPrice = PRICE;
    }
  });
});
