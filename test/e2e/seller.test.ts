/**
 * The seller console end to end (orders, fulfilment, refunds, stock): headless Chromium, the built app, the real server with its
 * payment watcher and outbox, the localnet, e-mails caught by a real SMTP server on loopback. Wallets are the
 * Phantom-compatible test wallet (test/support/wallet.ts) signing with real ed25519 keys: the buyer's pays, the
 * vendor's payout wallet (the localnet's demo key) signs the Sign-In-With-Solana message.
 *
 * One journey, in order: a buyer buys a glass piece; the vendor signs in with its payout wallet, sees the order,
 * marks it shipped with a tracking number and the buyer's e-mail carries it; a stranger's wallet is refused; the
 * buyer pays too much, the vendor refunds it on chain and Mark refunded records it; the stock page shows the
 * sale, the vendor restocks, and the product page follows.
 */
import { createTransferCheckedInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Connection, Keypair, PublicKey, type TransactionInstruction } from '@solana/web3.js';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderPublic } from '../../src/core/api';
import type { SellerOrderDetail } from '../../src/core/seller-api';
import { demoRecipientKeypair } from '../support/demo-keypairs';
import { launchBrowser, openPage, unexpectedErrors, type OpenedPage } from '../support/browser';
import { startStack, type Stack } from '../support/stack';
import { installStandardTestWallet, installTestWallet, type TestWalletControl } from '../support/wallet';
import { sendConfirmed, until } from '../support/confirm';

/** The page asks GET /api/seller/me on load: 401 is its "not signed in" answer, logged by the browser. */
const SIGNED_OUT_CHECK = [/\/api\/seller\/me$/];
const NOT_A_SELLER = "This wallet is not a seller's payout wallet.";
const PRODUCT_PATH = '/vendors/coopersglass/product2';
const PRODUCT_ID = 'lilac-tiptop';
const TRACKING = '1Z999AA10123456784';
const SHIPPING = {
  fullName: 'Ada Lovelace',
  email: 'ada@buyer.test',
  address1: '1 Main St',
  city: 'Springfield',
  stateProvince: 'IL',
  postalCode: '62701',
  country: 'USA',
};

let stack: Stack;
let browser: Browser;
let rpc: Connection;
let mint: PublicKey;
const vendorKey = demoRecipientKeypair('coopersglass');
const buyerKey = Keypair.generate();
let orderId = '';
let vendor: OpenedPage & { wallet: TestWalletControl };

beforeAll(async () => {
  [stack, browser] = await Promise.all([startStack({ slotMs: 50, finalizeLag: 4 }), launchBrowser()]);
  rpc = new Connection(stack.localnet.rpcUrl, 'confirmed');
  const keys = stack.localnet.keys;
  if (!keys) throw new Error('localnet without demo keys');
  mint = keys.mint;
  // The demo payout wallet of Coopers Glass is the vendor signing in (and paying the refund's fee).
  expect(keys.recipients.coopersglass.toBase58()).toBe(vendorKey.publicKey.toBase58());
  await stack.fund(vendorKey.publicKey.toBase58(), { sol: 1 });
  await stack.fund(buyerKey.publicKey.toBase58(), { sol: 2, claim: 100_000_000 });
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

async function getOrder(id: string): Promise<OrderPublic> {
  const res = await fetch(`${stack.url}/api/orders/${id}`);
  expect(res.status).toBe(200);
  return (await res.json()) as OrderPublic;
}

/** A signed, confirmed transaction of `ixs` paid by `signer`. */
const sendTx = (signer: Keypair, ixs: TransactionInstruction[]) => sendConfirmed(rpc, signer, ixs);

function claimTransfer(from: Keypair, to: PublicKey, amount: bigint, extraKeys: PublicKey[] = []) {
  const ix = createTransferCheckedInstruction(
    getAssociatedTokenAddressSync(mint, from.publicKey),
    mint,
    getAssociatedTokenAddressSync(mint, to),
    from.publicKey,
    amount,
    6,
  );
  for (const k of extraKeys) ix.keys.push({ pubkey: k, isSigner: false, isWritable: false });
  return ix;
}

async function walletPage(keypair: Keypair): Promise<OpenedPage & { wallet: TestWalletControl }> {
  const opened = await openPage(browser, stack.url);
  const wallet = await installTestWallet(opened.page, { keypair, rpcUrl: stack.localnet.rpcUrl });
  return { ...opened, wallet };
}

/** /seller → Sign in with wallet → the wallet picker → `name` (the test wallet) connects and signs. */
async function signInWithWallet(page: Page, name = 'Phantom'): Promise<void> {
  await page.goto('/seller');
  await page.getByRole('button', { name: 'Sign in with wallet' }).click();
  await page.locator('.wallet-picker-list li button', { hasText: name }).click();
}

const sellerApi = <T>(page: Page, path: string) =>
  page.evaluate(async (p) => {
    const r = await fetch(p, { credentials: 'same-origin' });
    return { status: r.status, body: (await r.json()) as unknown };
  }, path) as Promise<{ status: number; body: T }>;

describe('seller console (payout wallet sign-in)', () => {
  it('a buyer buys a glass piece with the wallet; it is paid', async () => {
    const buyer = await walletPage(buyerKey);
    const dialogs: string[] = [];
    buyer.page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.accept();
    });
    await buyer.page.goto(PRODUCT_PATH);
    await buyer.page.waitForFunction(() => {
      const b = document.querySelector<HTMLButtonElement>('button.buy-now');
      return !!b && !b.disabled && b.textContent === 'Buy Now';
    });
    for (const [name, value] of Object.entries(SHIPPING))
      await buyer.page.locator(`form.order-form [name="${name}"]`).fill(value);
    await buyer.page.locator('button.buy-now').click();
    await until('payment alert', () => dialogs.find((d) => d.startsWith('Payment Successful!')));
    const raw = await buyer.page.evaluate((k) => localStorage.getItem(k), `claim.walletOrder.${PRODUCT_ID}`);
    orderId = (JSON.parse(raw ?? '{}') as { orderId: string }).orderId;
    expect(orderId).toBeTruthy();
    await until('order paid', async () => {
      const o = await getOrder(orderId);
      return o.status === 'paid' || o.status === 'final' ? o : undefined;
    });
    expect(unexpectedErrors(buyer.errors)).toEqual([]);
    await buyer.close();
  });

  it('the vendor signs in with its payout wallet (signMessage), sees the order, marks it shipped; the buyer is e-mailed the tracking number', async () => {
    vendor = await walletPage(vendorKey);
    const { page } = vendor;
    await signInWithWallet(page);
    await page.getByRole('heading', { name: 'Seller console' }).waitFor();
    await page.getByText('Signed in as').getByText('Coopers Glass').waitFor();
    // The wallet signed the SIWS text with the real key; the server checked it.
    expect(vendor.wallet.requests()).toEqual(expect.arrayContaining(['connect', 'signMessage']));

    const row = page.locator(`tr[data-order="${orderId}"]`);
    await row.waitFor();
    expect(await row.innerText()).toContain(SHIPPING.fullName);
    await row.getByRole('button').click();
    await page.getByRole('heading', { name: `Order ${orderId.slice(0, 8).toUpperCase()}` }).waitFor();
    await page.getByText(SHIPPING.email).first().waitFor();
    await page.getByLabel('Tracking number').fill(TRACKING);
    await page.getByLabel('Carrier (optional)').fill('UPS');
    await page.getByRole('button', { name: 'Mark shipped' }).click();
    await page.getByTestId('order-status').getByText('Shipped').waitFor();
    await page.getByTestId('order-tracking').getByText(`tracking number ${TRACKING}`).waitFor();

    const mail = await until('the shipped e-mail', () =>
      stack.mail
        .all()
        .find(
          (m) =>
            m.headers.get('x-claim-order') === orderId &&
            m.headers.get('x-claim-kind') === 'order_shipped/buyer',
        ),
    );
    const to = Array.isArray(mail.to) ? mail.to.map((t) => t.text).join(', ') : (mail.to?.text ?? '');
    expect(to).toContain(SHIPPING.email);
    expect(mail.text).toContain(`Tracking number: ${TRACKING}`);
    expect(mail.text).toContain('Carrier: UPS');
    expect((await getOrder(orderId)).status).toBe('shipped');
    expect(unexpectedErrors(vendor.errors, SIGNED_OUT_CHECK)).toEqual([]);
  });

  it("a stranger's wallet is refused and sees nothing", async () => {
    const stranger = await walletPage(Keypair.generate());
    await signInWithWallet(stranger.page);
    await stranger.page.getByRole('alert').getByText(NOT_A_SELLER).waitFor();
    expect(stranger.wallet.requests()).toContain('signMessage');
    expect(await stranger.page.getByRole('heading', { name: 'Seller console' }).innerText()).toBe(
      'Seller console',
    );
    expect(await stranger.page.locator('table.seller-orders').count()).toBe(0);
    expect((await sellerApi(stranger.page, '/api/seller/orders')).status).toBe(401);
    // The refused sign-in (403) and this test's own 401 are in the console; nothing else went wrong.
    expect(unexpectedErrors(stranger.errors, [/\/api\/seller\/(session|me|orders)$/])).toEqual([]);
    await stranger.close();
  });

  it('an extra payment is refunded on the local network (vendor → payer) and Mark refunded records it', async () => {
    const { page } = vendor;
    const order = await getOrder(orderId);
    // The buyer sends 300 $CLAIM more to the order's reference (above the dust threshold, about $0.50 here): the
    // watcher records an extra payment.
    await sendTx(buyerKey, [
      claimTransfer(buyerKey, vendorKey.publicKey, 300_000_000n, [new PublicKey(order.reference)]),
    ]);
    await until('the extra payment in the console', async () => {
      const r = await sellerApi<SellerOrderDetail>(page, `/api/seller/orders/${orderId}`);
      return r.body.exceptions.includes('extra_payment') ? true : undefined;
    });
    // The vendor sends it back: a real SPL transfer from its token account to the buyer's.
    const refund = await sendTx(vendorKey, [claimTransfer(vendorKey, buyerKey.publicKey, 300_000_000n)]);

    await page.getByRole('button', { name: 'Back to orders' }).click();
    // Shipped, with an open extra payment: no longer in "To ship" (the landing queue), under "All".
    await page.locator('[data-queue="all"]').click();
    await page.locator(`tr[data-order="${orderId}"]`).getByRole('button').click();
    await page.getByText('Extra payment', { exact: true }).waitFor();
    await page.getByText('Refunded from another wallet or app? Record it by its signature').click();
    await page.getByLabel(/Refund transaction signature/).fill(refund);
    await page.getByRole('button', { name: 'Mark refunded' }).click();
    await page.getByRole('status').getByText('Refund checked on chain and recorded.').waitFor();
    await page.getByText('Extra payment: resolved').waitFor();
    await page
      .getByTestId('order-actions')
      .getByText(
        `Refunded 300.000000 $CLAIM (“Extra payment” settled), transaction ${refund.slice(0, 4)}…${refund.slice(-4)}`,
      )
      .waitFor();
    const d = (await sellerApi<SellerOrderDetail>(page, `/api/seller/orders/${orderId}`)).body;
    expect(d.resolved).toEqual(['extra_payment']);
    expect(d.actions.find((a) => a.action === 'refunded')?.detail).toEqual({
      exception: 'extra_payment',
      signature: refund,
      amountBaseUnits: '300000000',
    });
    expect(unexpectedErrors(vendor.errors, SIGNED_OUT_CHECK)).toEqual([]);
  });

  it('the stock page shows the sale; the vendor restocks and the product page follows', async () => {
    const shopper = await openPage(browser, stack.url);
    await shopper.page.goto(PRODUCT_PATH);
    await shopper.page.getByTestId('stock').getByText('Sold out').waitFor();

    const { page } = vendor;
    await page.getByRole('button', { name: 'Stock' }).click();
    const row = page.locator(`tr[data-stock="${PRODUCT_ID}:"]`);
    await row.waitFor();
    expect(await row.getByTestId('available').innerText()).toBe('0');
    expect(await row.getByTestId('sold').innerText()).toBe('1');
    await page.getByLabel('In stock of Lilac TipTop').fill('2');
    await row.getByRole('button', { name: 'Set stock' }).click();
    await page.getByRole('status').getByText('Stock of Lilac TipTop saved.').waitFor();
    expect(await row.getByTestId('available').innerText()).toBe('2');
    const change = page.locator('.seller-stock-changes li').first();
    expect(await change.innerText()).toContain('Lilac TipTop: Stock set');
    // Who changed it, in plain words (the store records `seller:<payout wallet>`).
    expect(await change.innerText()).toContain('by you (payout wallet)');
    expect(await page.locator('.seller-stock-changes').innerText()).not.toMatch(
      /seller:|\bby (catalogue|order|payment)\b/,
    );

    // The shop reads the same store: the product page sells again, with "Only 2 left".
    await shopper.page.reload();
    await shopper.page.getByTestId('stock').getByText('Only 2 left').waitFor();
    await shopper.page.locator('button.buy-now').first().waitFor();
    expect(unexpectedErrors(shopper.errors)).toEqual([]);
    expect(unexpectedErrors(vendor.errors, SIGNED_OUT_CHECK)).toEqual([]);
    await shopper.close();
  });

  it("the sessions page lists the wallet's open sessions and ends another device's", async () => {
    // The same payout wallet signs in from a second browser.
    const other = await walletPage(vendorKey);
    await signInWithWallet(other.page);
    await other.page.getByText('Signed in as').getByText('Coopers Glass').waitFor();
    expect((await sellerApi(other.page, '/api/seller/me')).status).toBe(200);

    const { page } = vendor;
    await page.getByRole('button', { name: 'Sessions' }).click();
    await page.getByRole('heading', { name: 'Sessions' }).waitFor();
    const rows = page.locator('table.seller-sessions tbody tr');
    await until('both sessions listed', async () => ((await rows.count()) === 2 ? true : undefined));
    const texts = await rows.allInnerTexts();
    expect(texts.filter((t) => t.includes('(this browser)'))).toHaveLength(1);
    expect(texts.every((t) => t.includes('Chrome on Linux'))).toBe(true);
    // End the other one: its browser is signed out, this one is not.
    await rows.filter({ hasNotText: '(this browser)' }).getByRole('button', { name: 'End session' }).click();
    await page.getByRole('status').getByText('Ended the session on Chrome on Linux.').waitFor();
    await until('one session left', async () => ((await rows.count()) === 1 ? true : undefined));
    expect((await sellerApi(other.page, '/api/seller/me')).status).toBe(401);
    expect((await sellerApi(page, '/api/seller/me')).status).toBe(200);
    expect(unexpectedErrors(vendor.errors, SIGNED_OUT_CHECK)).toEqual([]);
    await other.close();
    await vendor.close();
  });
  // Last: it opens one more session of the payout wallet (the sessions test counts them).
  it('a wallet offering solana:signIn signs in through it: one request, the wallet writes the message (no separate connect)', async () => {
    const o = await openPage(browser, stack.url);
    const wallet = await installStandardTestWallet(o.page, {
      keypair: vendorKey,
      rpcUrl: stack.localnet.rpcUrl,
      name: 'Sign-In Test Wallet',
      features: ['solana:signIn', 'solana:signMessage', 'solana:signAndSendTransaction'],
    });
    await signInWithWallet(o.page, 'Sign-In Test Wallet');
    await o.page.getByRole('heading', { name: 'Seller console' }).waitFor();
    await o.page.getByText('Signed in as').getByText('Coopers Glass').waitFor();
    expect(wallet.requests()).toEqual(['signIn']);
    expect(unexpectedErrors(o.errors, SIGNED_OUT_CHECK)).toEqual([]);
    await o.close();
  });
});
