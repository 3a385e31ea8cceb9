/**
 * Wallet checkout end to end: headless Chromium with the Phantom-compatible test wallet, the built app,
 * the real server (orders, payment watcher, outbox) and the localnet, e-mails caught by a real SMTP sink.
 * Money is checked on chain (raw token balances of both accounts), e-mails in the mailbox, order state through
 * GET /api/orders/:id.
 */
import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Connection, Keypair, PublicKey } from '@solana/web3.js';
import type { ParsedMail } from 'mailparser';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderPublic } from '../../src/core/api';
import { groupThousands } from '../../src/core/money';
import { orderNumberOf } from '../../src/core/order-number';
import { expectReceipt } from '../support/receipt';
import { launchBrowser, openPage, unexpectedErrors, type OpenedPage } from '../support/browser';
import { startStack, type Stack } from '../support/stack';
import { restock } from '../support/stock';
import { installTestWallet, type TestWalletControl } from '../support/wallet';

const NO_PHANTOM = 'Please install Phantom Wallet.';
const BLOCKHASH_FAILED = 'Failed to get a valid blockhash. Try again.';
const NO_TOKEN_ACCOUNT = 'You do not have a $CLAIM token account. Please receive some $CLAIM first.';
const CONFIRMATION_SENT = 'Order confirmation sent to both seller and buyer!';
const CONFIRMATION_FAILED = 'Failed to send order confirmation.';
const DECLINED = 'You declined the request in your wallet. Nothing was paid.';
const PAYMENT_OK =
  /^Payment Successful! Sent (\d+\.\d{6}) \$CLAIM\. Transaction ID: ([1-9A-HJ-NP-Za-km-z]{64,88})\n/;

const SHIPPING = {
  fullName: 'Ada Lovelace',
  email: 'ada@buyer.test',
  address1: '1 Main St',
  address2: 'Apt 2',
  city: 'Springfield',
  stateProvince: 'IL',
  postalCode: '62701',
  country: 'USA',
};
const SHIPPING_LINE = '1 Main St, Apt 2, Springfield, IL, 62701, USA';

let stack: Stack;
let browser: Browser;
let rpc: Connection;
let mint: PublicKey;
let recipients: { coopersglass: PublicKey; gorilla: PublicKey };

beforeAll(async () => {
  [stack, browser] = await Promise.all([
    startStack({
      slotMs: 50,
      finalizeLag: 30, // 1.5 s between confirmed and finalized, so `paid` is observable before `final`
      // The gorilla vendor starts without its token account: the Garlic journey creates it (two approvals).
      withoutTokenAccount: ['gorilla'],
    }),
    launchBrowser(),
  ]);
  rpc = new Connection(stack.localnet.rpcUrl, 'confirmed');
  const keys = stack.localnet.keys;
  if (!keys) throw new Error('localnet without demo keys');
  mint = keys.mint;
  recipients = keys.recipients;
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
  opts: { absent?: boolean; fund?: { sol?: number; claim?: number } | null } = {},
): Promise<Session> {
  const buyer = Keypair.generate();
  const fund = opts.fund === undefined ? { sol: 2, claim: 100_000_000 } : opts.fund;
  if (fund) await stack.fund(buyer.publicKey.toBase58(), fund);
  const opened = await openPage(browser, stack.url);
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

async function until<T>(
  what: string,
  f: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 30_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** The n-th alert (0-based) once it has appeared. */
const alertAt = (s: Session, n: number, timeoutMs = 30_000) =>
  until(`alert #${n + 1} (so far: ${JSON.stringify(s.dialogs)})`, () => s.dialogs[n], timeoutMs);

async function openProduct(page: Page, path: string): Promise<void> {
  await page.goto(path);
  try {
    await page.waitForFunction(() => {
      const b = document.querySelector<HTMLButtonElement>('button.buy-now');
      return !!b && !b.disabled && b.textContent === 'Buy Now';
    });
  } catch (err) {
    const state = await page.evaluate(() => ({
      button: document.querySelector('button.buy-now')?.outerHTML,
      price: document.querySelector('.sale-price')?.textContent,
      error: document.querySelector('.product-info .error')?.textContent,
    }));
    throw new Error(`Buy Now never became ready on ${path}: ${JSON.stringify(state)}`, { cause: err });
  }
}

async function fillShipping(page: Page): Promise<void> {
  for (const [name, value] of Object.entries(SHIPPING))
    await page.locator(`form.order-form [name="${name}"]`).fill(value);
}

async function buy(page: Page): Promise<void> {
  await page.locator('button.buy-now').click();
}

async function tokenBalance(owner: PublicKey): Promise<bigint> {
  const ata = getAssociatedTokenAddressSync(mint, owner);
  const info = await rpc.getAccountInfo(ata, 'confirmed');
  if (!info) return 0n;
  return info.data.readBigUInt64LE(64);
}

async function getOrder(id: string): Promise<OrderPublic> {
  const res = await fetch(`${stack.url}/api/orders/${id}`);
  expect(res.status).toBe(200);
  return (await res.json()) as OrderPublic;
}

async function openOrderId(page: Page, productId: string): Promise<string> {
  const raw = await page.evaluate((k) => localStorage.getItem(k), `claim.walletOrder.${productId}`);
  expect(raw).toBeTruthy();
  return (JSON.parse(raw ?? '{}') as { orderId: string }).orderId;
}

const mailsOf = (orderId: string): ParsedMail[] =>
  stack.mail.all().filter((m) => m.headers.get('x-claim-order') === orderId);
const toOf = (m: ParsedMail): string =>
  Array.isArray(m.to) ? m.to.map((t) => t.text).join(', ') : (m.to?.text ?? '');

async function expectFinal(orderId: string): Promise<OrderPublic> {
  const order = await until('order final', async () => {
    const o = await getOrder(orderId);
    return o.status === 'final' ? o : undefined;
  });
  expect(order.history.map((h) => h.status)).toEqual(['awaiting_payment', 'paid', 'final']);
  return order;
}

function expectConfirmationMails(orderId: string, order: OrderPublic, productName: string): void {
  const mails = mailsOf(orderId);
  expect(mails.map((m) => m.headers.get('x-claim-kind'))).toEqual([
    'order_confirmation/seller',
    'order_confirmation/buyer',
  ]);
  const [seller, buyer] = mails as [ParsedMail, ParsedMail];
  expect(toOf(seller)).toContain('seller@shop.test');
  expect(toOf(buyer)).toContain(SHIPPING.email);
  expect(seller.text).toContain('Hello Seller,');
  expect(buyer.text).toContain(`Hello ${SHIPPING.fullName},`);
  for (const m of mails) {
    expect(m.text).toContain(`Product: ${productName}`);
    // Six decimals, thousands separators for reading (the API's amount is the plain decimal).
    expect(m.text).toContain(`Total ($CLAIM): ${groupThousands(order.amount ?? '')}`);
    expect(m.text).toMatch(/Total \(\$CLAIM\): \d{1,3}(,\d{3})*\.\d{6}\n/);
    // The seller reads the address; the buyer's copy does not quote it (free text; the order page shows it).
    expect(m.text).toContain(
      m === seller
        ? `Shipping address: ${SHIPPING_LINE}`
        : 'Shipping address: as given, shown on your order page',
    );
    expect(m.text).toContain(`Name: ${SHIPPING.fullName}`);
    expect(m.text).toContain(`E-mail: ${SHIPPING.email}`);
  }
}

/** The order's amount in base units (wallet orders always have one). */
function baseUnits(order: OrderPublic): bigint {
  expect(order.amountBaseUnits).toMatch(/^\d+$/);
  return BigInt(order.amountBaseUnits ?? '');
}

const approvals = (w: TestWalletControl) => w.requests().filter((r) => r === 'signAndSendTransaction').length;

/** A whole purchase; returns what the checks need. */
async function purchase(opts: {
  path: string;
  productId: string;
  productName: string;
  recipient: PublicKey;
  totalCents: number;
  prepare?: (page: Page) => Promise<void>;
  doubleClick?: boolean;
  /** The product's only piece: once bought, the page says so at once (no reload), with nothing to buy another of. */
  onlyPiece?: boolean;
}) {
  const s = await session();
  const sellerBefore = await tokenBalance(opts.recipient);
  const buyerBefore = await tokenBalance(s.buyer.publicKey);
  await openProduct(s.page, opts.path);
  await opts.prepare?.(s.page);
  await fillShipping(s.page);
  if (opts.doubleClick) await s.page.locator('button.buy-now').click({ clickCount: 2 });
  else await buy(s.page);

  const success = await alertAt(s, 0);
  const m = PAYMENT_OK.exec(success);
  expect(m, success).not.toBeNull();
  const [, amount, signature] = m as unknown as [string, string, string];
  // One alert after success: the payment and the e-mails in the same message.
  expect(success.endsWith(`\n${CONFIRMATION_SENT}`)).toBe(true);

  const orderId = await openOrderId(s.page, opts.productId);
  const order = await expectFinal(orderId);
  expect(order.totalCents).toBe(opts.totalCents);
  expect(order.amount).toBe(amount);
  expect(order.signature).toBe(signature);
  expect(s.wallet.sent().at(-1)).toBe(signature);

  const quoted = baseUnits(order);
  expect(buyerBefore - (await tokenBalance(s.buyer.publicKey))).toBe(quoted);
  expect((await tokenBalance(opts.recipient)) - sellerBefore).toBe(quoted);
  expectConfirmationMails(orderId, order, opts.productName);

  // On chain: one TransferChecked of exactly the quoted base units (6 decimals), the order's reference attached.
  const tx = await rpc.getParsedTransaction(signature, {
    commitment: 'confirmed',
    maxSupportedTransactionVersion: 0,
  });
  expect(tx?.meta?.err).toBeNull();
  const transfers = (tx?.transaction.message.instructions ?? []).filter(
    (i) => 'parsed' in i && (i.parsed as { type?: string }).type === 'transferChecked',
  );
  expect(transfers).toHaveLength(1);
  const info = (
    transfers[0] as { parsed: { info: { tokenAmount: { amount: string; decimals: number }; mint: string } } }
  ).parsed.info;
  expect(info.tokenAmount).toMatchObject({ amount: order.amountBaseUnits, decimals: 6 });
  expect(info.mint).toBe(mint.toBase58());
  expect(tx?.transaction.message.accountKeys.map((k) => k.pubkey.toBase58())).toContain(order.reference);

  // The purchase ends on the receipt (short number, amount with separators, the order page a 44 px button).
  await expectReceipt(s.page, orderNumberOf(orderId), `${groupThousands(amount)} $CLAIM`);
  if (opts.onlyPiece) {
    // The buyer's own last piece: the page is current (nothing to buy another of, no "Only 1 left") and brings
    // no sold-out news.
    await s.page.waitForFunction(() => !document.querySelector('button.buy-another'));
    expect(await s.page.getByText('Only 1 left').count()).toBe(0);
    expect(await s.page.getByTestId('stock').count()).toBe(0);
  }
  // The page shows the server's final status, and still does after a reload (the open order is remembered).
  await s.page.locator('[data-testid="order-status"]', { hasText: 'Payment received and final' }).waitFor();
  await s.page.reload();
  await s.page.locator('[data-testid="order-status"]', { hasText: 'Payment received and final' }).waitFor();
  expect(await s.page.locator('a.tx-link').getAttribute('href')).toContain(signature);
  expect(unexpectedErrors(s.errors)).toEqual([]);
  await s.close();
  return { s, order };
}

describe('wallet checkout (Phantom)', () => {
  it('buys Lilac TipTop ($95, glass vendor): exact amount moves, seller then buyer e-mail, paid then final', async () => {
    const { s } = await purchase({
      path: '/vendors/coopersglass/product2',
      productId: 'lilac-tiptop',
      productName: 'Lilac TipTop',
      recipient: recipients.coopersglass,
      totalCents: 9500,
      doubleClick: true,
      onlyPiece: true, // buy the only piece → the page says sold out without a reload
    });
    // A double click pays once: the button is disabled while the purchase is in flight. (The second 'connect' is
    // the wallet adapter's autoConnect after the reload.)
    // Buy Now asks the wallet to sign the hold message first (the order holds the piece only with that proof of
    // the money: docs/decisions/holds.md), then the payment.
    expect(s.wallet.requests()).toEqual(['connect', 'signMessage', 'signAndSendTransaction', 'connect']);

    // One of a kind, now sold: its tile turns Sold out (shown, not a link), its page says Sold out with no Buy
    // Now and no form, and a quote for it is refused with 409.
    const { page, errors, close } = await openPage(browser, stack.url);
    await page.goto('/vendors/coopersglass');
    const tile = page.locator('.tile[data-product="lilac-tiptop"]');
    await expect.poll(() => tile.getAttribute('class'), { timeout: 10_000 }).toContain('sold-out');
    expect(await tile.evaluate((el) => el.tagName)).toBe('DIV');
    expect(await tile.getByText('Sold Out').isVisible()).toBe(true);
    await page.goto('/vendors/coopersglass/product2');
    await page.getByTestId('stock').getByText('Sold out').waitFor();
    expect(await page.locator('button.buy-now').count()).toBe(0);
    expect(await page.locator('fieldset[data-form="international"]').count()).toBe(0);
    const refused = await page.evaluate(async () => {
      const res = await fetch('/api/quotes', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ items: [{ productId: 'lilac-tiptop', quantity: 1 }] }),
      });
      return { status: res.status, body: (await res.json()) as { message: string } };
    });
    expect(refused).toEqual({
      status: 409,
      body: expect.objectContaining({ message: 'Sold out: Lilac TipTop is no longer available.' }),
    });
    expect(unexpectedErrors(errors, [/\/api\/quotes$/])).toEqual([]);
    await close();
    // The journeys below use this page again: the seller restocks it.
    await restock(stack.server, 'lilac-tiptop', 20);
  });

  it("buys 3 × Garlic Amaretto ($150): the seller's token account is created first (two approvals)", async () => {
    const sellerAta = getAssociatedTokenAddressSync(mint, recipients.gorilla);
    expect(await rpc.getAccountInfo(sellerAta)).toBeNull();
    const { s } = await purchase({
      path: '/garlic',
      productId: 'garlic-amaretto-live-resin',
      productName: 'Garlic Amaretto Live Resin',
      recipient: recipients.gorilla,
      totalCents: 15000,
      prepare: async (page) => {
        await page.locator('#quantity').fill('3');
      },
    });
    expect(approvals(s.wallet)).toBe(2);
    expect(s.wallet.sent()).toHaveLength(2);
    expect(await rpc.getAccountInfo(sellerAta)).not.toBeNull();
  });

  it('buys BathSalts zips ($200): one approval now that the seller account exists', async () => {
    // BathSalts starts sold out (the spec's tile): the seller restocks both variants first (the page opens on
    // 18ths, whose Buy Now the journey waits for, then picks zips).
    await restock(stack.server, { productId: 'bathsalts-flower', variantId: '18ths' }, 5);
    await restock(stack.server, { productId: 'bathsalts-flower', variantId: 'zips' }, 5);
    const { s } = await purchase({
      path: '/bathsalts',
      productId: 'bathsalts-flower',
      productName: 'BathSalts Flower',
      recipient: recipients.gorilla,
      totalCents: 20000,
      prepare: async (page) => {
        await page.locator('input[name="variant"][value="zips"]').check();
      },
    });
    expect(approvals(s.wallet)).toBe(1);
  });

  it("stops with the spec's alert when the buyer has no $CLAIM token account; nothing is sent", async () => {
    const s = await session({ fund: { sol: 2 } });
    const sellerBefore = await tokenBalance(recipients.coopersglass);
    await openProduct(s.page, '/vendors/coopersglass/product2');
    await fillShipping(s.page);
    await buy(s.page);
    expect(await alertAt(s, 0)).toBe(NO_TOKEN_ACCOUNT);
    expect(approvals(s.wallet)).toBe(0);
    expect(s.wallet.sent()).toEqual([]);
    expect(await tokenBalance(recipients.coopersglass)).toBe(sellerBefore);
    // Checked before the order is made: no order, and the guide is one click away.
    expect(await s.page.evaluate(() => localStorage.getItem('claim.walletOrder.lilac-tiptop'))).toBeNull();
    const problem = s.page.getByTestId('checkout-problem');
    expect(await problem.textContent()).toContain('Your wallet has no $CLAIM yet.');
    expect(await problem.getByRole('link').getAttribute('href')).toBe('/referrals');
    await s.page.locator('button.buy-now:not([disabled])', { hasText: 'Buy Now' }).waitFor();
    expect(s.dialogs).toEqual([NO_TOKEN_ACCOUNT]);
    expect(unexpectedErrors(s.errors)).toEqual([]);
    await s.close();
  });

  it('checks $CLAIM and SOL before asking the wallet: plain words, a link to the guide, no order created', async () => {
    const countOrders = async () =>
      Number(
        (
          await stack.server.store.db
            .selectFrom('orders')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const cases = [
      {
        fund: { sol: 2, claim: 1 },
        text: /^Your wallet holds 1\.000000 \$CLAIM, but this order needs \d+\.\d{6} \$CLAIM\. Get more \$CLAIM first, then click Buy Now again\. No order was created\./,
      },
      {
        fund: { claim: 100_000_000 },
        text: /^Your wallet has 0 SOL, but 0\.00000503 SOL is needed for the network fee\. Add a little SOL to this wallet, then click Buy Now again\. No order was created\./,
      },
    ];
    for (const c of cases) {
      const s = await session({ fund: c.fund });
      const before = await countOrders();
      await openProduct(s.page, '/vendors/coopersglass/product2');
      await fillShipping(s.page);
      await buy(s.page);
      const problem = s.page.getByTestId('checkout-problem');
      await problem.waitFor();
      expect(await problem.textContent()).toMatch(c.text);
      expect(await problem.getAttribute('role')).toBe('alert');
      expect(await problem.getByRole('link').getAttribute('href')).toBe('/referrals');
      expect(s.wallet.requests()).toEqual(['connect']); // never asked to sign
      expect(s.dialogs).toEqual([]);
      expect(await countOrders()).toBe(before);
      expect(await s.page.evaluate(() => localStorage.getItem('claim.walletOrder.lilac-tiptop'))).toBeNull();
      await s.page.locator('button.buy-now:not([disabled])', { hasText: 'Buy Now' }).waitFor();
      expect(unexpectedErrors(s.errors)).toEqual([]);
      await s.close();
    }
  });

  it('asks to install Phantom when there is no Phantom provider (and records no order)', async () => {
    const s = await session({ absent: true, fund: null });
    await openProduct(s.page, '/vendors/coopersglass/product2');
    // The form is checked first (spec §4 step 1).
    await buy(s.page);
    expect(await alertAt(s, 0)).toBe('Please fill out all required shipping details first!');
    await fillShipping(s.page);
    await buy(s.page);
    expect(await alertAt(s, 1)).toBe(NO_PHANTOM);
    expect(await s.page.evaluate(() => localStorage.getItem('claim.walletOrder.lilac-tiptop'))).toBeNull();
    expect(unexpectedErrors(s.errors)).toEqual([]);
    await s.close();
  });

  it('stops cleanly when the wallet declines; the order stays awaiting payment and a retry pays that same order', async () => {
    const s = await session();
    const sellerBefore = await tokenBalance(recipients.coopersglass);
    await openProduct(s.page, '/vendors/coopersglass/product2');
    await fillShipping(s.page);
    // Declining the hold message (Buy Now's first request): nothing paid and no order made.
    s.wallet.setReject('message', { once: true });
    await buy(s.page);
    expect(await alertAt(s, 0)).toBe(DECLINED);
    await s.page.locator('[data-testid="checkout-note"]', { hasText: 'no order was made' }).waitFor();
    expect(await s.page.evaluate(() => localStorage.getItem('claim.walletOrder.lilac-tiptop'))).toBeNull();
    // Declining the payment itself: the order (made after the signed message) stays awaiting payment.
    s.wallet.setReject('transaction', { once: true });
    await s.page.locator('button.buy-now:not([disabled])', { hasText: 'Buy Now' }).waitFor();
    await buy(s.page);
    expect(await alertAt(s, 1)).toBe(DECLINED);
    await s.page.locator('[data-testid="checkout-note"]', { hasText: 'still awaiting payment' }).waitFor();
    const orderId = await openOrderId(s.page, 'lilac-tiptop');
    expect((await getOrder(orderId)).status).toBe('awaiting_payment');
    expect(s.wallet.sent()).toEqual([]);
    expect(await tokenBalance(recipients.coopersglass)).toBe(sellerBefore);
    await s.page.locator('[data-testid="order-status"]', { hasText: 'Awaiting payment' }).waitFor();
    // A reload (e.g. Phantom's in-app browser) shows the open order's live status again.
    await s.page.reload();
    await s.page.locator('[data-testid="order-status"]', { hasText: 'Awaiting payment' }).waitFor();
    await fillShipping(s.page);

    // Buy Now again: same inputs, so the same order (same reference) is paid; no second order.
    await s.page.locator('button.buy-now:not([disabled])', { hasText: 'Buy Now' }).waitFor();
    await buy(s.page);
    expect(await alertAt(s, 2)).toMatch(PAYMENT_OK);
    // One alert after success: the payment and the e-mails in the same message.
    expect((await alertAt(s, 2)).endsWith(`\n${CONFIRMATION_SENT}`)).toBe(true);
    expect(await openOrderId(s.page, 'lilac-tiptop')).toBe(orderId);
    const order = await expectFinal(orderId);
    expect((await tokenBalance(recipients.coopersglass)) - sellerBefore).toBe(baseUnits(order));
    expect(unexpectedErrors(s.errors)).toEqual([]);
    await s.close();
  });

  it('after success shows the finished order and "Buy another": clicking on never pays twice; Buy another starts a fresh order', async () => {
    const s = await session();
    await openProduct(s.page, '/vendors/coopersglass/product2');
    await fillShipping(s.page);
    // The real control (the wallet chunk has loaded on the form's focus), not the placeholder.
    const real = s.page.locator('button.buy-now:not([data-placeholder]):not([disabled])');
    await real.waitFor();
    /** Where a control sits in the document (a repeated click lands on whatever is there). */
    const placeOf = (selector: string) =>
      s.page.locator(selector).evaluate((el) => {
        const r = el.getBoundingClientRect();
        return { x: Math.round(r.x + scrollX), y: Math.round(r.y + scrollY) };
      });
    const buyNowPlace = await placeOf('button.buy-now');
    await real.click({ clickCount: 2 });
    expect(await alertAt(s, 0)).toMatch(PAYMENT_OK);
    // One alert after success: the payment and the e-mails in the same message.
    expect((await alertAt(s, 0)).endsWith(`\n${CONFIRMATION_SENT}`)).toBe(true);
    const orderId = await openOrderId(s.page, 'lilac-tiptop');
    // Focus went to the order status after Buy Now; the column shows the finished order and its number.
    expect(await s.page.evaluate(() => document.activeElement?.id)).toBe('order-status-title');
    expect(await s.page.getByTestId('order-number').textContent()).toBe(orderNumberOf(orderId));
    await s.page.locator('[data-testid="order-status"]', { hasText: 'Payment received' }).waitFor();
    expect(await s.page.locator('button.buy-now').count()).toBe(0);
    expect(await s.page.getByTestId('time-left').count()).toBe(0);
    const another = s.page.getByRole('button', { name: 'Buy another' });
    await another.waitFor();
    await s.page.waitForFunction(
      () => !document.querySelector<HTMLButtonElement>('button.buy-another')?.disabled,
    );

    // The buyer clicks on at the same spot: the first click is "Buy another" (a fresh, empty form with focus),
    // the next one meets Buy Now with an empty form. Nothing is paid again.
    expect(await placeOf('button.buy-another')).toEqual(buyNowPlace);
    // The finished order's details are read-only (sent with it); Buy another opens a fresh form.
    expect(await s.page.locator('form.order-form [name="fullName"]').isDisabled()).toBe(true);
    await another.click();
    expect(await s.page.locator('form.order-form [name="fullName"]').isDisabled()).toBe(false);
    expect(await s.page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('fullName');
    expect(await placeOf('button.buy-now')).toEqual(buyNowPlace);
    await s.page.locator('button.buy-now').click();
    expect(await alertAt(s, 1)).toBe('Please fill out all required shipping details first!');
    expect(approvals(s.wallet)).toBe(1);
    expect(s.wallet.sent()).toHaveLength(1);
    expect(await s.page.locator('form.order-form [name="fullName"]').inputValue()).toBe('');
    expect(await s.page.locator('[data-testid="order-number"]').count()).toBe(0);
    expect(await s.page.evaluate(() => localStorage.getItem('claim.walletOrder.lilac-tiptop'))).toBeNull();

    // Buying again on purpose is a new order, paid once.
    await fillShipping(s.page);
    await buy(s.page);
    expect(await alertAt(s, 2)).toMatch(PAYMENT_OK);
    // One alert after success: the payment and the e-mails in the same message.
    expect((await alertAt(s, 2)).endsWith(`\n${CONFIRMATION_SENT}`)).toBe(true);
    const second = await openOrderId(s.page, 'lilac-tiptop');
    expect(second).not.toBe(orderId);
    await expectFinal(second);
    expect(approvals(s.wallet)).toBe(2);
    expect(unexpectedErrors(s.errors)).toEqual([]);
    await s.close();
  });

  it('shows the time left on an awaiting order, and at zero says it can no longer be paid', async () => {
    const s = await session();
    await s.page.clock.install();
    await openProduct(s.page, '/vendors/coopersglass/product2');
    await fillShipping(s.page);
    s.wallet.setReject('transaction', { once: true }); // the payment is declined; the order stays open
    await buy(s.page);
    expect(await alertAt(s, 0)).toBe(DECLINED);
    const left = s.page.getByTestId('time-left');
    await left.waitFor();
    expect(await left.textContent()).toMatch(/^Time left to pay: 1[45]:[0-5]\d$/);
    expect(await s.page.evaluate(() => document.activeElement?.id)).toBe('order-status-title');
    const seconds = Number(await left.getAttribute('data-seconds'));
    await s.page.clock.fastForward(seconds * 1000 + 2000);
    await s.page.locator('[data-testid="time-left"][data-seconds="0"]').waitFor();
    expect(await left.textContent()).toBe(
      'Time is up: this order can no longer be paid, and nothing was taken from your wallet for it. Click Buy Now to start a new order at the current price.',
    );
    expect(s.wallet.sent()).toEqual([]);
    expect(unexpectedErrors(s.errors)).toEqual([]);
    await s.close();
  });

  it("alerts 'Failed to get a valid blockhash. Try again.' when the node is down", async () => {
    const s = await session();
    await openProduct(s.page, '/vendors/coopersglass/product2');
    await fillShipping(s.page);
    stack.localnet.setFailing(true);
    try {
      await buy(s.page);
      expect(await alertAt(s, 0)).toBe(BLOCKHASH_FAILED);
    } finally {
      stack.localnet.setFailing(false);
    }
    expect(approvals(s.wallet)).toBe(0);
    expect(s.wallet.sent()).toEqual([]);
    // The RPC's 503 answers are logged by the browser as failed loads; nothing else.
    expect(
      unexpectedErrors(s.errors, [
        new RegExp(`^${stack.localnet.rpcUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
      ]),
    ).toEqual([]);
    await s.close();
  });

  it('pays even when e-mail is down: alerts the failure, then both e-mails arrive exactly once after recovery', async () => {
    const s = await session();
    await openProduct(s.page, '/vendors/coopersglass/product2');
    await fillShipping(s.page);
    stack.mail.setFailing(true);
    let orderId: string;
    try {
      await buy(s.page);
      expect(await alertAt(s, 0)).toMatch(PAYMENT_OK);
      // One alert after success: the payment and the e-mails in the same message.
      expect((await alertAt(s, 0)).endsWith(`\n${CONFIRMATION_FAILED}`)).toBe(true);
      orderId = await openOrderId(s.page, 'lilac-tiptop');
      expect(mailsOf(orderId)).toEqual([]);
      await s.page.locator('[data-testid="checkout-note"]', { hasText: 'keeps retrying' }).waitFor();
    } finally {
      stack.mail.setFailing(false);
    }
    const order = await expectFinal(orderId);
    await until('both e-mails', () => (mailsOf(orderId).length >= 2 ? true : undefined));
    // The page follows the server: both delivered.
    await s.page.locator('[data-testid="order-emails"]', { hasText: 'seller sent, buyer sent' }).waitFor();
    await new Promise((r) => setTimeout(r, 1_000)); // room for a duplicate to show up
    expectConfirmationMails(orderId, order, 'Lilac TipTop');
    expect(unexpectedErrors(s.errors)).toEqual([]);
    await s.close();
  });

  it('keeps Solana and wallet code off the light pages; product pages load it on the first intent', async () => {
    const o = await openPage(browser, stack.url);
    const scripts: string[] = [];
    o.page.on('request', (r) => {
      if (r.resourceType() === 'script') scripts.push(r.url());
    });
    for (const path of ['/', '/about', '/giveaways']) {
      await o.page.goto(path);
      await o.page.waitForLoadState('networkidle');
    }
    expect(scripts.filter((u) => /WalletPay/.test(u))).toEqual([]);
    await o.page.goto('/vendors/coopersglass/product2');
    await o.page.locator('button.buy-now').waitFor();
    await o.page.waitForLoadState('networkidle');
    expect(scripts.filter((u) => /WalletPay/.test(u))).toEqual([]); // nothing before input (bundle budget)
    await o.page.locator('button.buy-now').hover({ force: true });
    await expect.poll(() => scripts.filter((u) => /WalletPay/.test(u)).length).toBe(1);
    expect(unexpectedErrors(o.errors)).toEqual([]);
    await o.close();
  });

  it("connects through the wallet picker: 'Detected', Escape/overlay close it, choosing Phantom connects; no wallet: 'You'll need a wallet'", async () => {
    const s = await session({ fund: null });
    await openProduct(s.page, '/vendors/coopersglass/product2');
    const title = s.page.locator('.wallet-picker-title');
    await s.page.getByRole('button', { name: 'Select Wallet' }).click();
    await title.filter({ hasText: 'Connect a wallet on Solana to continue' }).waitFor();
    expect(await s.page.locator('.wallet-picker-list li').first().innerText()).toMatch(/Phantom\s*Detected/);
    await s.page.keyboard.press('Escape');
    await title.waitFor({ state: 'detached' });
    await s.page.getByRole('button', { name: 'Select Wallet' }).click();
    await s.page.locator('.wallet-picker-list li button', { hasText: 'Phantom' }).click();
    const short = s.buyer.publicKey.toBase58();
    await s.page.locator('.wallet-button', { hasText: `${short.slice(0, 4)}..${short.slice(-4)}` }).waitFor();
    expect(s.wallet.requests()).toEqual(['connect']);
    expect(unexpectedErrors(s.errors)).toEqual([]);
    await s.close();

    const none = await session({ absent: true, fund: null });
    await openProduct(none.page, '/vendors/coopersglass/product2');
    await none.page.getByRole('button', { name: 'Select Wallet' }).click();
    await none.page
      .locator('.wallet-picker-title', { hasText: "You'll need a wallet on Solana to continue" })
      .waitFor();
    await none.page.mouse.click(5, 5); // the overlay closes it too
    await none.page.locator('.wallet-picker-title').waitFor({ state: 'detached' });
    expect(unexpectedErrors(none.errors)).toEqual([]);
    await none.close();
  });
});
