/**
 * A drop in the browser tests (docs/decisions/drops.md). The web app carries its catalogue in its build (dist/web)
 * and the shop's catalogue has no drop, so a drop's product page needs a build whose catalogue has one. Rather than
 * a second build (a minute), a browser context is served the built app as that build would be:
 *
 * - the chunk holding the catalogue with `drop` in the product's entry (catalog/products.ts passes a glass piece's
 *   `drop` through, so this is the entry a catalogue with the drop compiles to);
 * - the product's pages as the bare shell (dist/web/index.html, which the client renders), since the prerender of
 *   the product without its drop would not hydrate into the drop's page.
 *
 * The server gets the same drop through its own catalogue (`dropCatalog`, the `catalog` override).
 *
 *   const drop = { startsAt, holdMinutes: 1 };
 *   const server = await startTestServer({}, { catalog: dropCatalog('lilac-tiptop', drop) });
 *   const opened = await openPage(browser, server.url);
 *   const build = await serveDropBuild(opened.context, server.webDir, 'lilac-tiptop', drop);
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { catalog as shopCatalog } from '../../catalog';
import type { Catalog } from '../../src/core/catalog';
import type { Drop } from '../../src/core/drop';

/** The shop's catalogue with `productId` a drop. */
export function dropCatalog(productId: string, drop: Drop): Catalog {
  if (!shopCatalog.products.some((p) => p.id === productId)) throw new Error(`no product ${productId}`);
  return {
    vendors: shopCatalog.vendors,
    products: shopCatalog.products.map((p) => (p.id === productId ? { ...p, drop } : p)),
  };
}

/**
 * Serves `context` the build in `webDir` as if its catalogue made `productId` the drop `drop`. Throws when no chunk
 * of the build holds the product's entry (the build's shape changed: this helper needs a look).
 */
export async function serveDropBuild(
  context: BrowserContext,
  webDir: string,
  productId: string,
  drop: Drop,
): Promise<void> {
  const product = shopCatalog.products.find((p) => p.id === productId);
  if (!product) throw new Error(`no product ${productId}`);
  // The product's entry in the minified catalogue: `{id:"lilac-tiptop"` (any quote).
  const entry = new RegExp(`\\{id:([\`"'])${productId.replace(/[-]/g, '\\-')}\\1`, 'g');
  const assets = join(webDir, 'assets');
  const patched = new Map<string, string>();
  for (const name of readdirSync(assets).filter((n) => n.endsWith('.js'))) {
    const js = readFileSync(join(assets, name), 'utf8');
    const out = js.replace(entry, (m) => `{drop:${JSON.stringify(drop)},${m.slice(1)}`);
    if (out !== js) patched.set(`/assets/${name}`, out);
  }
  if (patched.size === 0) throw new Error(`no chunk of ${webDir} holds the catalogue entry of ${productId}`);
  await context.route(
    (url) => patched.has(url.pathname),
    (route) =>
      route.fulfill({
        status: 200,
        contentType: 'text/javascript; charset=utf-8',
        body: patched.get(new URL(route.request().url()).pathname)!,
      }),
  );
  const shell = readFileSync(join(webDir, 'index.html'), 'utf8');
  const routes = new Set(product.routes);
  await context.route(
    (url) => routes.has(url.pathname),
    (route) =>
      route.request().resourceType() === 'document'
        ? route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: shell })
        : route.continue(),
  );
}
