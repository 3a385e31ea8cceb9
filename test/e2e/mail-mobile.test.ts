/**
 * E-mails on a phone: every kind of message, for the seller and the buyer, written by the real `file` transport
 * (.eml, as sent), read back with mailparser, and its HTML part rendered in headless Chromium at 390 px wide
 * (an iPhone's width): the page must not scroll sideways. The fixtures carry the longest values a message has
 * (88-character signatures, explorer links, the order page link, a Solana Pay link, a long tracking number and
 * shipping address). The headers are checked on the same parsed messages: Message-ID on the MAIL_FROM domain,
 * `Auto-Submitted: auto-generated`, and every buyer message naming its vendor with a reply address.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPriceAlertEmail, type EmailKind, type OrderEmailFacts } from '../../src/core/email-payload';
import { createFileTransport } from '../../src/server/mail';
import type { OutgoingEmail } from '../../src/server/mail/types';
import { launchBrowser } from '../support/browser';
import { outgoing, qrFacts, SELLER, VENDOR, walletFacts } from '../support/mail-fixtures';

const FROM = '$CLAIM Store <orders@shop.claim.example>';
const SIG = '5'.repeat(88);
const EXPLORER = `https://explorer.solana.com/tx/${SIG}?cluster=custom&customUrl=http%3A%2F%2F127.0.0.1%3A8899`;
const ORDER_URL = `https://shop.claim.example/order/${'t'.repeat(43)}`;

const longFacts = (base: OrderEmailFacts): OrderEmailFacts => ({
  ...base,
  shipping: {
    kind: 'international',
    fullName: 'Maximiliane Alexandra Fürstenberg-Hohenlohe-Waldenburg',
    email: 'maximiliane.alexandra.fuerstenberg-hohenlohe@example-mail-provider.example',
    address1: 'Unit 1204, Tower B, Kowloon Commerce Centre, 51 Kwai Cheong Road',
    address2: 'Attention: Receiving Department, Loading Bay 7',
    city: 'Kwai Chung',
    stateProvince: 'New Territories',
    postalCode: '999077',
    country: 'Hong Kong',
  },
  receivedBaseUnits: 47_619_047_619n,
  orderNumber: 'A1B2C3D4',
  orderUrl: ORDER_URL,
  transactionUrls: [EXPLORER, EXPLORER.replace('5555', '4444')],
  usdAtPaymentCents: 19_850,
  shipment: { trackingNumber: 'LX123456789012345678901234567890HK', carrier: 'Hongkong Post' },
});

const KINDS: EmailKind[] = [
  'order_confirmation',
  'payment_received',
  'payment_underpaid',
  'details_missing',
  'paid_late',
  'order_shipped',
  'payment_oversold',
];

function allMessages(): OutgoingEmail[] {
  const out: OutgoingEmail[] = [];
  for (const [name, facts] of [
    ['wallet', longFacts(walletFacts)],
    ['qr', longFacts(qrFacts)],
  ] as const)
    for (const kind of KINDS) out.push(...outgoing(facts, kind, `ord_${name}`));
  out.push(
    ...outgoing(
      { ...longFacts(walletFacts), extraPayment: { signature: SIG, receivedBaseUnits: 1_000_000n } },
      'payment_received',
      'ord_extra',
    ),
  );
  const alert = buildPriceAlertEmail(
    SELLER,
    'DexScreener says $0.004200, GeckoTerminal $0.003900: 7.69 % apart, more than 5 %.',
  );
  out.push({
    id: 'alert-1',
    orderId: '',
    kind: 'price_alert',
    role: 'seller',
    to: alert.to,
    payoutGroup: 'gorilla',
    paymentSeen: false,
    payload: alert.payload,
  });
  return out;
}

const addr = (a: AddressObject | AddressObject[] | undefined) => (Array.isArray(a) ? a[0] : a)?.value[0];

describe('e-mails on a 390 px phone', () => {
  let dir: string;
  let mails: { message: OutgoingEmail; parsed: ParsedMail }[];
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'claim-mail-mobile-'));
    const transport = createFileTransport({ dir, from: FROM });
    const messages = allMessages();
    for (const m of messages) await transport.send(m);
    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.eml'))
      .sort();
    expect(files).toHaveLength(messages.length);
    mails = [];
    for (const [i, f] of files.entries())
      mails.push({ message: messages[i]!, parsed: await simpleParser(readFileSync(join(dir, f))) });
    browser = await launchBrowser();
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 3,
      isMobile: true,
      hasTouch: true,
    });
    page = await context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Renders HTML at the phone's width; the widths the page lays out. */
  async function widths(html: string) {
    await page.setContent(html, { waitUntil: 'load' });
    return page.evaluate(() => ({
      viewport: window.innerWidth,
      document: document.documentElement.scrollWidth,
      body: document.body.scrollWidth,
    }));
  }

  it('the measure catches a page that scrolls sideways (a long raw link without the viewport)', async () => {
    const w = await widths(`<!doctype html><html><body><p>${EXPLORER}${EXPLORER}</p></body></html>`);
    expect(w.document).toBeGreaterThan(390);
  });

  it('every message, seller and buyer, fits 390 px without sideways scrolling', async () => {
    expect(mails.length).toBeGreaterThanOrEqual(20);
    for (const { message, parsed } of mails) {
      const what = `${message.kind}/${message.role} ${message.orderId}`;
      expect(parsed.html, what).toBeTruthy();
      const html = parsed.html as string;
      expect(html, what).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
      // No fixed widths anywhere in the markup.
      expect(html, what).not.toMatch(/\swidth="\d+"|(?<!max-)width:\s*\d+px/);
      const w = await widths(html);
      expect(w.viewport, what).toBe(390);
      expect(w.document, what).toBeLessThanOrEqual(390);
      expect(w.body, what).toBeLessThanOrEqual(390);
      // Long links are words in HTML.
      for (const link of [EXPLORER, ORDER_URL]) expect(html, what).not.toContain(`>${link}<`);
      // Every next step (order page, transaction, parcel, payment) is a 44 px button.
      const short = await page.evaluate(() =>
        [...document.querySelectorAll('td a')]
          .map((a) => ({ text: a.textContent, height: a.getBoundingClientRect().height }))
          .filter((a) => a.height < 44),
      );
      expect(short, what).toEqual([]);
      // A label breaks between its words only ('Transacti' / 'on link' in a narrow first column otherwise).
      const brokenWords = await page.evaluate(() =>
        [...document.querySelectorAll('th')].flatMap((th) => {
          const text = th.firstChild;
          if (!text || text.nodeType !== Node.TEXT_NODE) return [];
          const broken: string[] = [];
          for (const m of (text.textContent ?? '').matchAll(/\S+/g)) {
            const range = document.createRange();
            range.setStart(text, m.index);
            range.setEnd(text, m.index + m[0].length);
            const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
            if (lines.size > 1) broken.push(m[0]);
          }
          return broken;
        }),
      );
      expect(brokenWords, what).toEqual([]);
    }
  });

  it('parses cleanly with mailparser: Message-ID on the MAIL_FROM domain, Auto-Submitted, the vendor in every buyer message', async () => {
    const buyers = mails.filter((m) => m.message.role === 'buyer');
    expect(buyers.length).toBeGreaterThanOrEqual(8);
    for (const { message, parsed } of mails) {
      const what = `${message.kind}/${message.role} ${message.orderId}`;
      expect(parsed.messageId, what).toMatch(/^<[A-Za-z0-9._-]+@shop\.claim\.example>$/);
      expect(parsed.headers.get('auto-submitted'), what).toBe('auto-generated');
      expect(addr(parsed.from), what).toEqual({ address: 'orders@shop.claim.example', name: '$CLAIM Store' });
      if (message.role !== 'buyer') continue;
      expect(addr(parsed.replyTo), what).toEqual({ address: VENDOR.email, name: VENDOR.name });
      expect(parsed.text, what).toContain(`Sold by ${VENDOR.name}.`);
      expect(parsed.html, what).toContain(`Sold by <strong>${VENDOR.name}</strong>.`);
      expect(parsed.html, what).toContain(`<a href="mailto:${VENDOR.email}">`);
      if (message.orderId === 'ord_wallet')
        expect(parsed.html, what).toContain(`<a href="${VENDOR.telegramUrl}">message them on Telegram</a>`);
    }
  });
});
