/**
 * The e2e project's globalSetup (vitest runs it once, before the first e2e file, and only when e2e files are
 * selected): Chromium found (CHROME_PATH set for the test workers) and the web app built and prerendered, unless
 * dist/ already holds the build of the current sources (test/support/prepare.ts).
 */
import { ensureChromium, ensureWebBuild } from '../support/prepare';

export function setup(): void {
  const chrome = ensureChromium();
  const t0 = Date.now();
  const build = ensureWebBuild();
  console.log(
    `e2e: Chromium ${chrome}; web build ${build}${build === 'built' ? ` in ${((Date.now() - t0) / 1000).toFixed(0)} s` : ''}`,
  );
}
