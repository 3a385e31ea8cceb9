/**
 * JavaScript a page loads before any user input, gzip-compressed, per page type:
 * `npm run bench:bundle` (builds first). Loads each page in headless Chromium against the real server, waits
 * for the network to go idle, and sums the gzip size of every script response ("first render", the figure the
 * budget applies to). Then it gives the page its first input (pointer over the Buy Now area when there is one,
 * then a Tab key), waits for the network again and reports the total "after first input" (the wallet checkout
 * chunk loads there), and the wallet checkout's own size (the difference on the wallet product page). Targets
 * (design.md; issue 30): home, about, giveaways, guide, vendors ≤ 80 KB and no Solana/wallet/QR code; product
 * pages ≤ 95 KB; the wallet checkout ≤ 30 KB; the wallet product page after first input ≤ 125 KB.
 */
import { gzipSync } from 'node:zlib';
import { launchBrowser, startTestServer } from '../test/support/browser';

const pages: { name: string; path: string; budgetKb: number; light: boolean }[] = [
  { name: 'home', path: '/', budgetKb: 80, light: true },
  { name: 'guide', path: '/referrals', budgetKb: 80, light: true },
  { name: 'about', path: '/about', budgetKb: 80, light: true },
  { name: 'giveaways', path: '/giveaways', budgetKb: 80, light: true },
  { name: 'vendors list', path: '/vendors', budgetKb: 80, light: true },
  { name: 'glass catalogue', path: '/vendors/coopersglass', budgetKb: 80, light: true },
  { name: 'wallet product', path: '/vendors/coopersglass/product1', budgetKb: 95, light: false },
  { name: 'QR product', path: '/strawberry-fritter', budgetKb: 95, light: false },
];

// Markers of code that must stay out of the light pages: the old libraries, @solana/kit's transaction code, the
// Wallet Standard, QR drawing.
const heavy =
  /@solana\/web3|wallet-adapter|TransactionInstruction|qrcode|QRCode|PhantomWalletAdapter|ComputeBudget111111111111111111111111111111|wallet-standard:app-ready/;

const server = await startTestServer();
const browser = await launchBrowser();
let failures = 0;
let walletChunk = { kb: 0, files: 0 };
console.log('JS before user input (gzip), per page:');
for (const p of pages) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const scripts = new Map<string, Buffer>();
  page.on('response', (res) => {
    if (res.request().resourceType() !== 'script') return;
    void res
      .body()
      .then((b) => scripts.set(res.url(), b))
      .catch(() => undefined);
  });
  await page.goto(server.url + p.path, { waitUntil: 'networkidle' });
  await page.waitForTimeout(300);
  const measure = () => {
    let gz = 0;
    let raw = 0;
    let heavyHit = '';
    for (const [url, body] of scripts) {
      raw += body.length;
      gz += gzipSync(body, { level: 9 }).length;
      if (p.light && heavy.test(body.toString('utf8'))) heavyHit = url.split('/').pop() ?? url;
    }
    return { kb: gz / 1024, rawKb: raw / 1024, files: scripts.size, heavyHit };
  };
  const first = measure();
  const buy = page.locator('button.buy-now').first();
  if ((await buy.count()) > 0) await buy.hover({ force: true });
  await page.keyboard.press('Tab');
  await page.waitForLoadState('networkidle');
  await page.waitForTimeout(300);
  const after = measure();
  const ok = first.kb <= p.budgetKb && !first.heavyHit;
  if (p.name === 'wallet product')
    walletChunk = { kb: after.kb - first.kb, files: after.files - first.files };
  if (!ok) failures++;
  console.log(
    `  ${p.name.padEnd(16)} ${first.kb.toFixed(1).padStart(6)} KB gzip first render (${first.rawKb.toFixed(0)} KB raw, ${first.files} files)` +
      `  budget ${p.budgetKb} KB ${ok ? 'ok' : 'OVER'}${first.heavyHit ? `  heavy code in ${first.heavyHit}` : ''}` +
      `  | after first input ${after.kb.toFixed(1).padStart(6)} KB (${after.files} files)`,
  );
  await context.close();
}
console.log(
  `wallet checkout (what the wallet product page loads on first input): ${walletChunk.kb.toFixed(1)} KB gzip in ` +
    `${walletChunk.files} files (budget 30 KB ${walletChunk.kb <= 30 ? 'ok' : 'OVER'})`,
);
await browser.close();
await server.close();
console.log(failures ? `${failures} page(s) over budget` : 'all pages within budget');
