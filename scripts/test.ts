/**
 * `npm test`: every suite in one vitest run (vitest.config.ts): the unit and integration files side by side, then
 * the browser files, then the timing-sensitive files (`alone`) with nothing beside them.
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

interface Counts {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
}

// One vitest run: everything (the projects' groups in order, vitest.config.ts), or exactly what the arguments name
// (a file, a project, a filter).
const resultsFile = `var/test-results-${args.length > 0 ? 'args' : 'all'}.json`;
rmSync(resultsFile, { force: true });
const run = spawnSync(
  'npx',
  ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${resultsFile}`, ...args],
  { stdio: 'inherit', env },
);

// One plain closing line for CI: 'tests: N passed, N failed, N skipped'.
try {
  const c = JSON.parse(readFileSync(resultsFile, 'utf8')) as Counts;
  console.log(
    `tests: ${c.numPassedTests} passed, ${c.numFailedTests} failed, ${c.numPendingTests + c.numTodoTests} skipped`,
  );
} catch {
  console.log('tests: no results file written (the run failed before reporting)');
}
process.exit(run.status ?? 1);
