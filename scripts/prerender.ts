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

function page({ html, title }: Prerendered): string {
  if (/<script/i.test(html))
    throw new Error('prerendered HTML must hold no script (the CSP forbids inline ones)');
  // React emits the resource hints it hoists (preloads of fetchpriority=high images) first: they go in <head>.
  const hints = /^(?:<link [^>]*\/>)*/.exec(html)?.[0] ?? '';
  return shell
    .replace(TITLE, () => `<title>${escapeHtml(title)}</title>`)
    .replace('</head>', () => `${hints}</head>`)
    .replace(ROOT_EMPTY, () => `<div id="root">${html.slice(hints.length)}</div>`);
}

rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
const manifest: PrerenderManifest = { pages: {}, notFound: '404.html' };
for (const path of new Set(allPagePaths(catalog).map(normalisePath))) {
  if (resolveScreen(catalog, path).kind === 'not-found') throw new Error(`page path ${path} resolves to 404`);
  const file = path === '/' ? 'index.html' : `${path.slice(1).replace(/[^a-z0-9-]/g, '_')}.html`;
  if (Object.values(manifest.pages).includes(file)) throw new Error(`two page paths map to ${file}`);
  writeFileSync(resolve(outDir, file), page(await renderPage(path)));
  manifest.pages[path] = file;
}
// The 404 page: any unknown path renders the same screen (the catch-all route).
writeFileSync(resolve(outDir, manifest.notFound), page(await renderPage('/__not-found__')));
writeFileSync(resolve(outDir, 'manifest.json'), JSON.stringify(manifest, null, 2));
rmSync(ssrDir, { recursive: true, force: true });
console.log(
  `prerendered ${Object.keys(manifest.pages).length} pages and the 404 page into dist/web/_prerender`,
);
const packed = compressDir(resolve(outDir, '..'));
console.log(`precompressed ${packed.files} files: ${packed.bytes} → ${packed.brotli} bytes (brotli)`);
