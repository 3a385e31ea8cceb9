import { defineConfig } from 'vitest/config';

// Three suites, one runner: `unit` (pure domain: colocated src/**/*.test.ts and test/unit), `integration`
// (server against real SQLite/PostgreSQL/SMTP/localnet), `e2e` (headless Chromium against the built app and a
// real server).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: [
            'test/unit/**/*.test.ts',
            'src/**/*.test.ts',
            'src/**/*.test.tsx',
            'catalog/**/*.test.ts',
          ],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
          // Chromium and the built, prerendered web app (only when e2e files run; skipped when up to date).
          globalSetup: ['test/e2e/global-setup.ts'],
        },
      },
    ],
  },
});
