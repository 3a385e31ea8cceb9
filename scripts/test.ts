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
mkdirSync('var', { recursive: true });

/**
 * Suites that measure time-to-paid under a simulated attack on the local network (seen within N seconds) run
 * on their own, after the rest: beside the other files on a 2-core machine they would measure the machine's
 * load, not the watcher.
 */
const ALONE = ['test/integration/payments-attack.test.ts'];

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
