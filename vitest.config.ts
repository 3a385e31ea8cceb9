import { defineConfig } from 'vitest/config';

/**
 * Files that measure time under load (time-to-paid under a simulated attack on the local network): they run in
 * their own project, `alone`, after every other file has finished, beside each other only (each on its own local
 * network and store). Beside the other files on a 2-core machine they would measure the machine's load, not the
 * watcher; beside each other they mostly wait (a 90 s quote's expiry), so they share the cores and the group takes
 * as long as its longest file instead of the sum.
 */
export const ALONE = ['test/integration/payments-attack.test.ts', 'test/integration/payments-lane.test.ts'];

/**
 * The 3-minute flood at 2 transfers a second (a payment every 20 s, each to be seen within 20 s) does not need to be
 * alone: it uses at most 15 % of one core (the three attack files took 27 s of CPU in 185 s), and its payments were
 * seen within 1.0 s beside the other attack files at a machine load of 13-16 and within 1.1 s beside the browser
 * files at 22. It runs beside the browser files (project `attack-flood`, whose name sorts before `e2e`, so it takes
 * its worker first and the browser files keep two), instead of adding 3 minutes to the `alone` group.
 */
export const BESIDE_BROWSERS = ['test/integration/payments-flood.test.ts'];

/**
 * Every other file is independent (each starts its own localnet, server, SQLite file or PostgreSQL schema, SMTP
 * sink and browser on random loopback ports) and most of a file's time is waiting (slots, polls, timers), so
 * files run side by side, slowest first: the unit and integration files three at a time, then the browser files
 * two at a time beside the flood, then the `alone` files all at once. Groups (`sequence.groupOrder`) run one after
 * the other, and the projects of one group share its `maxWorkers`. (Four at a time with the browser files in the
 * first group failed browser and hold-timing tests when the shared machine's load was 18; three and two passed at
 * a load of 11.)
 */
const WORKERS = 3;
const BROWSER_WORKERS = 2;

// Five projects, one runner: `unit` (pure domain: colocated src/**/*.test.ts and test/unit), `integration`
// (server against real SQLite/PostgreSQL/SMTP/localnet), `e2e` (headless Chromium against the built app and a
// real server), `attack-flood` and `alone` (the attack files above).
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
          // A watchdog, not a bound: the property tests take a few seconds when the pool shares the cores.
          testTimeout: 30_000,
          maxWorkers: WORKERS,
          // Pure domain files (no servers, networks or timers left behind, no mocks or globals changed): a worker
          // runs its files one after another in one module graph instead of importing it afresh for each file
          // (the unit project took 16 s of CPU instead of 37 s). Integration files keep their own processes.
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          exclude: [...ALONE, ...BESIDE_BROWSERS],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          maxWorkers: WORKERS,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // The group's: the browser files two at a time beside the flood (`attack-flood`, started first).
          maxWorkers: BROWSER_WORKERS + BESIDE_BROWSERS.length,
          sequence: { groupOrder: 1 },
          // Chromium and the built, prerendered web app (only when e2e files run; skipped when up to date).
          globalSetup: ['test/e2e/global-setup.ts'],
        },
      },
      {
        test: {
          name: 'attack-flood',
          include: BESIDE_BROWSERS,
          testTimeout: 60_000,
          hookTimeout: 60_000,
          maxWorkers: BROWSER_WORKERS + BESIDE_BROWSERS.length,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          name: 'alone',
          include: ALONE,
          testTimeout: 60_000,
          hookTimeout: 60_000,
          maxWorkers: ALONE.length,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
