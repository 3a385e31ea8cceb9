/**
 * `npm run build`'s second step (after the client `vite build`): renders every page path of the route table
 * (`allPagePaths`) and the 404 page to static HTML with react-dom/static, in the built shell (dist/web/index.html),
 * each with its own <title>. Output: dist/web/_prerender/*.html and manifest.json (normalised path → file), read
 * by the server (src/server/app.ts), which serves them for page paths (200) and unknown paths (404).
 * The render entry is src/web/prerender.tsx, built with Vite's SSR build into dist/ssr.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'vite';
import { catalog } from '../catalog';
import { allPagePaths, normalisePath, resolveScreen } from '../src/core/routes';
import type { Screen } from '../src/core/routes';
import type { Prerendered } from '../src/web/prerender';
import { compressDir } from './compress';

export interface PrerenderManifest {
  /** Normalised page path → file name in dist/web/_prerender. */
  pages: Record<string, string>;
  notFound: string;
}

const rootDir = resolve(import.meta.dirname, '..');
const webDir = resolve(rootDir, 'dist/web');
const ssrDir = resolve(rootDir, 'dist/ssr');
const outDir = resolve(webDir, '_prerender');
const ROOT_EMPTY = '<div id="root"></div>';
const TITLE = /<title>[^<]*<\/title>/;

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

await build({
  configFile: resolve(rootDir, 'vite.config.ts'),
  logLevel: 'warn',
  build: {
    ssr: resolve(rootDir, 'src/web/prerender.tsx'),
    outDir: ssrDir,
    emptyOutDir: true,
    copyPublicDir: false,
    rollupOptions: { output: { entryFileNames: 'prerender.js' } },
  },
});
const { renderPage } = (await import(pathToFileURL(resolve(ssrDir, 'prerender.js')).href)) as {
  renderPage(path: string): Promise<Prerendered>;
};

const shell = readFileSync(resolve(webDir, 'index.html'), 'utf8');
if (!shell.includes(ROOT_EMPTY) || !TITLE.test(shell))
  throw new Error(`dist/web/index.html has no empty ${ROOT_EMPTY} or no <title>: cannot prerender`);

/** Vite's build manifest (build.manifest): source module → its chunk file and the chunks it imports statically. */
type ViteManifest = Record<string, { file: string; imports?: string[]; isEntry?: boolean }>;
const manifestFile = resolve(webDir, '.vite/manifest.json');
const viteManifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as ViteManifest;

/** The lazy modules a screen's first render needs (AppRoutes' preloadScreen), by source path under src/web. */
function screenModules(screen: Screen): string[] {
  const pages: Partial<Record<Screen['kind'], string>> = {
    home: 'pages/HomePage.tsx',
    guide: 'pages/GuidePage.tsx',
    about: 'pages/AboutPage.tsx',
    giveaways: 'pages/GiveawaysPage.tsx',
    vendors: 'pages/VendorsPage.tsx',
    vendor: 'pages/VendorPage.tsx',
    product: 'pages/ProductPage.tsx',
    seller: 'seller/SellerPage.tsx',
  };
  const page = pages[screen.kind];
  if (!page) return [];
  if (screen.kind !== 'product') return [page];
  return [page, screen.product.payment === 'qr' ? 'checkout/qr/QrPay.tsx' : 'pages/WalletSlot.tsx'];
}

/**
 * `<link rel=modulepreload>` for the chunks of the page's screen and everything they import statically, minus what
 * the shell already loads (the entry and its imports): the browser fetches them beside the entry instead of one
 * after another once the entry has run (design.md, Slow 4G).
 */
function modulePreloads(screen: Screen): string {
  const files = new Set<string>();
  const walk = (key: string, into: Set<string>) => {
    const chunk = viteManifest[key];
    if (!chunk) throw new Error(`${key} is not in the build manifest`);
    if (into.has(chunk.file)) return;
    into.add(chunk.file);
    for (const k of chunk.imports ?? []) walk(k, into);
  };
  const entry = new Set<string>();
  for (const [key, chunk] of Object.entries(viteManifest)) if (chunk.isEntry) walk(key, entry);
  for (const m of screenModules(screen)) walk(m, files);
  return [...files]
    .filter((f) => !entry.has(f))
    .map((f) => `<link rel="modulepreload" crossorigin href="/${f}">`)
    .join('');
}

function page({ html, title }: Prerendered, preloads = ''): string {
  if (/<script/i.test(html))
    throw new Error('prerendered HTML must hold no script (the CSP forbids inline ones)');
  // React emits the resource hints it hoists (preloads of fetchpriority=high images) first: they go in <head>.
  const hints = /^(?:<link [^>]*\/>)*/.exec(html)?.[0] ?? '';
  return shell
    .replace(TITLE, () => `<title>${escapeHtml(title)}</title>`)
    .replace('</head>', () => `${hints}${preloads}</head>`)
    .replace(ROOT_EMPTY, () => `<div id="root">${html.slice(hints.length)}</div>`);
}

rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
const manifest: PrerenderManifest = { pages: {}, notFound: '404.html' };
for (const path of new Set(allPagePaths(catalog).map(normalisePath))) {
  if (resolveScreen(catalog, path).kind === 'not-found') throw new Error(`page path ${path} resolves to 404`);
  const file = path === '/' ? 'index.html' : `${path.slice(1).replace(/[^a-z0-9-]/g, '_')}.html`;
  if (Object.values(manifest.pages).includes(file)) throw new Error(`two page paths map to ${file}`);
  writeFileSync(
    resolve(outDir, file),
    page(await renderPage(path), modulePreloads(resolveScreen(catalog, path))),
  );
  manifest.pages[path] = file;
}
// The 404 page: any unknown path renders the same screen (the catch-all route).
writeFileSync(resolve(outDir, manifest.notFound), page(await renderPage('/__not-found__')));
writeFileSync(resolve(outDir, 'manifest.json'), JSON.stringify(manifest, null, 2));
rmSync(ssrDir, { recursive: true, force: true });
rmSync(resolve(webDir, '.vite'), { recursive: true, force: true });
console.log(
  `prerendered ${Object.keys(manifest.pages).length} pages and the 404 page into dist/web/_prerender`,
);
const packed = compressDir(resolve(outDir, '..'));
console.log(`precompressed ${packed.files} files: ${packed.bytes} → ${packed.brotli} bytes (brotli)`);
