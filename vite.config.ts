import { resolve } from 'node:path';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
// Validates the catalogue when the build starts: a broken entry stops the build with file, entry and field named.
import { catalog } from './catalog/index.ts';
// The Android wallet's screens link Google Fonts; the shop loads nothing from third parties (mobile-wallet-styles.ts).
import { MOBILE_WALLET_BROWSER_MODULE, withoutWebFonts } from './src/server/http/mobile-wallet-styles.ts';

export default defineConfig({
  root: resolve(import.meta.dirname, 'src/web'),
  publicDir: resolve(import.meta.dirname, 'catalog/public'),
  plugins: [
    react(),
    {
      name: 'claim:catalog',
      buildStart() {
        this.info?.(
          `catalogue: ${catalog.vendors.length} vendors, ${catalog.products.length} products valid`,
        );
      },
    },
    {
      name: 'claim:mobile-wallet-without-web-fonts',
      transform(code, id) {
        return MOBILE_WALLET_BROWSER_MODULE.test(id) ? { code: withoutWebFonts(code), map: null } : null;
      },
    },
  ],
  build: {
    outDir: resolve(import.meta.dirname, 'dist/web'),
    emptyOutDir: true,
    sourcemap: false,
    // dist/web/.vite/manifest.json: scripts/prerender.ts reads it for each page's modulepreload hints, then deletes it.
    manifest: true,
    rollupOptions: {
      output: {
        // The checkouts' small shared modules in one chunk instead of nine (63 B to 2 KB each): over HTTP/1.1 a
        // browser opens 6 connections per host, so each extra chunk on the QR page's path costs a round trip
        // (docs/decisions/performance.md, Slow 4G). Only what QrPay, WalletPay and the order pages all load.
        codeSplitting: {
          includeDependenciesRecursively: false,
          groups: [
            {
              name: 'checkout-shared',
              test: /[\\/]src[\\/](web[\\/]lib[\\/]call|web[\\/]checkout[\\/]shared[\\/](receipt|Receipt|QrImage|TimeLeft)|core[\\/](order-number|explorer|unreadable-payment|order-status|payment-check))\.tsx?$/,
            },
            {
              // The dates' words and the zone's reader: every page that shows a time loads both (product pages,
              // order pages, the console); apart, they were two requests on a phone network, and the QR page's
              // record waited behind the second for a connection (bench:slow4g 2.65 -> 2.93 s when the giveaways
              // page began importing zone-dates itself and it became its own chunk).
              name: 'time',
              test: /[\\/]src[\\/](web[\\/]lib[\\/]time|core[\\/]zone-dates)\.tsx?$/,
            },
          ],
        },
      },
    },
  },
  server: {
    proxy: { '/api': 'http://127.0.0.1:3000', '/dev': 'http://127.0.0.1:3000' },
  },
});
