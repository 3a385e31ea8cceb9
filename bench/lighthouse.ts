/**
 * Lighthouse (mobile preset: emulated phone, simulated slow 4G and CPU throttling) on the real server and the
 * production build: `npm run bench:lighthouse`. Prints performance, accessibility and best-practices scores per
 * page. Targets (design.md): performance ≥ 98, accessibility 100, best practices 100.
 */
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { CHROMIUM_ARGS, startTestServer } from '../test/support/browser';

const pages: [string, string][] = [
  ['home', '/'],
  ['about', '/about'],
  ['giveaways', '/giveaways'],
  ['guide', '/referrals'],
  ['vendors list', '/vendors'],
  ['glass catalogue', '/vendors/coopersglass'],
  ['wallet product', '/vendors/coopersglass/product1'],
  ['QR product', '/strawberry-fritter'],
];

const server = await startTestServer();
const chrome = await chromeLauncher.launch({
  chromePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
  chromeFlags: ['--headless=new', ...CHROMIUM_ARGS],
});
const score = (v: number | null | undefined) =>
  v === null || v === undefined ? '  n/a' : String(Math.round(v * 100)).padStart(5);
let misses = 0;
try {
  console.log('Lighthouse, mobile preset            perf  a11y  best  (LCP, TBT, CLS)');
  for (const [name, path] of pages) {
    const result = await lighthouse(server.url + path, {
      port: chrome.port,
      output: 'json',
      logLevel: 'error',
      onlyCategories: ['performance', 'accessibility', 'best-practices'],
    });
    const lhr = result?.lhr;
    if (!lhr) throw new Error(`no Lighthouse result for ${path}`);
    const c = lhr.categories;
    const perf = c.performance?.score ?? 0;
    const a11y = c.accessibility?.score ?? 0;
    const best = c['best-practices']?.score ?? 0;
    if (perf < 0.98 || a11y < 1 || best < 1) misses++;
    const a = lhr.audits;
    console.log(
      `  ${name.padEnd(18)} ${path.padEnd(32).slice(0, 32)} ${score(perf)} ${score(a11y)} ${score(best)}  ` +
        `(${a['largest-contentful-paint']?.displayValue ?? '?'}, ${a['total-blocking-time']?.displayValue ?? '?'}, ${a['cumulative-layout-shift']?.displayValue ?? '?'})`,
    );
    for (const [id, audit] of Object.entries(a)) {
      const group =
        lhr.categories.accessibility?.auditRefs.some((r) => r.id === id) ||
        lhr.categories['best-practices']?.auditRefs.some((r) => r.id === id);
      if (group && audit.score !== null && audit.score < 1 && audit.scoreDisplayMode === 'binary')
        console.log(`      ✗ ${id}: ${audit.title}`);
    }
  }
} finally {
  chrome.kill();
  await server.close();
}
console.log(misses ? `${misses} page(s) below target` : 'all pages meet the targets');
