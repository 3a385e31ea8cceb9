/**
 * `npm test`: every suite (unit, integration, e2e) in one vitest run, then the attack suite alone.
 * - Prepares nothing itself: the e2e project's globalSetup (test/e2e/global-setup.ts) finds Chromium and builds
 *   and prerenders the web app when e2e files are selected (and the sources changed since the last build), so
 *   `npm test -- <unit file>` runs that file in seconds.
 * - PostgreSQL suites run when TEST_DATABASE_URL is set (CI sets it).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';

const env = process.env;
if (!process.env.TEST_DATABASE_URL) {
  console.log('TEST_DATABASE_URL is not set: the PostgreSQL store suite will be skipped (CI sets it).');
}

const args = process.argv.slice(2);
mkdirSync('var', { recursive: true });

/**
 * Suites that measure time-to-paid under a simulated attack on the local network (seen within N seconds) run
 * on their own, after the rest: beside the other files on a 2-core machine they would measure the machine's
 * load, not the watcher.
 */
const ALONE = ['test/integration/payments-attack.test.ts', 'test/integration/payments-lane.test.ts'];

interface Counts {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
}

function vitest(name: string, extra: string[]): { status: number; counts?: Counts } {
  const resultsFile = `var/test-results-${name}.json`;
  rmSync(resultsFile, { force: true });
  const run = spawnSync(
    'npx',
    ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${resultsFile}`, ...extra],
    { stdio: 'inherit', env },
  );
  try {
    return { status: run.status ?? 1, counts: JSON.parse(readFileSync(resultsFile, 'utf8')) as Counts };
  } catch {
    return { status: run.status ?? 1 };
  }
}

// With arguments (a file, a project, a filter) it is one run of exactly that.
const runs =
  args.length > 0
    ? [vitest('args', args)]
    : [
        vitest(
          'main',
          ALONE.flatMap((f) => ['--exclude', f]),
        ),
        vitest('alone', ['--project', 'integration', ...ALONE]),
      ];

// One plain closing line for CI: 'tests: N passed, N failed, N skipped'.
if (runs.every((r) => r.counts)) {
  const sum = (k: keyof Counts) => runs.reduce((n, r) => n + (r.counts?.[k] ?? 0), 0);
  console.log(
    `tests: ${sum('numPassedTests')} passed, ${sum('numFailedTests')} failed, ${sum('numPendingTests') + sum('numTodoTests')} skipped`,
  );
} else {
  console.log('tests: no results file written (the run failed before reporting)');
}
process.exit(runs.find((r) => r.status !== 0)?.status ?? 0);
