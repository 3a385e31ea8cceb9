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
  return dropsCatalog({ [productId]: drop });
}

/** The shop's catalogue with each product of `drops` a drop (a vendor's batch: the same `batch` in each). */
export function dropsCatalog(drops: Record<string, Drop>): Catalog {
  for (const id of Object.keys(drops))
    if (!shopCatalog.products.some((p) => p.id === id)) throw new Error(`no product ${id}`);
  return {
    vendors: shopCatalog.vendors,
    products: shopCatalog.products.map((p) => (drops[p.id] ? { ...p, drop: drops[p.id] } : p)),
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
  await serveDropsBuild(context, webDir, { [productId]: drop });
}

/** `serveDropBuild` for several products at once (a vendor's batch). */
export async function serveDropsBuild(
  context: BrowserContext,
  webDir: string,
  drops: Record<string, Drop>,
): Promise<void> {
  const products = Object.keys(drops).map((id) => {
    const product = shopCatalog.products.find((p) => p.id === id);
    if (!product) throw new Error(`no product ${id}`);
    return product;
  });
  const assets = join(webDir, 'assets');
  const sources = new Map(
    readdirSync(assets)
      .filter((n) => n.endsWith('.js'))
      .map((name) => [`/assets/${name}`, readFileSync(join(assets, name), 'utf8')]),
  );
  const patched = new Map<string, string>();
  for (const product of products) {
    // The product's entry in the minified catalogue: `{id:"lilac-tiptop"` (any quote).
    const entry = new RegExp(`\\{id:([\`"'])${product.id.replace(/[-]/g, '\\-')}\\1`, 'g');
    let found = false;
    for (const [path, js] of sources) {
      const before = patched.get(path) ?? js;
      const out = before.replace(entry, (m) => `{drop:${JSON.stringify(drops[product.id])},${m.slice(1)}`);
      if (out !== before) {
        patched.set(path, out);
        found = true;
      }
    }
    if (!found) throw new Error(`no chunk of ${webDir} holds the catalogue entry of ${product.id}`);
  }
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
  const routes = new Set(products.flatMap((p) => p.routes));
  await context.route(
    (url) => routes.has(url.pathname),
    (route) =>
      route.request().resourceType() === 'document'
        ? route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: shell })
        : route.continue(),
  );
}
