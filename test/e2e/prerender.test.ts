/**
 * Prerendered pages (scripts/prerender.ts, served by src/server/app.ts): the HTML of a page already holds its
 * content before any script runs, unknown paths get the 404 page with status 404, no page carries an inline
 * script (CSP; the boot data block is JSON, not executed, and holds the public config only), and the browser hydrates the prerendered HTML without a hydration error (React logs mismatches
 * with console.error, which the harness records).
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../catalog';
import { allPagePaths } from '../../src/core/routes';
import {
  launchBrowser,
  openPage,
  startTestServer,
  unexpectedErrors,
  type TestServer,
} from '../support/browser';

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startTestServer();
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const html = async (path: string) => {
  const res = await fetch(new URL(path, server.url));
  return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
};
/** The text of the prerendered #root (tags removed), as a visitor without JavaScript would get it. */
const rootText = (body: string) =>
  (/<div id="root">([\s\S]*)<\/div>\s*<noscript>/.exec(body)?.[1] ?? '').replace(/<[^>]+>/g, ' ');

describe('prerendered HTML (no browser)', () => {
  it('GET /about holds the page, its title and no inline script', async () => {
    const { status, type, body } = await html('/about');
    expect(status).toBe(200);
    expect(type).toMatch(/^text\/html/);
    expect(body).toContain('<title>About Us | $CLAIM Store</title>');
    expect(rootText(body)).toContain('About Us');
    expect(rootText(body)).toContain('Our mission');
    // Visitor/config-dependent parts are in their loading state.
    expect(rootText(body)).toContain('Loading the contract address');
  });

  it('serves the normalised path (trailing slash, upper case, query)', async () => {
    for (const path of ['/about/', '/ABOUT', '/about?ref=alice']) {
      const { status, body } = await html(path);
      expect(status, path).toBe(200);
      expect(body, path).toContain('<title>About Us | $CLAIM Store</title>');
    }
  });

  it('product pages: the product and the loading states of price, QR and Buy Now', async () => {
    const wallet = await html('/vendors/coopersglass/product1');
    expect(wallet.status).toBe(200);
    expect(rootText(wallet.body)).toContain('Sonic Crushed Opal Spillproof');
    expect(rootText(wallet.body)).toContain('Loading $CLAIM price...');
    expect(wallet.body).toMatch(/<button[^>]*disabled=""[^>]*>Loading Price\.\.\.<\/button>/);
    const qr = await html('/strawberry-fritter');
    expect(qr.status).toBe(200);
    expect(rootText(qr.body)).toContain('Generating QR Code...');
    expect(rootText(qr.body)).toContain('Loading $CLAIM price...');
    // The QR page's instructions and form are in the HTML (the buyer can read and type before any script).
    expect(rootText(qr.body)).toContain('How to Complete Your Purchase');
    expect(qr.body).toMatch(/<input[^>]*name="fullName"/);
  });

  it('every page path is prerendered with its own title; no inline script anywhere', async () => {
    for (const path of allPagePaths(catalog)) {
      const { status, body } = await html(path);
      expect(status, path).toBe(200);
      expect(body, path).toMatch(/<div id="root"><a class="skip-link"/);
      expect(body, path).toMatch(/<title>[^<]+<\/title>/);
      // The one script element without src is the boot data block: JSON, never executed (CSP unchanged).
      for (const tag of body.match(/<script\b[^>]*>/g) ?? [])
        expect(tag, path).toMatch(/\ssrc="|^<script type="application\/json" id="boot-data">$/);
    }
  });

  it('pages carry the public config and the current price inline, and nothing else of the settings', async () => {
    const { body } = await html('/honey2');
    const blocks = [...body.matchAll(/<script type="application\/json" id="boot-data">([^<]*)<\/script>/g)];
    expect(blocks).toHaveLength(1);
    const boot = JSON.parse(blocks[0]?.[1] ?? '') as { config: Record<string, unknown>; price: unknown };
    // A QR product page on sale also carries its stock and its first quote (see the next test).
    expect(Object.keys(boot).sort()).toEqual(['config', 'price', 'qrQuote', 'stock']);
    // Exactly GET /api/config's body and GET /api/price's (taken a moment apart: the age may tick).
    expect(boot.config).toEqual(await (await fetch(`${server.url}/api/config`)).json());
    expect(Object.keys(boot.config).sort()).toEqual([
      'claimMint',
      'cluster',
      'demo',
      'pairAddress',
      'rpcUrl',
      'wsUrl',
    ]);
    const price = (await (await fetch(`${server.url}/api/price`)).json()) as Record<string, unknown>;
    expect(Object.keys(boot.price as object).sort()).toEqual(Object.keys(price).sort());
    // No secret and no seller e-mail anywhere in the page.
    const s = server.settings;
    for (const secret of [s.quote.secret, s.mail.sellerEmail, ...Object.values(s.mail.sellerEmails ?? {})])
      if (secret) expect(body).not.toContain(secret);
    // Product pages preload their screen's chunks beside the entry (no chain of chunk requests).
    expect(body).toMatch(/<link rel="modulepreload" crossorigin href="\/assets\/QrPay-[^"]+\.js">/);
    expect(body).toMatch(/<link rel="modulepreload" crossorigin href="\/assets\/ProductPage-[^"]+\.js">/);
  });

  it("pages carry their products' stock; a QR page on sale its first quote, good for one record and never cached", async () => {
    type Boot = { stock?: { productId: string; variantId?: string; available: number }[]; qrQuote?: unknown };
    const bootOf = async (path: string) => {
      const res = await fetch(new URL(path, server.url));
      const body = await res.text();
      const block = /<script type="application\/json" id="boot-data">([^<]*)<\/script>/.exec(body)?.[1];
      return { boot: JSON.parse(block ?? '{}') as Boot, cache: res.headers.get('cache-control') };
    };
    const all = (
      (await (await fetch(`${server.url}/api/stock`)).json()) as { lines: NonNullable<Boot['stock']> }
    ).lines;
    const linesOf = (ids: string[]) => all.filter((l) => ids.includes(l.productId));
    const honey = catalog.products.find((p) => p.routes.includes('/honey2'))!;
    const fritter = catalog.products.find((p) => p.routes.includes('/strawberry-fritter'))!;
    const wallet = catalog.products.find((p) => p.routes.includes('/vendors/coopersglass/product1'))!;

    // Pages without stock carry none; a vendor's page its products' lines; a product page its own.
    expect((await bootOf('/about')).boot.stock).toBeUndefined();
    const glass = catalog.products.filter((p) => p.vendorId === 'coopersglass').map((p) => p.id);
    expect((await bootOf('/vendors/coopersglass')).boot.stock).toEqual(linesOf(glass));
    const walletPage = await bootOf('/vendors/coopersglass/product1');
    expect(walletPage.boot.stock).toEqual(linesOf([wallet.id]));
    expect(walletPage.boot.qrQuote).toBeUndefined();
    expect(walletPage.cache).toBe('no-cache');

    // Sold out (Strawberry Fritter starts with none): the page knows it at once and carries no quote.
    const soldOut = await bootOf('/strawberry-fritter');
    expect(soldOut.boot.stock?.map((l) => l.available)).toEqual([0]);
    expect(soldOut.boot.qrQuote).toBeUndefined();

    // On sale: POST /api/quotes' answer for one unit of the first variant, a fresh reference per request, never
    // stored by a cache; it makes exactly one record.
    const first = await bootOf('/honey2');
    const second = await bootOf('/honey2');
    expect(first.cache).toBe('no-store');
    expect(first.boot.stock).toEqual(linesOf([honey.id]));
    const quote = first.boot.qrQuote as { quote: string; reference: string; items: unknown[] };
    const asked = (await (
      await fetch(`${server.url}/api/quotes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          items: [{ productId: honey.id, variantId: honey.variants?.[0]?.id, quantity: 1 }],
        }),
      })
    ).json()) as Record<string, unknown>;
    expect(Object.keys(quote).sort()).toEqual(Object.keys(asked).sort());
    expect(quote.items).toEqual(asked.items);
    expect(quote.reference).not.toBe((second.boot.qrQuote as { reference: string }).reference);
    const record = (key: string) =>
      fetch(`${server.url}/api/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify({ quote: quote.quote, paymentMethod: 'qr' }),
      });
    expect((await record('boot-quote-1')).status).toBe(201);
    const again = await record('boot-quote-2');
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: string }).error).toBe('quote_already_used');
    expect(fritter.payment).toBe('qr');
  });

  it('GET /no-such-page: status 404 with the prerendered 404 page', async () => {
    for (const path of ['/no-such-page', '/vendors/nobody']) {
      const { status, body } = await html(path);
      expect(status, path).toBe(404);
      expect(body, path).toContain('<title>Page not found | $CLAIM Store</title>');
      expect(rootText(body), path).toContain('Page not found');
    }
  });
});

describe('hydration in the browser', () => {
  it('hydrates prerendered pages without errors, and they come alive', async () => {
    const { page, errors, close } = await openPage(browser, server.url);
    const pages: [string, () => Promise<unknown>][] = [
      ['/', () => page.locator('nav a[aria-current="page"]').first().waitFor()],
      ['/about', () => page.getByTestId('mint-address').waitFor()],
      [
        '/giveaways',
        () =>
          page.waitForFunction(
            () => !/-/.test(document.querySelector('[data-unit="seconds"]')?.textContent ?? '-'),
          ),
      ],
      ['/referrals', () => page.locator('main h1').waitFor()],
      ['/vendors', () => page.locator('main h1').waitFor()],
      ['/vendors/coopersglass', () => page.locator('.product-grid').waitFor()],
      [
        '/vendors/coopersglass/product1',
        () =>
          page.waitForFunction(
            () =>
              document.querySelector('[data-testid="claim-amount"]')?.textContent !==
              'Loading $CLAIM price...',
          ),
      ],
      // An in-stock QR product (Strawberry Fritter starts sold out: its page offers no QR).
      ['/honey2', () => page.locator('[data-testid="qr-box"] img').waitFor()],
      ['/no-such-page', () => page.getByRole('heading', { name: 'Page not found' }).waitFor()],
    ];
    for (const [path, alive] of pages) {
      await page.goto(path);
      await alive();
      await page.waitForLoadState('networkidle');
      expect(unexpectedErrors(errors, [/\/no-such-page$/]), path).toEqual([]);
    }
    // Hydrated, not just painted: a link navigates in the page (no new document).
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
    await page.getByRole('link', { name: 'Back to Home' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1);
    await close();
  });

  it('hydration adopts the prerendered nodes: the same elements, grabbed before any script ran, become interactive', async () => {
    const { page, errors, close } = await openPage(browser, server.url);
    // Hold every script until the prerendered nodes are in hand: the page is exactly the server's HTML then.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const held: string[] = [];
    await page.route(
      (url) => url.pathname.endsWith('.js'),
      async (route) => {
        held.push(route.request().url());
        await gate;
        await route.continue();
      },
    );
    await page.goto('/vendors/coopersglass/product1', { waitUntil: 'commit' });
    const amount = await page.waitForSelector('[data-testid="claim-amount"]');
    const home = await page.waitForSelector('nav[aria-label="Main"] a[href="/"]');
    // Nothing has run yet: the prerendered loading text, and the entry script is waiting at the gate.
    expect(await amount.textContent()).toBe('Loading $CLAIM price...');
    await expect.poll(() => held.length).toBeGreaterThan(0);
    expect(
      await page.evaluate(
        () => document.querySelectorAll('script:not([src]):not([type="application/json"])').length,
      ),
    ).toBe(0);

    release();
    // React updates this very node (the live price replaces the loading text): hydrated, not re-rendered.
    await expect.poll(() => amount.textContent(), { timeout: 15_000 }).toMatch(/\$CLAIM$/);
    expect(
      await amount.evaluate(
        (el) => el.isConnected && el === document.querySelector('[data-testid="claim-amount"]'),
      ),
    ).toBe(true);
    expect(
      await home.evaluate(
        (el) => el.isConnected && el === document.querySelector('nav[aria-label="Main"] a[href="/"]'),
      ),
    ).toBe(true);
    // The same link now navigates inside the page (the router's handler is on it): no new document.
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
    await home.click();
    await page.waitForURL((url) => url.pathname === '/');
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1);
    expect(unexpectedErrors(errors, [])).toEqual([]);
    await close();
  });

  it('the QR page form is usable before any script: what the buyer typed then stays and is kept for the tab', async () => {
    const { page, errors, close } = await openPage(browser, server.url);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    await page.route(
      (url) => url.pathname.endsWith('.js'),
      async (route) => {
        await gate;
        await route.continue();
      },
    );
    await page.goto('/honey2', { waitUntil: 'commit' });
    const name = page.locator('form.order-form [name="fullName"]');
    await name.fill('Grace Hopper');
    await page.locator('form.order-form [name="usState"]').selectOption('OR');
    release();
    // Alive (the QR's amount to pay is shown: hydrated, priced, recorded), the typed values are the page's own.
    await page.getByTestId('qr-amount').waitFor({ timeout: 15_000 });
    expect(await name.inputValue()).toBe('Grace Hopper');
    await page.reload();
    await expect.poll(() => name.inputValue(), { timeout: 15_000 }).toBe('Grace Hopper');
    expect(await page.locator('form.order-form [name="usState"]').inputValue()).toBe('OR');
    expect(unexpectedErrors(errors, [])).toEqual([]);
    await close();
  });

  it('a phone leads with its own wallet from the first frame: before any script, then hydrated, without a hydration error', async () => {
    const phone = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true };
    const desk = { viewport: { width: 1280, height: 900 } };
    for (const [context, title, step] of [
      [
        phone,
        'Pay with a wallet on this phone',
        /^Tap Open in wallet to pay with a wallet app on this phone/,
      ],
      [desk, 'Scan to pay', /^Scan the QR code with a Solana wallet app/],
    ] as const) {
      const { page, errors, close } = await openPage(browser, server.url, context);
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      await page.route(
        (url) => url.pathname.endsWith('.js'),
        async (route) => {
          await gate;
          await route.continue();
        },
      );
      await page.goto('/honey2', { waitUntil: 'commit' });
      const heading = page.locator('#qr-title');
      await heading.waitFor();
      // The first frame is painted only once the stylesheet has loaded (it is render-blocking); innerText lays out
      // with what has loaded so far, so wait for it as the screen does (both titles read together before it).
      await page.waitForFunction(() =>
        Array.from(document.querySelectorAll<HTMLLinkElement>('link[rel=stylesheet]')).every(
          (l) => l.sheet !== null,
        ),
      );
      // The server's HTML as the screen shows it (innerText: what is displayed), nothing run yet.
      expect(await heading.innerText()).toBe(title);
      const firstStep = page.locator('.instructions li').first();
      expect(await firstStep.innerText()).toMatch(step);
      release();
      await page.getByTestId('qr-amount').waitFor({ timeout: 15_000 });
      // Hydrated: the title is the one text (no hidden twin left for a screen reader or a copy).
      expect(await heading.textContent()).toBe(title);
      expect(await firstStep.innerText()).toMatch(step);
      expect(unexpectedErrors(errors, [])).toEqual([]);
      await close();
    }
  });

  it('a QR page on sale turns the quote it carried into its record, asked once, before hydration: no quote request', async () => {
    const honey = catalog.products.find((p) => p.routes.includes('/honey2'))!;
    const { page, errors, close } = await openPage(browser, server.url);
    const calls: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().includes('/api/')) calls.push(new URL(r.url()).pathname);
    });
    // Hold the page's own code (not the entry) until the record was asked for: the entry asks, not the page.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    await page.route(/\/assets\/(ProductPage|QrPay)-[^/]+\.js$/, async (route) => {
      await gate;
      await route.continue();
    });
    await page.goto('/honey2', { waitUntil: 'commit' });
    await expect.poll(() => calls, { timeout: 15_000 }).toEqual(['/api/orders']);
    release();
    await page.getByTestId('qr-image').waitFor({ timeout: 15_000 });
    await page.waitForLoadState('networkidle');
    // One record, made from the page's own quote, and it is the one the page shows and keeps.
    expect(calls).toEqual(['/api/orders']);
    const carried = await page.evaluate(
      () =>
        (
          JSON.parse(document.getElementById('boot-data')?.textContent ?? '{}') as {
            qrQuote?: { quote: string };
          }
        ).qrQuote?.quote,
    );
    const stored = await page.evaluate(
      (id) =>
        JSON.parse(localStorage.getItem(`qr-order:${id}`) ?? '{}') as {
          quote?: string;
          solanaPayUrl?: string;
        },
      honey.id,
    );
    expect(carried).toBeTruthy();
    expect(stored.quote).toBe(carried);
    expect(await page.getByTestId('qr-image').getAttribute('src')).toMatch(/^data:image\/svg\+xml/);
    expect(unexpectedErrors(errors, [])).toEqual([]);
    await close();
  });

  it('hydrates when the first client render could differ: stored QR order, reduced motion', async () => {
    // An in-stock QR product: its checkout renders (a sold-out page has none).
    const fritter = catalog.products.find((p) => p.routes.includes('/honey2'));
    expect(fritter).toBeDefined();
    const { page, errors, close } = await openPage(browser, server.url, { reducedMotion: 'reduce' });
    await page.addInitScript((productId: string) => {
      localStorage.setItem(
        `qr-order:${productId}`,
        JSON.stringify({
          orderId: '00000000-0000-4000-8000-000000000000',
          productId,
          solanaPayUrl: null,
          amount: null,
          quantity: 1,
          confirmed: false,
        }),
      );
    }, fritter!.id);
    await page.goto('/honey2');
    await page.waitForLoadState('networkidle');
    await page.goto('/about');
    await page.getByTestId('mint-address').waitFor();
    expect(await page.getByRole('button', { name: /scrolling/ }).count()).toBe(0);
    expect(unexpectedErrors(errors, [/\/api\/orders\//])).toEqual([]);
    await close();
  });
});
