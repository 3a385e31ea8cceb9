/**
 * One order in the seller console, end to end: headless Chromium, the built app, the real server with its
 * payment watcher and outbox, the localnet, e-mails caught by a real SMTP server on loopback. The buyer pays an
 * order and then 500 $CLAIM too much on chain; the vendor signs in with its payout wallet (the Phantom-compatible
 * test wallet signing with the localnet's demo key) and refunds from the order view: "Refund with wallet" builds
 * the transfer, the test wallet signs and sends it, the server checks it on chain and records it; the buyer's
 * e-mail names the amount and the transaction, the buyer's order page shows it, and a second refund above what
 * is still owed is refused in words before the wallet is asked, and the rest settles it. Then the note, tracking changed after shipping
 * with the carrier's link, the packing slip in print media (address, items, number; prices only when asked), and
 * the view at 390 px without sideways scrolling. Last, a second order the buyer asks to cancel from the order page:
 * the vendor's "Cancel order and refund" cancels it and the wallet refunds all of it, the request settles and the
 * buyer's page says "Cancelled and refunded" (as do the order view, the list and the CSV).
 */
import { createTransferCheckedInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Connection, Keypair, PublicKey, type TransactionInstruction } from '@solana/web3.js';
import AxeBuilder from '@axe-core/playwright';
import { parse } from 'csv-parse/sync';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderCreated, OrderPublic, QuoteResponse } from '../../src/core/api';
import type { SellerOrderDetail } from '../../src/core/seller-api';
import { demoRecipientKeypair } from '../support/demo-keypairs';
import { launchBrowser, openPage, unexpectedErrors, type OpenedPage } from '../support/browser';
import { startStack, type Stack } from '../support/stack';
import { addStock } from '../support/stock';
import { installTestWallet, type TestWalletControl } from '../support/wallet';
import { sendConfirmed, until } from '../support/confirm';

const SIGNED_OUT_CHECK = [/\/api\/seller\/me$/];
const PRODUCT_ID = 'lilac-tiptop';
const SHIPPING = {
  kind: 'international',
  fullName: 'Grace Hopper',
  email: 'grace@buyer.test',
  address1: '7 Harbor Road',
  city: 'Arlington',
  stateProvince: 'VA',
  postalCode: '22201',
  country: 'USA',
};

let stack: Stack;
let browser: Browser;
let rpc: Connection;
let mint: PublicKey;
const vendorKey = demoRecipientKeypair('coopersglass');
const buyerKey = Keypair.generate();
let order: OrderCreated;
let number = '';
let vendor: OpenedPage & { wallet: TestWalletControl };

const sendTx = (signer: Keypair, ixs: TransactionInstruction[]) => sendConfirmed(rpc, signer, ixs);

function payTransfer(amount: bigint, reference: PublicKey) {
  const ix = createTransferCheckedInstruction(
    getAssociatedTokenAddressSync(mint, buyerKey.publicKey),
    mint,
    getAssociatedTokenAddressSync(mint, vendorKey.publicKey),
    buyerKey.publicKey,
    amount,
    6,
  );
  ix.keys.push({ pubkey: reference, isSigner: false, isWritable: false });
  return ix;
}

async function getOrder(id: string): Promise<OrderPublic> {
  const res = await fetch(`${stack.url}/api/orders/${id}`);
  expect(res.status).toBe(200);
  return (await res.json()) as OrderPublic;
}

/** A phone: 390 × 844, touch. */
const PHONE = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true };

const buyerBalance = async () =>
  BigInt(
    (await rpc.getTokenAccountBalance(getAssociatedTokenAddressSync(mint, buyerKey.publicKey))).value.amount,
  );

const detailOf = (page: Page) =>
  page.evaluate(
    async (p) => (await (await fetch(p)).json()) as unknown,
    `/api/seller/orders/${order.orderId}`,
  ) as Promise<SellerOrderDetail>;

beforeAll(async () => {
  [stack, browser] = await Promise.all([
    startStack({
      slotMs: 50,
      finalizeLag: 4,
      env: {
        VENDOR_COOPERSGLASS_RETURN_ADDRESS: 'Coopers Glass Studio; 12 Kiln Road; Portland, OR 97201; USA',
      },
    }),
    launchBrowser(),
  ]);
  rpc = new Connection(stack.localnet.rpcUrl, 'confirmed');
  const keys = stack.localnet.keys;
  if (!keys) throw new Error('localnet without demo keys');
  mint = keys.mint;
  await stack.fund(vendorKey.publicKey.toBase58(), { sol: 1 });
  await stack.fund(buyerKey.publicKey.toBase58(), { sol: 2, claim: 100_000_000 });
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

describe('one order in the seller console', () => {
  it('a buyer orders and pays, then pays 500 $CLAIM too much: an extra payment', async () => {
    const q = await fetch(`${stack.url}/api/quotes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ items: [{ productId: PRODUCT_ID, quantity: 1 }] }),
    });
    expect(q.status).toBe(200);
    const r = await fetch(`${stack.url}/api/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': `e2e-${Date.now()}` },
      body: JSON.stringify({
        quote: ((await q.json()) as QuoteResponse).quote,
        shipping: SHIPPING,
        paymentMethod: 'wallet',
      }),
    });
    expect(r.status, await r.clone().text()).toBe(201);
    order = (await r.json()) as OrderCreated;
    number = order.orderId.slice(0, 8).toUpperCase();
    const reference = new PublicKey(order.reference);
    await sendTx(buyerKey, [payTransfer(BigInt(order.amountBaseUnits), reference)]);
    await until('order paid', async () => {
      const o = await getOrder(order.orderId);
      return o.status === 'paid' || o.status === 'final' ? o : undefined;
    });
    await sendTx(buyerKey, [payTransfer(500_000_000n, reference)]);
    await until('the extra payment recorded', async () =>
      (await getOrder(order.orderId)).payments.some((p) => p.role === 'extra') ? true : undefined,
    );
  });

  it('Refund with wallet: the payout wallet signs a transfer of part of what is owed back to the payer; it is recorded, the buyer is e-mailed the amount and transaction, the order page shows it; more than is still owed is refused in words', async () => {
    vendor = await (async () => {
      const opened = await openPage(browser, stack.url);
      const wallet = await installTestWallet(opened.page, {
        keypair: vendorKey,
        rpcUrl: stack.localnet.rpcUrl,
      });
      return { ...opened, wallet };
    })();
    const { page } = vendor;
    await page.goto('/seller');
    await page.getByRole('button', { name: 'Sign in with wallet' }).click();
    await page.locator('.wallet-picker-list li button', { hasText: 'Phantom' }).click();
    await page.getByText('Signed in as').getByText('Coopers Glass').waitFor();
    const row = page.locator(`[data-order="${order.orderId}"]`);
    await row.waitFor();
    if ((await row.getByRole('button').count()) > 0) await row.getByRole('button').first().click();
    else await row.click();
    await page.getByRole('heading', { name: `Order ${number}` }).waitFor();

    // What is owed and who paid.
    const owed = page.getByTestId('order-owed');
    await owed.getByText('500.000000 $CLAIM').first().waitFor();
    await page.getByTestId('order-payers').getByText(buyerKey.publicKey.toBase58()).waitFor();
    const refund = page.locator('.seller-refund[data-exception="extra_payment"]');
    const amount = refund.getByLabel(/Amount \(\$CLAIM/);
    expect(await amount.inputValue()).toBe('500.000000'); // what is owed, by default

    // Above what is owed: refused in words, the wallet is not asked.
    await amount.fill('700');
    await refund.getByRole('button', { name: 'Refund with wallet' }).click();
    await refund
      .getByRole('alert')
      .getByText('That is more than this order can refund: at most 500.000000 $CLAIM (what is still owed).')
      .waitFor();
    expect(vendor.wallet.requests()).not.toContain('signAndSendTransaction');

    // Edited down to 200 $CLAIM: the wallet signs and sends, the server checks it on chain and records it.
    const before = await buyerBalance();
    await amount.fill('200');
    await refund.getByRole('button', { name: 'Refund with wallet' }).click();
    await page
      .getByRole('status')
      .getByText('Refund of 200.000000 $CLAIM sent and recorded; the buyer is being e-mailed.')
      .waitFor({ timeout: 30_000 });
    const sent = vendor.wallet.sent();
    expect(sent).toHaveLength(1);
    const signature = sent[0]!;
    expect((await buyerBalance()) - before).toBe(200_000_000n);
    // The memo names the order; the priority fee is set as in the checkout.
    const tx = await rpc.getTransaction(signature, {
      commitment: 'confirmed',
      maxSupportedTransactionVersion: 0,
    });
    expect(tx?.meta?.logMessages?.join('\n')).toContain(`Refund for order ${number}`);
    const d = await detailOf(page);
    expect(d.refunds.map((r) => [r.signature, r.amountBaseUnits])).toEqual([[signature, '200000000']]);
    expect(d.owed.remainingBaseUnits).toBe('300000000');
    await page.getByTestId('order-refunds').getByText('200.000000 $CLAIM').waitFor();

    // The buyer's e-mail: the amount and the transaction.
    const mail = await until('the refund e-mail', () =>
      stack.mail
        .all()
        .find(
          (m) =>
            m.headers.get('x-claim-order') === order.orderId &&
            m.headers.get('x-claim-kind') === 'refund_sent/buyer',
        ),
    );
    const to = Array.isArray(mail.to) ? mail.to.map((t) => t.text).join(', ') : (mail.to?.text ?? '');
    expect(to).toContain(SHIPPING.email);
    expect(mail.text).toContain('200.000000');
    expect(mail.text).toContain(signature);
    expect(mail.text).toContain(number);

    // The buyer's order page lists the refund with its transaction.
    const buyer = await openPage(browser, stack.url);
    await buyer.page.goto(new URL(order.orderUrl).pathname);
    const refundRow = buyer.page.getByTestId('order-refund');
    await refundRow.waitFor();
    expect(await refundRow.innerText()).toContain('Refund to your wallet: 200.000000 $CLAIM');
    expect(await refundRow.getByRole('link').getAttribute('href')).toContain(signature);
    expect(await buyer.page.getByTestId('order-payments').innerText()).toContain(
      'extra payment (the seller refunds it)',
    );
    // More came in than the order's amount: said plainly, not "received 2 of 1", and what happens to the extra.
    expect(await buyer.page.getByTestId('order-status-line').innerText()).toContain(
      '$CLAIM order; the payments below show the extra',
    );
    expect(await buyer.page.getByTestId('order-extra').innerText()).toMatch(
      /more than the order total: the seller refunds the extra to the wallet that paid\.$/,
    );
    expect(unexpectedErrors(buyer.errors)).toEqual([]);
    await buyer.close();

    // A second refund above what is still owed (300 $CLAIM): refused in words, nothing sent.
    expect(await amount.inputValue()).toBe('300.000000');
    await amount.fill('400');
    await refund.getByRole('button', { name: 'Refund with wallet' }).click();
    await refund
      .getByRole('alert')
      .getByText('That is more than this order can refund: at most 300.000000 $CLAIM (what is still owed).')
      .waitFor();
    expect(vendor.wallet.sent()).toHaveLength(1);

    // The rest (300 $CLAIM): what is owed is back, the exception settles, the buyer's page says it is refunded.
    await amount.fill('300');
    await refund.getByRole('button', { name: 'Refund with wallet' }).click();
    await page
      .getByRole('status')
      .getByText('Refund of 300.000000 $CLAIM sent and recorded; the buyer is being e-mailed.')
      .waitFor({ timeout: 30_000 });
    await page.getByText('Extra payment: resolved').waitFor();
    const settled = await detailOf(page);
    expect(settled.resolved).toEqual(['extra_payment']);
    expect(settled.owed.remainingBaseUnits).toBe('0');
    expect(settled.refunds.map((r) => r.amountBaseUnits)).toEqual(['200000000', '300000000']);
    const again = await openPage(browser, stack.url);
    await again.page.goto(new URL(order.orderUrl).pathname);
    await again.page.getByTestId('order-refund').nth(1).waitFor();
    expect(await again.page.getByTestId('order-payments').innerText()).toContain('extra payment (refunded)');
    await again.close();
    expect(unexpectedErrors(vendor.errors, SIGNED_OUT_CHECK)).toEqual([]);
  });

  it('the note is saved; tracking changes after shipping, with the carrier’s link, and the buyer is e-mailed the new number; plain words on the view', async () => {
    const { page } = vendor;
    await page.getByLabel('Your note').fill('Wrap in two layers.');
    await page.getByRole('button', { name: 'Save note' }).click();
    await page.getByRole('status').getByText('Note saved.').waitFor();
    await page.getByLabel('Tracking number').fill('9400100000000000000000');
    await page.getByLabel('Carrier (optional)').fill('USPS');
    await page.getByRole('button', { name: 'Mark shipped' }).click();
    await page.getByTestId('order-status').getByText('Shipped').waitFor();
    await page.getByRole('button', { name: 'Change tracking' }).click();
    await page.getByLabel('New tracking number').fill('1Z999AA10123456784');
    await page.getByLabel('Carrier (optional)').fill('UPS');
    await page.getByRole('button', { name: 'Save tracking' }).click();
    await page
      .getByRole('status')
      .getByText('Tracking changed; the buyer is being e-mailed the new number.')
      .waitFor();
    const link = page.getByTestId('order-tracking').getByRole('link', { name: 'track it on UPS' });
    expect(await link.getAttribute('href')).toBe('https://www.ups.com/track?tracknum=1Z999AA10123456784');
    await until('the new tracking e-mail', () =>
      stack.mail
        .all()
        .find(
          (m) =>
            m.headers.get('x-claim-order') === order.orderId &&
            m.headers.get('x-claim-kind') === 'tracking_updated/buyer' &&
            (m.text ?? '').includes('1Z999AA10123456784'),
        ),
    );
    await page.reload();
    await page.locator('[data-queue="all"]').click();
    const row = page.locator(`[data-order="${order.orderId}"]`);
    await row.waitFor();
    if ((await row.getByRole('button').count()) > 0) await row.getByRole('button').first().click();
    else await row.click();
    expect(await page.getByLabel('Your note').inputValue()).toBe('Wrap in two layers.');
    // Plain words: no internal names on the order view.
    const text = await page.locator('.seller-order-screen').innerText();
    for (const internal of [
      'order_confirmation',
      '(buyer)',
      'top_up',
      'amountBaseUnits',
      'seller:',
      'extra_payment',
    ])
      expect(text).not.toContain(internal);
    expect(unexpectedErrors(vendor.errors, SIGNED_OUT_CHECK)).toEqual([]);
  });

  it('the packing slip in print media: the shop and its return address, the address on lines, items and order number, no prices unless asked', async () => {
    const { page } = vendor;
    await page.emulateMedia({ media: 'print' });
    const slip = page.getByTestId('packing-slip');
    expect(await slip.isVisible()).toBe(true);
    expect(await page.locator('.seller-order-screen').isVisible()).toBe(false);
    let text = await slip.innerText();
    expect(text).toContain(number);
    // The shop's name and return address; the buyer's address on the lines a parcel carries.
    expect(await slip.getByRole('heading', { level: 2 }).innerText()).toBe('Coopers Glass');
    expect((await page.getByTestId('slip-return-address').innerText()).split('\n')).toEqual([
      expect.stringMatching(/^return address$/i),
      'Coopers Glass Studio',
      '12 Kiln Road',
      'Portland, OR 97201',
      'USA',
    ]);
    expect((await page.getByTestId('slip-ship-to').innerText()).split('\n')).toEqual([
      SHIPPING.fullName,
      SHIPPING.address1,
      `${SHIPPING.city}, ${SHIPPING.stateProvince} ${SHIPPING.postalCode}`,
      SHIPPING.country,
    ]);
    // The one date format: "24 Nov 2026, 16:35 UTC".
    expect(text).toMatch(/\b\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} \S+/);
    expect(text).toContain('Lilac TipTop');
    expect(text).not.toContain('$');
    // White paper around the slip, not the site's dark page colour.
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)).toBe(
      'rgb(255, 255, 255)',
    );
    await page.emulateMedia({ media: 'screen' });
    expect(await slip.isVisible()).toBe(false);
    await page.getByLabel('Prices on the packing slip').check();
    await page.emulateMedia({ media: 'print' });
    text = await slip.innerText();
    expect(text).toMatch(/\$\d/);
    await page.emulateMedia({ media: 'screen' });
  });

  it('the order view fits a 390 px phone without sideways scrolling, with 44 px tap targets', async () => {
    const { page } = vendor;
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('heading', { name: `Order ${number}` }).waitFor();
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(390);
    const small = await page.evaluate(() =>
      [
        ...document.querySelectorAll<HTMLElement>(
          '.seller-order-screen button, .seller-order-screen a, .seller-order-screen input, .seller-order-screen textarea, .seller-order-screen summary',
        ),
      ]
        .filter((e) => e.offsetParent !== null)
        .map((e) => ({ what: e.outerHTML.slice(0, 60), h: e.getBoundingClientRect().height }))
        .filter((e) => e.h < 44),
    );
    expect(small).toEqual([]);
    // axe at 390 px: nothing serious or critical on the order view.
    const axe = await new AxeBuilder({ page }).analyze();
    expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
    await vendor.close();
  });

  it('a paid order the buyer asks to cancel (both on a 390 × 844 touch phone): the vendor cancels it and refunds all of it with the wallet; the buyer’s page says so', async () => {
    await addStock(stack.server, PRODUCT_ID, 1);
    const q = await fetch(`${stack.url}/api/quotes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ items: [{ productId: PRODUCT_ID, quantity: 1 }] }),
    });
    const r = await fetch(`${stack.url}/api/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': `e2e-cancel-${Date.now()}` },
      body: JSON.stringify({
        quote: ((await q.json()) as QuoteResponse).quote,
        shipping: SHIPPING,
        paymentMethod: 'wallet',
      }),
    });
    expect(r.status, await r.clone().text()).toBe(201);
    const second = (await r.json()) as OrderCreated;
    const secondNumber = second.orderId.slice(0, 8).toUpperCase();
    await sendTx(buyerKey, [payTransfer(BigInt(second.amountBaseUnits), new PublicKey(second.reference))]);
    await until('second order paid', async () => {
      const o = await getOrder(second.orderId);
      return o.status === 'paid' || o.status === 'final' ? o : undefined;
    });

    // The buyer asks from the order page.
    const buyer = await openPage(browser, stack.url, PHONE);
    await buyer.page.goto(new URL(second.orderUrl).pathname);
    await buyer.page.getByTestId('cancel-instead').click();
    await buyer.page.getByTestId('cancel-confirm-yes').click(); // the page asks first
    await buyer.page.getByText('You asked the vendor to cancel it').waitFor();

    // The vendor: the request is under Exceptions in plain words; cancel, then refund everything with the wallet.
    const opened = await openPage(browser, stack.url, PHONE);
    const wallet = await installTestWallet(opened.page, {
      keypair: vendorKey,
      rpcUrl: stack.localnet.rpcUrl,
    });
    const { page } = opened;
    await page.goto('/seller');
    await page.getByRole('button', { name: 'Sign in with wallet' }).click();
    await page.locator('.wallet-picker-list li button', { hasText: 'Phantom' }).click();
    await page.getByText('Signed in as').getByText('Coopers Glass').waitFor();
    await page.locator('button[data-queue="exceptions"]').click();
    const row = page.locator(`[data-order="${second.orderId}"]`);
    await row.getByText('The buyer asked to cancel').waitFor();
    await row.getByRole('button').first().click();
    await page.getByRole('heading', { name: `Order ${secondNumber}` }).waitFor();
    await page.getByTestId('cancel-order').click();
    await page
      .getByRole('status')
      .getByText('Order cancelled and its pieces are back on sale. Now refund what the buyer paid.')
      .waitFor();
    const refund = page.locator('.seller-refund[data-exception="cancel_requested"]');
    const amount = refund.getByLabel(/Amount \(\$CLAIM/);
    // Everything received, by default.
    expect((await amount.inputValue()).replace(/,/g, '')).toBe(second.amount);
    const before = await buyerBalance();
    await refund.getByRole('button', { name: 'Refund with wallet' }).click();
    await page.getByText('The buyer asked to cancel: resolved').waitFor({ timeout: 30_000 });
    expect((await buyerBalance()) - before).toBe(BigInt(second.amountBaseUnits));
    expect(wallet.sent()).toHaveLength(1);
    // Refunded means done: the order view and the list read "Cancelled and refunded", and the summary's open
    // exceptions are the Exceptions tab's count.
    await page.getByTestId('order-status').getByText('Cancelled and refunded').waitFor();
    await page.getByRole('button', { name: 'Back to orders' }).click();
    await page.locator('button[data-queue="all"]').click();
    await page.locator(`[data-order="${second.orderId}"]`).getByText('Cancelled and refunded').waitFor();
    // ... and so does the CSV the console exports (read back by a CSV parser), net of the refund.
    const csv = await page.evaluate(async () => {
      const res = await fetch('/api/seller/orders.csv?queue=all', { credentials: 'same-origin' });
      return res.text();
    });
    const csvRow = (parse(csv, { columns: true }) as Record<string, string>[]).find(
      (x) => x.order_id === second.orderId,
    );
    expect(csvRow?.status).toBe('Cancelled and refunded');
    expect(csvRow).toMatchObject({
      received_claim: second.amount,
      refunded_claim: second.amount,
      open_exceptions: '',
    });
    const tabCount = async () =>
      (await page.locator('button[data-queue="exceptions"] .seller-count').innerText()).trim();
    // On a phone the sales summary starts folded: open it, as the vendor would, to read it.
    const summaryBox = page.locator('details', { has: page.getByTestId('summary-open-exceptions') });
    if (!(await summaryBox.evaluate((d) => (d as HTMLDetailsElement).open)))
      await summaryBox.locator('summary').first().click();
    await until('the summary agrees with the Exceptions tab', async () => {
      const summary = (await page.getByTestId('summary-open-exceptions').innerText()).trim().split(/\s/)[0];
      return summary === (await tabCount()) ? true : undefined;
    });

    await buyer.page.reload();
    await buyer.page.getByText('Cancelled and refunded').first().waitFor();
    expect(unexpectedErrors(buyer.errors)).toEqual([]);
    expect(unexpectedErrors(opened.errors, SIGNED_OUT_CHECK)).toEqual([]);
    await buyer.close();
    await opened.close();
  });
});
