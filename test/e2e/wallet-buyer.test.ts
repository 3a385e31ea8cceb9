/**
 * The buyer on a keyboard, a phone and other wallets: the wallet modal's accessibility (name, named
 * close button, focus trap and return, axe with it open), invalid form fields, a keyboard-only purchase with focus
 * checks, the finished order's link to the order page, a Wallet Standard wallet buying, and a 390 × 844 touch
 * screen without a wallet. Full stack: built app, real server, localnet, SMTP sink, headless Chromium.
 */
import AxeBuilder from '@axe-core/playwright';
import { parseURL, validateTransfer } from 'solana-pay-client';
import { Connection, Keypair, PublicKey } from '@solana/web3.js';
import { createSolanaRpc } from '@solana/kit';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderPublic } from '../../src/core/api';
import { launchBrowser, openPage, unexpectedErrors, type OpenedPage } from '../support/browser';
import { startStack, type Stack } from '../support/stack';
import { restock } from '../support/stock';
import { installStandardTestWallet, installTestWallet, type TestWalletControl } from '../support/wallet';
import { pay } from '../integration/payments-support';
import { orderNumberOf } from '../../src/core/order-number';
import { expectReceipt } from '../support/receipt';
import { groupThousands } from '../../src/core/money';

const PRODUCT = '/vendors/coopersglass/product2'; // Lilac TipTop, paid with a wallet
const PRODUCT_ID = 'lilac-tiptop';
const MISSING = 'Please fill out all required shipping details first!';
const CONFIRMATION_SENT = 'Order confirmation sent to both seller and buyer!';
const PAYMENT_OK =
  /^Payment Successful! Sent \d+\.\d{6} \$CLAIM\. Transaction ID: [1-9A-HJ-NP-Za-km-z]{64,88}\n/;
const SHIPPING: [string, string][] = [
  ['fullName', 'Grace Hopper'],
  ['email', 'grace@buyer.test'],
  ['address1', '2 Harbor Rd'],
  ['address2', ''],
  ['city', 'Arlington'],
  ['stateProvince', 'VA'],
  ['postalCode', '22201'],
  ['country', 'USA'],
];
const PHONE: BrowserContextOptions = {
  viewport: { width: 390, height: 844 },
  hasTouch: true,
  isMobile: true,
};

let stack: Stack;
let browser: Browser;

beforeAll(async () => {
  [stack, browser] = await Promise.all([
    startStack({
      slotMs: 50,
      finalizeLag: 10,
      // The gorilla vendor starts without its token account: the priority-fee journey creates it (two transactions).
      withoutTokenAccount: ['gorilla'],
    }),
    launchBrowser(),
  ]);
  await restock(stack.server, PRODUCT_ID, 50);
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

interface Session extends OpenedPage {
  wallet: TestWalletControl;
  buyer: Keypair;
  dialogs: string[];
}

async function session(
  opts: { absent?: boolean; fund?: boolean; context?: BrowserContextOptions } = {},
): Promise<Session> {
  const buyer = Keypair.generate();
  if (opts.fund !== false) await stack.fund(buyer.publicKey.toBase58(), { sol: 2, claim: 100_000_000 });
  const opened = await openPage(browser, stack.url, opts.context);
  const wallet = await installTestWallet(opened.page, {
    keypair: buyer,
    rpcUrl: stack.localnet.rpcUrl,
    absent: opts.absent === true,
  });
  const dialogs: string[] = [];
  opened.page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.accept();
  });
  return { ...opened, wallet, buyer, dialogs };
}

async function until<T>(what: string, f: () => Promise<T | undefined> | T | undefined, ms = 30_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
const alertAt = (s: Session, n: number) =>
  until(`alert #${n + 1} (so far: ${JSON.stringify(s.dialogs)})`, () => s.dialogs[n]);

async function openProduct(page: Page): Promise<void> {
  await page.goto(PRODUCT);
  await page.waitForFunction(() => {
    const b = document.querySelector<HTMLButtonElement>('button.buy-now');
    return !!b && !b.disabled && b.textContent === 'Buy Now';
  });
}

/** What has keyboard focus: tag, name, id, classes, text, and whether it sits in the wallet dialog. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    return {
      tag: el?.tagName.toLowerCase() ?? null,
      name: el?.getAttribute('name') ?? null,
      id: el?.id ?? null,
      className: typeof el?.className === 'string' ? el.className : '',
      text: (el?.textContent ?? '').trim(),
      inDialog: !!el?.closest('[role="dialog"]'),
      placeholder: !!el?.hasAttribute('data-placeholder'),
    };
  });

/** Presses Tab (keyboard only) until `match` holds for the focused element; fails after `max` presses. */
async function tabTo(
  page: Page,
  what: string,
  match: (f: Awaited<ReturnType<typeof focused>>) => boolean,
  max = 60,
): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (match(await focused(page))) return;
  }
  throw new Error(`Tab never reached ${what}; focus is on ${JSON.stringify(await focused(page))}`);
}

async function getOrder(id: string): Promise<OrderPublic> {
  const res = await fetch(`${stack.url}/api/orders/${id}`);
  expect(res.status).toBe(200);
  return (await res.json()) as OrderPublic;
}

async function openOrderId(page: Page): Promise<string> {
  const raw = await page.evaluate((k) => localStorage.getItem(k), `claim.walletOrder.${PRODUCT_ID}`);
  expect(raw).toBeTruthy();
  return (JSON.parse(raw ?? '{}') as { orderId: string }).orderId;
}

const dialog = (page: Page) => page.locator('[role="dialog"]');

describe('wallet modal accessibility', () => {
  for (const [where, context] of [
    ['at a desk', undefined],
    ['on a 390 px phone', PHONE],
  ] as const)
    it(`${where}: has a name, a named close button, 44 px targets, traps focus and returns it; axe finds nothing with it open`, async () => {
      const s = await session({ fund: false, ...(context ? { context } : {}) });
      await openProduct(s.page);
      await s.page.getByRole('button', { name: 'Select Wallet' }).focus(); // intent: the wallet chunk loads
      const real = s.page.locator('button.wallet-button:not([data-placeholder])');
      await real.waitFor();
      await real.focus();
      await s.page.keyboard.press('Enter');

      const modal = s.page.getByRole('dialog', { name: 'Connect a wallet on Solana to continue' });
      await modal.waitFor();
      expect(await modal.getAttribute('aria-modal')).toBe('true');
      await modal.getByRole('button', { name: 'Close' }).waitFor();
      expect(await modal.getByRole('button', { name: /Phantom\s*Detected/ }).count()).toBe(1);
      // Focus moved into the dialog, on the first wallet.
      await until('focus in the dialog', async () => ((await focused(s.page)).inDialog ? true : undefined));
      expect((await focused(s.page)).text).toMatch(/^Phantom\s*Detected$/);

      // axe with the modal open: nothing at all inside the dialog, nothing serious or critical on the page.
      await s.page.locator('.wallet-picker.is-open').waitFor();
      // Every target in it is at least 44 × 44 px, and it fits the screen.
      const targets = await modal.locator('button, a[href]').evaluateAll((els) =>
        els.map((el) => {
          const r = el.getBoundingClientRect();
          return {
            text: (el.textContent ?? '').trim() || el.getAttribute('aria-label'),
            w: r.width,
            h: r.height,
            right: r.right,
          };
        }),
      );
      expect(targets.length).toBeGreaterThanOrEqual(2);
      for (const t of targets) {
        expect(t.h, JSON.stringify(t)).toBeGreaterThanOrEqual(44);
        expect(t.w, JSON.stringify(t)).toBeGreaterThanOrEqual(44);
        expect(t.right, JSON.stringify(t)).toBeLessThanOrEqual(context ? 390 : 1280);
      }
      const inDialog = await new AxeBuilder({ page: s.page }).include('[role="dialog"]').analyze();
      expect(inDialog.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.html).join(' | ')}`)).toEqual(
        [],
      );
      const whole = await new AxeBuilder({ page: s.page }).analyze();
      expect(
        whole.violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${v.id} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`),
      ).toEqual([]);

      // Tab and Shift+Tab cycle inside the dialog (Close, Phantom), never out of it.
      const seen = new Set<string>();
      for (let i = 0; i < 5; i++) {
        await s.page.keyboard.press('Tab');
        const f = await focused(s.page);
        expect(f.inDialog, JSON.stringify(f)).toBe(true);
        seen.add(f.text || f.className);
      }
      for (let i = 0; i < 5; i++) {
        await s.page.keyboard.press('Shift+Tab');
        expect((await focused(s.page)).inDialog).toBe(true);
      }
      expect(seen.size).toBe(2);

      // Escape closes it and focus goes back to Select Wallet.
      await s.page.keyboard.press('Escape');
      await dialog(s.page).waitFor({ state: 'detached' });
      await until('focus back on Select Wallet', async () =>
        (await focused(s.page)).text === 'Select Wallet' ? true : undefined,
      );

      // The named close button closes it too (keyboard: Enter on it), focus returns again.
      await s.page.keyboard.press('Enter');
      await modal.waitFor();
      await modal.getByRole('button', { name: 'Close' }).focus();
      await s.page.keyboard.press('Enter');
      await dialog(s.page).waitFor({ state: 'detached' });
      await until('focus back after Close', async () =>
        (await focused(s.page)).text === 'Select Wallet' ? true : undefined,
      );
      expect(s.wallet.requests()).toEqual([]);
      expect(unexpectedErrors(s.errors)).toEqual([]);
      await s.close();
    });

  it("no wallet at all (desktop): 'You'll need a wallet on Solana to continue' is named, and axe-clean", async () => {
    const s = await session({ absent: true, fund: false });
    await openProduct(s.page);
    await s.page.getByRole('button', { name: 'Select Wallet' }).click();
    const modal = s.page.getByRole('dialog', { name: "You'll need a wallet on Solana to continue" });
    await modal.waitFor();
    await s.page.locator('.wallet-picker.is-open').waitFor();
    const inDialog = await new AxeBuilder({ page: s.page }).include('[role="dialog"]').analyze();
    expect(inDialog.violations.map((v) => v.id)).toEqual([]);
    expect((await focused(s.page)).inDialog).toBe(true);
    // Not a phone: no in-app-browser offer, and no Mobile Wallet Adapter anywhere.
    expect(await s.page.getByTestId('phone-paths').count()).toBe(0);
    expect(await modal.getByText('Mobile Wallet Adapter').count()).toBe(0);
    await s.page.keyboard.press('Escape');
    await dialog(s.page).waitFor({ state: 'detached' });
    // Buy Now on a desktop without any wallet keeps the spec's alert.
    for (const [name, value] of SHIPPING)
      if (value) await s.page.locator(`form.order-form [name="${name}"]`).fill(value);
    await s.page.locator('button.buy-now').click();
    expect(await alertAt(s, 0)).toBe('Please install Phantom Wallet.');
    expect(unexpectedErrors(s.errors)).toEqual([]);
    await s.close();
  });
});

describe('shipping form errors', () => {
  it("marks each empty required field aria-invalid with a message next to it and focuses the first, besides the spec's alert", async () => {
    const s = await session({ fund: false });
    await openProduct(s.page);
    await s.page.locator('form.order-form [name="email"]').fill('grace@buyer.test');
    await s.page.locator('button.buy-now').click();
    expect(await alertAt(s, 0)).toBe(MISSING);
    const field = (name: string) => s.page.locator(`form.order-form [name="${name}"]`);
    await until('fields marked', async () =>
      (await field('fullName').getAttribute('aria-invalid')) === 'true' ? true : undefined,
    );
    for (const name of ['fullName', 'address1', 'city', 'stateProvince', 'postalCode', 'country'])
      expect(await field(name).getAttribute('aria-invalid'), name).toBe('true');
    for (const name of ['email', 'address2'])
      expect(await field(name).getAttribute('aria-invalid'), name).toBeNull();
    // The message is next to the field and is its description.
    const describedBy = await field('fullName').getAttribute('aria-describedby');
    expect(describedBy).toBeTruthy();
    const message = s.page.locator(`[id="${describedBy}"]`);
    expect(await message.textContent()).toBe('Full Name is required.');
    expect(
      await message.evaluate((el) => el.parentElement?.querySelector('[name="fullName"]') !== null),
    ).toBe(true);
    expect((await focused(s.page)).name).toBe('fullName');
    // Filling a field clears its mark; the others stay marked.
    await s.page.keyboard.type('Grace Hopper');
    await until('fullName cleared', async () =>
      (await field('fullName').getAttribute('aria-invalid')) === null ? true : undefined,
    );
    expect(await s.page.locator(`[id="${describedBy}"]`).count()).toBe(0);
    expect(await field('city').getAttribute('aria-invalid')).toBe('true');
    expect(s.wallet.requests()).toEqual([]);
    expect(unexpectedErrors(s.errors)).toEqual([]);
    await s.close();
  });
});

describe('keyboard-only purchase', () => {
  it('fills the form, connects in the modal and pays with the keyboard alone; focus lands on the order status; the finished order links to its order page', async () => {
    const s = await session();
    await openProduct(s.page);
    await tabTo(s.page, 'the first shipping field', (f) => f.name === 'fullName');
    for (const [i, [name, value]] of SHIPPING.entries()) {
      if (i > 0) await s.page.keyboard.press('Tab');
      expect((await focused(s.page)).name).toBe(name);
      if (value) await s.page.keyboard.type(value);
    }
    // Next in order: the wallet button (the real one: the chunk loaded on the first key).
    await tabTo(s.page, 'Select Wallet', (f) => f.text === 'Select Wallet', 3);
    await s.page.locator('button.wallet-button:not([data-placeholder])').waitFor();
    if ((await focused(s.page)).placeholder) {
      // The placeholder was focused before the real control replaced it: focus the real one by keyboard again.
      await s.page.keyboard.press('Shift+Tab');
      await tabTo(s.page, 'Select Wallet', (f) => f.text === 'Select Wallet', 3);
    }
    await s.page.keyboard.press('Enter');
    await s.page.getByRole('dialog', { name: 'Connect a wallet on Solana to continue' }).waitFor();
    await until('focus on Phantom', async () =>
      /^Phantom\s*Detected$/.test((await focused(s.page)).text) ? true : undefined,
    );
    await s.page.keyboard.press('Enter'); // choose Phantom
    await dialog(s.page).waitFor({ state: 'detached' });
    const short = s.buyer.publicKey.toBase58();
    await s.page.locator('.wallet-button', { hasText: `${short.slice(0, 4)}..${short.slice(-4)}` }).waitFor();
    // Focus came back to the wallet button (now showing the connected address).
    expect((await focused(s.page)).className).toContain('wallet-button');

    await tabTo(s.page, 'Buy Now', (f) => f.text === 'Buy Now', 5);
    await s.page.keyboard.press('Enter');
    expect(await alertAt(s, 0)).toMatch(PAYMENT_OK);
    // One alert after success: the payment and the e-mails in the same message.
    expect((await alertAt(s, 0)).endsWith(`\n${CONFIRMATION_SENT}`)).toBe(true);
    // Focus moved to the order status (never dropped to the page body).
    expect((await focused(s.page)).id).toBe('order-status-title');
    const orderId = await openOrderId(s.page);
    expect(await s.page.getByTestId('order-number').textContent()).toBe(orderNumberOf(orderId));
    // The hold message (proof of the money: docs/decisions/holds.md), then the payment.
    expect(s.wallet.requests()).toEqual(['connect', 'signMessage', 'signAndSendTransaction']);

    // The finished order links to the buyer's order page; reached by Tab from the status, opened with Enter.
    const link = s.page.getByTestId('order-page-link');
    await link.waitFor();
    const href = await link.getAttribute('href');
    expect(href).toMatch(/^\/order\/[0-9a-f]{32}$/);
    await s.page.getByRole('button', { name: 'Buy another' }).waitFor();
    await tabTo(s.page, 'the order page link', (f) => f.text === 'Your order page', 4);
    await s.page.keyboard.press('Enter');
    await s.page.waitForURL(`**${href}`);
    const orderPage = s.page.getByTestId('order-page');
    await orderPage.waitFor();
    await until('order final on the order page', async () =>
      (await orderPage.getAttribute('data-status')) === 'final' ? true : undefined,
    );
    expect((await getOrder(orderId)).status).toBe('final');
    expect(await s.page.getByTestId('order-status-line').textContent()).toContain(
      'Payment received and final',
    );

    // The link survives a reload of the product page (kept with the open order).
    await s.page.goto(PRODUCT);
    expect(await s.page.getByTestId('order-page-link').getAttribute('href')).toBe(href);
    expect(unexpectedErrors(s.errors)).toEqual([]);
    await s.close();
  });
});

/** The order's transfer on chain: from `owner`'s token account, exactly the order's base units, reference attached. */
async function expectPaidBy(
  orderId: string,
  owner: PublicKey,
  vendor: 'coopersglass' | 'gorilla' = 'coopersglass',
): Promise<OrderPublic> {
  const order = await until('order final', async () => {
    const o = await getOrder(orderId);
    return o.status === 'final' ? o : undefined;
  });
  const rpc = new Connection(stack.localnet.rpcUrl, 'confirmed');
  const tx = await rpc.getParsedTransaction(order.signature ?? '', {
    commitment: 'confirmed',
    maxSupportedTransactionVersion: 0,
  });
  expect(tx?.meta?.err).toBeNull();
  const transfer = (tx?.transaction.message.instructions ?? []).find(
    (i) => 'parsed' in i && (i.parsed as { type?: string }).type === 'transferChecked',
  ) as { parsed: { info: { authority: string; tokenAmount: { amount: string } } } } | undefined;
  expect(transfer?.parsed.info.authority).toBe(owner.toBase58());
  expect(transfer?.parsed.info.tokenAmount.amount).toBe(order.amountBaseUnits);
  expect(tx?.transaction.message.accountKeys.map((k) => k.pubkey.toBase58())).toContain(order.reference);
  // And as Solana Pay's own validator reads it (@solana/pay, an independent client): the transfer to the
  // vendor's token account, of the order's amount of the mint, with the order's reference.
  await validateTransfer(
    createSolanaRpc(stack.localnet.rpcUrl) as unknown as Parameters<typeof validateTransfer>[0],
    (order.signature ?? '') as Parameters<typeof validateTransfer>[1],
    {
      recipient: stack.localnet.keys?.recipients[vendor].toBase58() as never,
      amount: Number(order.amount),
      splToken: stack.localnet.keys?.mint.toBase58() as never,
      reference: [order.reference] as never,
    },
  );
  return order;
}

async function fillShipping(page: Page): Promise<void> {
  for (const [name, value] of SHIPPING)
    if (value) await page.locator(`form.order-form [name="${name}"]`).fill(value);
}

describe('Wallet Standard wallets', () => {
  for (const feature of ['solana:signAndSendTransaction', 'solana:signTransaction'] as const) {
    it(`a Wallet Standard wallet (${feature}) with no Phantom in the page buys; Phantom is not asked for`, async () => {
      const buyer = Keypair.generate();
      await stack.fund(buyer.publicKey.toBase58(), { sol: 2, claim: 100_000_000 });
      const o = await openPage(browser, stack.url);
      const wallet = await installStandardTestWallet(o.page, {
        keypair: buyer,
        rpcUrl: stack.localnet.rpcUrl,
        name: 'Standard Test Wallet',
        features: [feature],
      });
      const dialogs: string[] = [];
      o.page.on('dialog', (d) => {
        dialogs.push(d.message());
        void d.accept();
      });
      const s = { ...o, wallet, buyer, dialogs };
      await openProduct(o.page);
      await fillShipping(o.page);
      await o.page.locator('button.buy-now:not([data-placeholder])').waitFor();
      // The modal lists it as detected.
      await o.page.getByRole('button', { name: 'Select Wallet' }).click();
      const modal = o.page.getByRole('dialog', { name: 'Connect a wallet on Solana to continue' });
      await modal.waitFor();
      expect(await modal.locator('.wallet-picker-list li').allInnerTexts()).toEqual([
        expect.stringMatching(/^Standard Test Wallet\s*Detected$/),
      ]);
      await o.page.keyboard.press('Escape');
      await dialog(o.page).waitFor({ state: 'detached' });
      // Buy Now: the browser's only wallet is used.
      await o.page.locator('button.buy-now').click();
      expect(await alertAt(s, 0)).toMatch(PAYMENT_OK);
      // One alert after success: the payment and the e-mails in the same message.
      expect((await alertAt(s, 0)).endsWith(`\n${CONFIRMATION_SENT}`)).toBe(true);
      const orderId = await openOrderId(o.page);
      const order = await expectPaidBy(orderId, buyer.publicKey);
      expect(dialogs[0]).toContain(order.signature);
      expect(wallet.requests()).toEqual([
        'connect',
        feature === 'solana:signAndSendTransaction' ? 'signAndSendTransaction' : 'signTransaction',
      ]);
      expect(unexpectedErrors(o.errors)).toEqual([]);
      await o.close();
    });
  }

  it('with Phantom and a Wallet Standard wallet, Phantom is listed first; choosing the other one pays with it', async () => {
    const s = await session();
    const other = Keypair.generate();
    await stack.fund(other.publicKey.toBase58(), { sol: 2, claim: 100_000_000 });
    const std = await installStandardTestWallet(s.page, {
      keypair: other,
      rpcUrl: stack.localnet.rpcUrl,
      name: 'Standard Test Wallet',
      features: ['solana:signAndSendTransaction', 'solana:signTransaction'],
    });
    await openProduct(s.page);
    await fillShipping(s.page);
    await s.page.locator('button.buy-now:not([data-placeholder])').waitFor();
    await s.page.getByRole('button', { name: 'Select Wallet' }).click();
    const modal = s.page.getByRole('dialog', { name: 'Connect a wallet on Solana to continue' });
    await modal.waitFor();
    const items = await modal.locator('.wallet-picker-list li').allInnerTexts();
    expect(items).toEqual([
      expect.stringMatching(/^Phantom\s*Detected$/),
      expect.stringMatching(/^Standard Test Wallet\s*Detected$/),
    ]);
    await modal.getByRole('button', { name: /Standard Test Wallet/ }).click();
    await dialog(s.page).waitFor({ state: 'detached' });
    const short = other.publicKey.toBase58();
    await s.page.locator('.wallet-button', { hasText: `${short.slice(0, 4)}..${short.slice(-4)}` }).waitFor();
    await s.page.locator('button.buy-now').click();
    expect(await alertAt(s, 0)).toMatch(PAYMENT_OK);
    // One alert after success: the payment and the e-mails in the same message.
    expect((await alertAt(s, 0)).endsWith(`\n${CONFIRMATION_SENT}`)).toBe(true);
    await expectPaidBy(await openOrderId(s.page), other.publicKey);
    expect(s.wallet.requests()).toEqual([]); // Phantom never asked
    expect(std.requests()).toEqual(['connect', 'signAndSendTransaction']);
    expect(unexpectedErrors(s.errors)).toEqual([]);
    await s.close();
  });
});

describe('a phone (390 × 844, touch) with Phantom in its browser (its in-app browser)', () => {
  it('buys the last piece with the wallet and ends on the receipt, on screen: short order number, amount with separators, a 44 px button to the order page, no sold-out news', async () => {
    await restock(stack.server, PRODUCT_ID, 1); // the last piece: the buyer's own purchase brings no bad news
    const s = await session({ context: PHONE });
    await openProduct(s.page);
    await fillShipping(s.page);
    await s.page.locator('button.buy-now').tap();
    // Phantom is the one wallet here: the picker, if it asks, offers it detected.
    await until('the payment or the wallet picker', async () => {
      if (s.dialogs.length > 0) return true;
      const phantom = dialog(s.page).getByRole('button', { name: /Phantom/ });
      if (await phantom.isVisible().catch(() => false)) {
        await phantom.tap();
        return true;
      }
      return undefined;
    });
    // The spec's alerts, as the spec says (§8), then the page is the receipt.
    expect(await alertAt(s, 0)).toMatch(PAYMENT_OK);
    expect((await alertAt(s, 0)).endsWith(`\n${CONFIRMATION_SENT}`)).toBe(true);
    const orderId = await openOrderId(s.page);
    const order = await until('the order paid', async () => {
      const o = await getOrder(orderId);
      return o.status === 'paid' || o.status === 'final' ? o : undefined;
    });
    await expectReceipt(s.page, orderNumberOf(orderId), `${groupThousands(order.amount ?? '')} $CLAIM`);
    // On the phone's screen, not below the fold: "Paid" and the button to the order page.
    for (const el of [
      s.page.getByTestId('receipt').getByRole('heading'),
      s.page.getByTestId('order-page-link'),
    ]) {
      const box = await el.boundingBox();
      expect(box?.y ?? -1).toBeGreaterThanOrEqual(0);
      expect((box?.y ?? 0) + (box?.height ?? 0)).toBeLessThanOrEqual(PHONE.viewport?.height ?? 0);
    }
    expect(await s.page.getByTestId('order-page-link').getAttribute('href')).toMatch(/^\/order\/[0-9a-f]+$/);
    // The page is the paid state: the details sent with the order are read-only now (the order page shows them).
    await expect.poll(() => s.page.locator('form.order-form [name="fullName"]').isDisabled()).toBe(true);
    // The order is named by its short number only: the raw id appears nowhere on the page.
    expect(await s.page.locator('body').innerText()).not.toContain(orderId);
    await s.page.waitForFunction(() => !document.querySelector('button.buy-another'));
    const axe = await new AxeBuilder({ page: s.page }).analyze();
    expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
    expect(unexpectedErrors(s.errors)).toEqual([]);
    await s.close();
    await restock(stack.server, PRODUCT_ID, 50);
  });
});

describe('a phone (390 × 844, touch) without a wallet in its browser', () => {
  const IPHONE_SAFARI =
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
  const ANDROID_CHROME =
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36';

  it('Android: the Mobile Wallet Adapter is registered and offered first, the phone paths below it; choosing it starts the protocol, its own screens styled under the CSP', async () => {
    const s = await session({ absent: true, fund: false, context: { ...PHONE, userAgent: ANDROID_CHROME } });
    // Chrome's Local Network Access: the protocol asks for it with screens of its own, then Chrome prompts. Headless
    // Chromium has neither the permission nor its prompt, so the query answers as on a phone that has not been
    // asked yet ("prompt"), and the test grants it below. The library draws its screens in a closed shadow root:
    // opened here so the test can read them (the only change to the page). CSP violations are recorded as the
    // page sees them.
    await s.page.addInitScript({
      content: `(() => {
        window.__lna = { state: 'prompt', onchange: null };
        const query = navigator.permissions.query.bind(navigator.permissions);
        navigator.permissions.query = (d) =>
          d && d.name === 'loopback-network' ? Promise.resolve(window.__lna) : query(d);
        const attach = Element.prototype.attachShadow;
        Element.prototype.attachShadow = function (init) { return attach.call(this, { ...init, mode: 'open' }); };
        window.__csp = [];
        document.addEventListener('securitypolicyviolation', (e) =>
          window.__csp.push(e.violatedDirective + ' ' + (e.blockedURI || e.sample)), true);
      })();`,
    });
    const thirdParty: string[] = [];
    s.page.on('request', (r) => {
      if (!/^(http:\/\/(127\.0\.0\.1|localhost)|data:|blob:|solana-wallet:)/.test(r.url()))
        thirdParty.push(r.url());
    });
    const violations = async () => ({
      events: await s.page.evaluate(() => (window as unknown as { __csp: string[] }).__csp),
      console: s.errors.filter((e) => /Content Security Policy/i.test(e.text)).map((e) => e.text),
    });
    await openProduct(s.page);
    await fillShipping(s.page);
    await s.page.locator('button.buy-now:not([data-placeholder])').waitFor();
    await s.page.locator('button.buy-now').tap();
    // A wallet path exists (the phone's wallet app), so the picker asks to choose; nothing was ordered yet.
    const modal = s.page.getByRole('dialog', { name: 'Connect a wallet on Solana to continue' });
    await modal.waitFor();
    expect(s.dialogs).toEqual([]);
    expect(await modal.locator('.wallet-picker-list li').allInnerTexts()).toEqual([
      'Use a wallet app on this phone',
    ]);
    await modal.getByTestId('phone-paths').getByRole('link', { name: 'Open in Phantom' }).waitFor();
    await modal.getByRole('button', { name: /payment link or QR code/ }).waitFor();
    await s.page.locator('.wallet-picker.is-open').waitFor();
    const axe = await new AxeBuilder({ page: s.page }).include('[role="dialog"]').analyze();
    expect(axe.violations.map((v) => v.id)).toEqual([]);

    // The protocol opens the wallet app with its `solana-wallet:` association intent (a request of the page).
    const intents: string[] = [];
    s.page.on('request', (r) => {
      if (r.url().startsWith('solana-wallet:')) intents.push(r.url());
    });
    await modal.getByRole('button', { name: 'Use a wallet app on this phone' }).tap();
    await modal.waitFor({ state: 'detached' });
    // The library's first screen, styled: its own <style> (a hash in style-src) and style attribute (with
    // 'unsafe-hashes') applied; blocked, the card would have square corners and the layer no position.
    await s.page.getByText('Allow connections to your wallet').waitFor();
    const styleOf = (selector: string, property: string) =>
      s.page
        .locator(selector)
        .first()
        .evaluate((el, p) => getComputedStyle(el).getPropertyValue(p), property);
    expect(await styleOf('.mobile-wallet-adapter-embedded-modal-container', 'position')).toBe('fixed');
    expect(await styleOf('.mobile-wallet-adapter-embedded-modal-card', 'border-radius')).toBe('24px');
    expect(
      await styleOf('.mobile-wallet-adapter-embedded-modal-container > [data-modal-close]', 'position'),
    ).toBe('absolute');
    await s.page.getByRole('button', { name: 'Continue to Allow' }).tap();
    // Chrome asks; the buyer allows.
    await s.page.evaluate(() => {
      const lna = (window as unknown as { __lna: { state: string; onchange: (() => void) | null } }).__lna;
      lna.state = 'granted';
      lna.onchange?.();
    });
    await s.page.getByText('Ready to connect!').waitFor();
    expect(await styleOf('.mobile-wallet-adapter-embedded-modal-launch-action', 'border-radius')).toBe(
      '18px',
    );
    expect(await styleOf('mask', 'mask-type')).toBe('alpha'); // a style attribute of its icon
    await s.page.getByRole('button', { name: 'Connect Wallet' }).tap();
    await until('the association intent', () => intents[0]);
    expect(intents[0]).toMatch(/^solana-wallet:\/v1\/associate\/local\?association=[\w.-]+&port=\d+&v=v1$/);
    // No wallet app answers in headless Chromium: the page says so in plain words; nothing ordered, no alert.
    await s.page
      .getByTestId('checkout-note')
      .filter({ hasText: 'No wallet app on this phone answered' })
      .waitFor();
    expect(s.dialogs).toEqual([]);
    expect(
      await s.page.evaluate((k) => localStorage.getItem(k), `claim.walletOrder.${PRODUCT_ID}`),
    ).toBeNull();
    // Two of the library's screens and its spinner's <style> drawn without one CSP violation, and nothing
    // fetched from a third party (its Google Fonts links are dropped from our build).
    expect(await violations()).toEqual({ events: [], console: [] });
    expect(thirdParty).toEqual([]);
    await s.close();
  });

  it("iPhone: offers Phantom's in-app browser and, one tap away, a payment link and QR for the order; no Mobile Wallet Adapter; buying the last piece ends on the receipt", async () => {
    await restock(stack.server, PRODUCT_ID, 1); // the last piece: the receipt brings no sold-out news
    const s = await session({ absent: true, fund: false, context: { ...PHONE, userAgent: IPHONE_SAFARI } });
    await openProduct(s.page);
    await fillShipping(s.page);
    await s.page.locator('button.buy-now:not([data-placeholder])').waitFor();
    await s.page.locator('button.buy-now').tap();
    // No alert on a phone: the modal explains the two ways.
    const modal = s.page.getByRole('dialog', { name: "You'll need a wallet on Solana to continue" });
    await modal.waitFor();
    expect(s.dialogs).toEqual([]);
    expect(await s.page.getByText('Mobile Wallet Adapter').count()).toBe(0);
    expect(await s.page.getByText('Use a wallet app on this phone').count()).toBe(0);
    const pageUrl = s.page.url();
    const open = modal.getByRole('link', { name: 'Open in Phantom' });
    expect(await open.getAttribute('href')).toBe(
      `https://phantom.app/ul/browse/${encodeURIComponent(pageUrl)}?ref=${encodeURIComponent(new URL(pageUrl).origin)}`,
    );
    await until('focus in the dialog', async () => ((await focused(s.page)).inDialog ? true : undefined));
    await s.page.locator('.wallet-picker.is-open').waitFor();
    const axe = await new AxeBuilder({ page: s.page }).include('[role="dialog"]').analyze();
    expect(axe.violations.map((v) => v.id)).toEqual([]);

    // One tap: the order is recorded and its payment link and QR code are shown, with the time left.
    await modal.getByRole('button', { name: /payment link or QR code/ }).tap();
    await dialog(s.page).waitFor({ state: 'detached' });
    const link = s.page
      .getByTestId('pay-link')
      .getByRole('link', { name: 'Open the payment in your wallet app' });
    await link.waitFor();
    const payUrl = (await link.getAttribute('href')) ?? '';
    expect(payUrl).toMatch(/^solana:/);
    await s.page.getByTestId('pay-link').locator('img.qr-image:not([hidden])').waitFor();
    await s.page.getByTestId('time-left').waitFor();
    expect((await focused(s.page)).id).toBe('order-status-title');
    const orderId = await openOrderId(s.page);
    const order = await getOrder(orderId);
    expect(order.status).toBe('awaiting_payment');
    expect(s.wallet.requests()).toEqual([]);

    // Another wallet app pays the link: the page follows the server to the finished order.
    const payer = Keypair.generate();
    await stack.fund(payer.publicKey.toBase58(), { sol: 2, claim: 100_000_000 });
    const parsed = parseURL(payUrl);
    if (!('recipient' in parsed) || !parsed.splToken || parsed.amount === undefined) throw new Error(payUrl);
    expect(parsed.amount.toFixed(6)).toBe(order.amount);
    await pay(new Connection(stack.localnet.rpcUrl, 'confirmed'), {
      from: payer,
      recipientOwner: new PublicKey(String(parsed.recipient)),
      mint: new PublicKey(String(parsed.splToken)),
      amount: BigInt(order.amountBaseUnits ?? ''),
      references: (parsed.reference ?? []).map((r) => new PublicKey(String(r))),
    });
    await expectPaidBy(orderId, payer.publicKey);
    await s.page.locator('[data-testid="order-status"]', { hasText: 'Payment received and final' }).waitFor();
    expect(await s.page.getByTestId('pay-link').count()).toBe(0);
    // The paid state: "Paid", the short order number, the amount with separators, one 44 px button to the
    // order page; the last piece was the buyer's own, so no sold-out news and nothing to buy another of.
    await expectReceipt(s.page, orderNumberOf(orderId), `${groupThousands(order.amount ?? '')} $CLAIM`);
    await s.page.waitForFunction(() => !document.querySelector('button.buy-another'));
    const paidAxe = await new AxeBuilder({ page: s.page }).analyze();
    expect(paidAxe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
    expect(unexpectedErrors(s.errors)).toEqual([]);
    await s.close();
    await restock(stack.server, PRODUCT_ID, 50);
  });
});

describe('priority fee', () => {
  it('on a busy network both wallet transactions set a compute-unit limit and the network price; the exact transfer still verifies', async () => {
    const COMPUTE_BUDGET = 'ComputeBudget111111111111111111111111111111';
    const s = await session();
    stack.localnet.chain.prioritizationFeeFloor = 50_000; // every recent slot paid 50,000 µL/CU
    try {
      await s.page.goto('/garlic'); // the gorilla vendor: its token account is created first (two transactions)
      await s.page.waitForFunction(() => {
        const b = document.querySelector<HTMLButtonElement>('button.buy-now');
        return !!b && !b.disabled && b.textContent === 'Buy Now';
      });
      await fillShipping(s.page);
      await s.page.locator('button.buy-now').click();
      expect(await alertAt(s, 0)).toMatch(PAYMENT_OK);
      // One alert after success: the payment and the e-mails in the same message.
      expect((await alertAt(s, 0)).endsWith(`\n${CONFIRMATION_SENT}`)).toBe(true);
    } finally {
      stack.localnet.chain.prioritizationFeeFloor = 0;
    }
    const raw = await s.page.evaluate(() =>
      localStorage.getItem('claim.walletOrder.garlic-amaretto-live-resin'),
    );
    const orderId = (JSON.parse(raw ?? '{}') as { orderId: string }).orderId;
    // The server verified it (paid → final) with the ComputeBudget instructions in front of the transfer.
    const order = await expectPaidBy(orderId, s.buyer.publicKey, 'gorilla');
    const [createSig, paySig] = s.wallet.sent();
    expect(paySig).toBe(order.signature);
    const rpc = new Connection(stack.localnet.rpcUrl, 'confirmed');
    const budgets: Record<string, { limit: number; price: bigint; used: number }> = {};
    for (const [what, sig] of [
      ['create', createSig],
      ['pay', paySig],
    ] as const) {
      const tx = await rpc.getTransaction(sig ?? '', {
        commitment: 'confirmed',
        maxSupportedTransactionVersion: 0,
      });
      const keys = tx?.transaction.message.staticAccountKeys.map((k) => k.toBase58()) ?? [];
      const budgetIxs = (tx?.transaction.message.compiledInstructions ?? []).filter(
        (ix) => keys[ix.programIdIndex] === COMPUTE_BUDGET,
      );
      const limit = budgetIxs.find((ix) => ix.data[0] === 2);
      const price = budgetIxs.find((ix) => ix.data[0] === 3);
      expect(limit && price, `${what}: ComputeBudget instructions`).toBeTruthy();
      // Both go first, before the account creation / the transfer.
      expect(
        tx?.transaction.message.compiledInstructions.slice(0, 2).map((ix) => keys[ix.programIdIndex]),
      ).toEqual([COMPUTE_BUDGET, COMPUTE_BUDGET]);
      budgets[what] = {
        limit: Buffer.from(limit?.data ?? []).readUInt32LE(1),
        price: Buffer.from(price?.data ?? []).readBigUInt64LE(1),
        used: tx?.meta?.computeUnitsConsumed ?? -1,
      };
    }
    expect(budgets.create).toMatchObject({ limit: 60_000, price: 50_000n });
    expect(budgets.pay).toMatchObject({ limit: 30_000, price: 50_000n });
    // The limits fit what the programs use (so the buyer pays the priority fee on few unused units).
    expect(budgets.create?.used).toBeGreaterThan(0);
    expect(budgets.create?.used).toBeLessThan(60_000);
    expect(budgets.pay?.used).toBeGreaterThan(0);
    expect(budgets.pay?.used).toBeLessThan(30_000);
    console.info('compute units used (create, pay):', budgets.create?.used, budgets.pay?.used);
    expect(unexpectedErrors(s.errors)).toEqual([]);
    await s.close();
  });
});
