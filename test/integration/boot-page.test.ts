/**
 * The page's own boot data (src/server/http/boot-page.ts) on a real store (SQLite): the stock lines of the products
 * a page shows, and a QR product page's first quote only where POST /api/quotes would issue it without waiting for
 * the chain (in stock, priced, the vendor's token account known to exist or a transaction request, not a drop).
 * The HTML that carries it, and the browser taking it, are in test/e2e/prerender.test.ts.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { catalog } from '../../catalog';
import { resolveScreen } from '../../src/core/routes';
import type { PayoutAccountState } from '../../src/core/payout-account';
import { pageBootData, type PageBootDeps } from '../../src/server/http/boot-page';
import { verifyQuote } from '../../src/server/orders/quotes';
import { startServer, type RunningServer } from '../../src/server/server';
import { restock } from '../support/stock';
import { payoutAccountsAssumedToExist } from '../support/payout-accounts';
import { dropCatalog } from '../support/drop-build';
import { Clock, sqliteBackend, testSettings, TestPrice } from './orders-support';

const backend = sqliteBackend();
const HONEY = '/honey2';
const honey = catalog.products.find((p) => p.routes.includes(HONEY))!;

describe('the page boot data', () => {
  let server: RunningServer;
  let clock: Clock;
  let price: TestPrice;
  const settings = testSettings();
  /** The account state the cache holds (undefined: not read yet). */
  let account: PayoutAccountState | undefined;
  const deps = (over: Partial<PageBootDeps> = {}): PageBootDeps => ({
    stock: server.stock,
    quotes: { catalog, settings, priceSource: price, now: clock.now },
    payoutAccounts: { peek: () => account },
    transactionRequests: false,
    ...over,
  });
  const bootOf = (path: string, over: Partial<PageBootDeps> = {}) =>
    pageBootData(deps(over))(resolveScreen(over.quotes?.catalog ?? catalog, path));

  beforeEach(async () => {
    clock = new Clock();
    price = new TestPrice(clock, '0.5');
    account = 'exists';
    server = await startServer(settings, {
      payoutAccounts: payoutAccountsAssumedToExist,
      store: await backend.fresh(),
      priceSource: price,
      now: clock.now,
      startOutbox: false,
      expireEveryMs: 0,
    });
    await restock(server, honey.id, 3);
  });
  afterEach(async () => {
    await server.close();
  });
  afterAll(async () => {
    await backend.cleanup();
  });

  it("a QR page on sale: its product's stock and a signed quote for one unit, the page's first request", async () => {
    const boot = await bootOf(HONEY);
    const lines = (await server.stock.availability()).filter((l) => l.productId === honey.id);
    expect(boot.stock).toEqual(lines);
    expect(boot.stock?.map((l) => l.available)).toContain(3);
    const quote = boot.qrQuote!;
    const variantId = honey.variants?.[0]?.id;
    expect(quote.items.map((i) => [i.productId, i.variantId, i.quantity])).toEqual([
      [honey.id, variantId, 1],
    ]);
    expect(quote.priceUsd).toBe('0.5');
    expect(quote.solanaPayUrl).toMatch(/^solana:/);
    const check = verifyQuote(quote.quote, settings.quote.secret, clock.now());
    expect(check.ok && check.quote.reference).toBe(quote.reference);
    // A fresh reference per request: a quote makes one order.
    expect((await bootOf(HONEY)).qrQuote?.reference).not.toBe(quote.reference);
  });

  it('no quote where POST /api/quotes would refuse or wait: sold out, no price, account missing or not read yet', async () => {
    await restock(server, honey.id, 0);
    const soldOut = await bootOf(HONEY);
    expect(soldOut.stock?.every((l) => l.available === 0)).toBe(true);
    expect(soldOut.qrQuote).toBeUndefined();
    await restock(server, honey.id, 3);

    price.set(undefined);
    const unpriced = await bootOf(HONEY);
    expect(unpriced.stock?.length).toBeGreaterThan(0);
    expect(unpriced.qrQuote).toBeUndefined();
    price.set('0.5');

    for (const state of ['missing', 'unknown', undefined] as const) {
      account = state;
      expect((await bootOf(HONEY)).qrQuote, String(state)).toBeUndefined();
    }
    // Over HTTPS the transaction request creates a missing account: the quote is issued (as the route does).
    expect((await bootOf(HONEY, { transactionRequests: true })).qrQuote).toBeDefined();
    account = 'exists';
    expect((await bootOf(HONEY)).qrQuote).toBeDefined();
  });

  it("a drop's page gets no quote (a drop's quote is a turn in its line); wallet pages none; vendors their lines", async () => {
    const drop = dropCatalog(honey.id, { startsAt: new Date(clock.ms - 60_000).toISOString() });
    const dropBoot = await bootOf(HONEY, {
      quotes: { catalog: drop, settings, priceSource: price, now: clock.now },
    });
    expect(dropBoot.stock?.length).toBeGreaterThan(0);
    expect(dropBoot.qrQuote).toBeUndefined();

    const wallet = await bootOf('/vendors/coopersglass/product1');
    expect(wallet.stock?.map((l) => l.productId)).toEqual(['sonic-crushed-opal-spillproof']);
    expect(wallet.qrQuote).toBeUndefined();

    const glass = catalog.products.filter((p) => p.vendorId === 'coopersglass').map((p) => p.id);
    const vendor = await bootOf('/vendors/coopersglass');
    expect(new Set(vendor.stock?.map((l) => l.productId))).toEqual(new Set(glass));
    expect(vendor.qrQuote).toBeUndefined();

    expect(await bootOf('/about')).toEqual({});
    expect(await bootOf('/no-such-page')).toEqual({});
  });
});
