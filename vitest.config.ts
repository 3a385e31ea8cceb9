import { defineConfig } from 'vitest/config';

// NOTE (localnet engineer): a scaffolded vitest.config.ts existed here and was accidentally overwritten
// before it was committed; this is a reconstruction with the three projects package.json's scripts name.
// Owners of the unit and e2e suites: please check the include globs and timeouts below.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'src/**/*.test.ts', 'catalog/**/*.test.ts'],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          testTimeout: 60000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          testTimeout: 120000,
        },
      },
    ],
  },
});
