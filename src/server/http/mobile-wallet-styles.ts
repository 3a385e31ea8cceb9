/**
 * The Mobile Wallet Adapter's inline styles, for the CSP (security.ts). On Android the wallet checkout loads
 * `@solana-mobile/wallet-standard-mobile`, which draws its own screens (Chrome's Local Network Access prompt, "Ready
 * to connect!", the spinner while the wallet app answers, its errors) into a closed shadow root: a `<style>` element
 * whose text is fixed in the package (`css + this.contentStyles`), and a few `style="…"` attributes in its HTML
 * (the full-screen tap-to-close layer, the SVG masks). `style-src 'self'` blocks both. Our pages are prerendered
 * static files, so a per-response nonce cannot reach a style the library creates (it sets no nonce either); instead
 * the CSP carries the sha256 of each exact text, read from the package in node_modules when the server starts, so a
 * version bump changes the hashes with the code. Style attributes match hashes only with 'unsafe-hashes' (CSP 3,
 * which Chromium follows); the hashed values are the library's own (`position: absolute; …`, `mask-type:alpha`).
 *
 * The reading is strict: if the package's shape is not the one understood here (a style text built at run time, a
 * `setAttribute('style')`, a `<style>` in its HTML), it throws, and the server does not start: the e2e test
 * (wallet-buyer.test.ts, Android) fails rather than the screens going unstyled again.
 *
 * `withoutWebFonts`: the library also links Google Fonts (Inter Tight) from its screens. The shop's pages load
 * nothing from third parties (no buyer's address sent to Google at checkout), so the web build drops those links
 * (vite.config.ts) and the screens use their fallback fonts ("PT Sans", Calibri, sans-serif).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const PACKAGE = '@solana-mobile/wallet-standard-mobile';
/** The module a browser build bundles (the package's `browser` + `import` export). */
export const MOBILE_WALLET_BROWSER_MODULE =
  /[\\/]@solana-mobile[\\/]wallet-standard-mobile[\\/]lib[\\/]esm[\\/]index\.browser\.js$/;

function fail(reason: string): never {
  throw new Error(
    `${PACKAGE}: ${reason}. Its inline styles could not be read for the CSP (src/server/http/mobile-wallet-styles.ts, docs/decisions/solana-libraries.md).`,
  );
}

/** The package's browser module text, from node_modules. */
export function mobileWalletBrowserSource(): string {
  // The `node` + `require` export is lib/cjs/index.js; the browser build's module sits beside it in lib/esm.
  const main = createRequire(import.meta.url).resolve(PACKAGE);
  return readFileSync(join(dirname(main), '..', 'esm', 'index.browser.js'), 'utf8');
}

export interface InlineStyles {
  /** The exact texts of the `<style>` elements the library creates. */
  elements: string[];
  /** The exact values of the `style="…"` attributes in the HTML it inserts. */
  attributes: string[];
}

/** The inline style texts of the package's browser module (throws when its shape is not understood). */
export function inlineStylesOf(source: string): InlineStyles {
  if (/setAttribute\(\s*["'`]style["'`]|\.cssText\s*=|insertRule\(|adoptedStyleSheets/.test(source))
    fail('it sets styles in a way not read here (setAttribute, cssText, insertRule or adoptedStyleSheets)');
  if (/<style[\s>]/i.test(source)) fail('its HTML has a <style> element');
  if (/\sstyle='/.test(source)) fail('its HTML has a single-quoted style attribute');

  // Every constant template literal (its HTML and CSS are such constants): name -> text.
  const constants = new Map<string, string>();
  for (const m of source.matchAll(/(?:const|let|var)\s+([\w$]+)\s*=\s*`([^`]*)`/g)) {
    const [, name, text] = m as unknown as [string, string, string];
    constants.set(name, text);
  }
  const literal = (name: string): string => {
    const text = constants.get(name);
    if (text === undefined) fail(`the style text ${name} is not a constant template literal`);
    if (text.includes('${') || text.includes('\\')) fail(`the style text ${name} is built at run time`);
    return text;
  };

  // `contentStyles = NAME;`: each screen's own CSS, appended to the shared modal CSS.
  const contentStyles = [...source.matchAll(/contentStyles\s*=\s*([\w$]+)\s*;/g)].map((m) => literal(m[1]!));
  const mentions = source.match(/contentStyles/g)?.length ?? 0;
  if (mentions !== contentStyles.length + source.split('this.contentStyles').length - 1)
    fail('a screen defines its contentStyles in a way not read here');

  const elements = new Set<string>();
  const created = [
    ...source.matchAll(/(?:const|let|var)\s+([\w$]+)\s*=\s*document\.createElement\(\s*["']style["']\s*\)/g),
  ];
  if (created.length === 0) fail('no <style> element found (the reader needs updating)');
  if (created.length !== (source.match(/createElement\(\s*["']style["']\s*\)/g)?.length ?? 0))
    fail('a <style> element is created in a way not read here');
  for (const c of created) {
    const name = c[1]!;
    const rest = source.slice(c.index + c[0].length);
    const assigned = new RegExp(`\\b${name.replace(/\$/g, '\\$')}\\.textContent\\s*=\\s*([^;]+);`).exec(rest);
    if (!assigned) fail(`the text of the <style> element ${name} is not assigned where expected`);
    let texts = [''];
    for (const term of assigned[1]!.split('+').map((t) => t.trim())) {
      const parts = term === 'this.contentStyles' ? contentStyles : [literal(term)];
      if (parts.length === 0) fail('this.contentStyles is used but no screen defines it');
      texts = texts.flatMap((t) => parts.map((p) => t + p));
    }
    for (const t of texts) elements.add(t);
  }

  const attributes = new Set<string>();
  for (const text of constants.values())
    for (const m of text.matchAll(/\sstyle="([^"]*)"/g)) attributes.add(m[1]!);
  return { elements: [...elements], attributes: [...attributes] };
}

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

let cached: string[] | undefined;
/**
 * The `style-src` sources the Mobile Wallet Adapter's screens need: the hash of each `<style>` text and, with
 * 'unsafe-hashes', of each `style` attribute value. Read once per process.
 */
export function mobileWalletStyleSources(): string[] {
  if (!cached) {
    const { elements, attributes } = inlineStylesOf(mobileWalletBrowserSource());
    cached = [
      ...elements.map(sha256),
      ...(attributes.length > 0 ? ["'unsafe-hashes'", ...attributes.map(sha256)] : []),
    ];
  }
  return cached;
}

/** The line that links Google Fonts into the library's screens, dropped from the web build. */
const FONT_LINKS = /\bhost\.innerHTML\s*=\s*fonts\s*;/g;
/** The package's browser module without its Google Fonts links (throws when they are no longer where expected). */
export function withoutWebFonts(code: string): string {
  const found = code.match(FONT_LINKS)?.length ?? 0;
  const linked = (code.match(/fonts\.googleapis\.com/g)?.length ?? 0) > 0;
  if (found !== 1 && linked) fail('its Google Fonts links are no longer inserted where expected');
  return code.replace(FONT_LINKS, '');
}
