/**
 * What the browser suites need before they start, prepared by the suites themselves (the e2e project's
 * globalSetup, and the two integration files that need one of them), so `npx vitest run <file>` and `npm test`
 * behave the same and a unit file never waits for either:
 *
 * - `ensureChromium()`: CHROME_PATH, else /usr/bin/chromium (or chromium-browser). When missing and apt-get is
 *   usable as root, installs Debian's `chromium`; otherwise throws saying how to install it. Sets CHROME_PATH.
 * - `ensureWebBuild()`: the built web app and its prerendered pages (dist/web), as `npm run build` makes them.
 *   Rebuilt only when its inputs changed: a stamp in dist/ holds the hash of every input file (src/web, src/core,
 *   catalog, vendor, the build scripts and configs, the lockfile) and of the VITE_* environment. Set
 *   `TEST_REBUILD=1` to force it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { WEB_BUILD_STAMP, webBuildInputsHash } from '../../scripts/web-build-stamp';

export { webBuildInputsHash };

const ROOT = resolve(import.meta.dirname, '../..');
const STAMP = WEB_BUILD_STAMP;

export function ensureChromium(): string {
  const candidates = [process.env.CHROME_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(
    (p): p is string => Boolean(p),
  );
  let found = candidates.find((p) => existsSync(p));
  if (!found) {
    const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
    const hasApt = spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0;
    if (isRoot && hasApt) {
      console.log('Chromium not found: installing Debian package `chromium` with apt-get…');
      execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
      execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], {
        stdio: 'inherit',
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      });
      if (existsSync('/usr/bin/chromium')) found = '/usr/bin/chromium';
    }
  }
  if (!found) {
    throw new Error(
      'Chromium is needed for the browser tests and was not found.\n' +
        'Install it (Debian/Ubuntu: `sudo apt-get install chromium`) or set CHROME_PATH to a Chromium/Chrome binary.',
    );
  }
  process.env.CHROME_PATH = found;
  return found;
}

function run(cmd: string, args: string[]): void {
  // Vitest sets NODE_ENV=test; a build that inherited it would be React's development build (StrictMode runs every
  // effect twice: the wallet connects twice), not the production build that `npm run build` and users get.
  const env = { ...process.env, NODE_ENV: 'production' };
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit', env });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status ?? r.signal})`);
}

/** Builds the web app and prerenders its pages unless dist/ already holds the build of these exact inputs. */
export function ensureWebBuild(): 'built' | 'up to date' {
  const hash = webBuildInputsHash();
  const current =
    process.env.TEST_REBUILD !== '1' &&
    existsSync(STAMP) &&
    readFileSync(STAMP, 'utf8').trim() === hash &&
    existsSync(join(ROOT, 'dist/web/index.html')) &&
    existsSync(join(ROOT, 'dist/web/_prerender/manifest.json'));
  if (current) return 'up to date';
  rmSync(STAMP, { force: true }); // a failed or interrupted build leaves no stamp that matches
  run('npx', ['vite', 'build', '--logLevel', 'warn']);
  run('node', ['--import', 'tsx', 'scripts/prerender.ts']);
  mkdirSync(join(ROOT, 'dist'), { recursive: true });
  writeFileSync(STAMP, `${hash}\n`);
  return 'built';
}
