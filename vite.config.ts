import { resolve } from 'node:path';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
// Validates the catalogue when the build starts: a broken entry stops the build with file, entry and field named.
import { catalog } from './catalog/index.ts';

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
  ],
  build: {
    outDir: resolve(import.meta.dirname, 'dist/web'),
    emptyOutDir: true,
    sourcemap: false,
  },
  server: {
    proxy: { '/api': 'http://127.0.0.1:3000', '/dev': 'http://127.0.0.1:3000' },
  },
});
