/**
 * One Solana library in the browser (issue 30; docs/decisions/solana-libraries.md): the built web app (dist/web,
 * made by the e2e globalSetup from the current sources) carries nothing of @solana/web3.js, @solana/spl-token,
 * the @solana/wallet-adapter packages or the `buffer` polyfill (nor zod, which belongs to the server). Each is recognised by a text its own code holds
 * (checked against the installed package where it is still installed, so a marker cannot go stale silently);
 * the wallet chunks do carry @solana/kit and the Wallet Standard.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const assets = resolve(root, 'dist/web/assets');
const scripts = readdirSync(assets)
  .filter((f) => f.endsWith('.js'))
  .map((f) => ({ file: f, text: readFileSync(resolve(assets, f), 'utf8') }));

/** Package → texts its browser code holds (error classes and messages that survive minification). */
const MARKERS: { pkg: string; source?: string; texts: string[] }[] = [
  {
    pkg: '@solana/web3.js',
    source: 'node_modules/@solana/web3.js/lib/index.browser.esm.js',
    texts: ['Invalid public key input', 'failed to get recent blockhash'],
  },
  {
    pkg: '@solana/spl-token',
    source: 'node_modules/@solana/spl-token/lib/esm/errors.js',
    texts: ['TokenInvalidAccountOwnerError', 'TokenOwnerOffCurveError'],
  },
  {
    pkg: 'buffer',
    source: 'node_modules/buffer/index.js',
    texts: ['Attempt to access memory outside buffer bounds'],
  },
  // Not Solana, but weight that rode along before: zod (the catalogue's and the API's schemas, server-side) came in
  // once with the hold-proof message and once with the drop rules, ~12-14 KB gzip each time (performance.md).
  {
    pkg: 'zod',
    source: 'node_modules/zod/v3/ZodError.js',
    texts: ['ZodError'],
  },
  // No longer installed: their error classes and the modal's class names.
  {
    pkg: '@solana/wallet-adapter-*',
    texts: ['WalletNotReadyError', 'WalletNotSelectedError', 'wallet-adapter-modal', 'wallet-adapter-button'],
  },
];

describe('dist/web: one Solana library', () => {
  it('has scripts to look at', () => {
    expect(scripts.length).toBeGreaterThan(5);
  });

  for (const { pkg, source, texts } of MARKERS)
    it(`carries nothing of ${pkg}`, () => {
      if (source) {
        const own = readFileSync(resolve(root, source), 'utf8');
        for (const t of texts) expect(own, `${pkg} itself holds '${t}'`).toContain(t);
      }
      const hits = scripts.flatMap(({ file, text }) =>
        texts.filter((t) => text.includes(t)).map((t) => `${file}: ${t}`),
      );
      expect(hits).toEqual([]);
    });

  it('the wallet checkout carries @solana/kit and the Wallet Standard', () => {
    const all = scripts.map((s) => s.text).join('\n');
    // The Wallet Standard's app-ready event and kit's transaction encoder at work.
    expect(all).toContain('wallet-standard:app-ready');
    expect(all).toContain('ComputeBudget111111111111111111111111111111');
  });
});
