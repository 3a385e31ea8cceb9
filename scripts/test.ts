/**
 * `npm test`: every suite (unit, integration, e2e) in one vitest run.
 * - Finds Chromium for the browser journeys: CHROME_PATH, else /usr/bin/chromium. When missing and apt-get is
 *   usable as root, installs Debian's `chromium`; otherwise fails saying how to install it.
 * - Builds the web app and prerenders its pages (the e2e suites serve the real build).
 * - PostgreSQL suites run when TEST_DATABASE_URL is set (CI sets it).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';

function findChromium(): string {
  const candidates = [process.env.CHROME_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(
    (p): p is string => Boolean(p),
  );
  const found = candidates.find((p) => existsSync(p));
  if (found) return found;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const hasApt = spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0;
  if (isRoot && hasApt) {
    console.log('Chromium not found: installing Debian package `chromium` with apt-get…');
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
    execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    if (existsSync('/usr/bin/chromium')) return '/usr/bin/chromium';
  }
  console.error(
    'Chromium is needed for the browser tests and was not found.\n' +
      'Install it (Debian/Ubuntu: `sudo apt-get install chromium`) or set CHROME_PATH to a Chromium/Chrome binary.',
  );
  process.exit(1);
}

const chrome = findChromium();
const env = { ...process.env, CHROME_PATH: chrome };
if (!process.env.TEST_DATABASE_URL) {
  console.log('TEST_DATABASE_URL is not set: the PostgreSQL store suite will be skipped (CI sets it).');
}

const build = spawnSync('npx', ['vite', 'build', '--logLevel', 'warn'], { stdio: 'inherit', env });
if (build.status !== 0) process.exit(build.status ?? 1);
const prerender = spawnSync('node', ['--import', 'tsx', 'scripts/prerender.ts'], { stdio: 'inherit', env });
if (prerender.status !== 0) process.exit(prerender.status ?? 1);

const args = process.argv.slice(2);
const resultsFile = 'var/test-results.json';
mkdirSync('var', { recursive: true });
rmSync(resultsFile, { force: true });
const run = spawnSync(
  'npx',
  ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${resultsFile}`, ...args],
  { stdio: 'inherit', env },
);

// One plain closing line for CI: 'tests: N passed, N failed, N skipped'.
try {
  const r = JSON.parse(readFileSync(resultsFile, 'utf8')) as {
    numPassedTests: number;
    numFailedTests: number;
    numPendingTests: number;
    numTodoTests: number;
  };
  console.log(
    `tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped`,
  );
} catch {
  console.log('tests: no results file written (the run failed before reporting)');
}
process.exit(run.status ?? 1);
