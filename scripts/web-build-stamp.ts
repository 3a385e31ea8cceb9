/**
 * The web build's stamp, `dist/.web-build-stamp`: the hash of every input of the web build (src/web, src/core,
 * catalog, vendor, the build scripts and configs, the lockfile) and of the VITE_* environment. `npm run build`
 * writes it as its last step (scripts/build-server.ts) and the browser tests' setup (test/support/prepare.ts
 * `ensureWebBuild`) writes it after its own build; either skips rebuilding while it matches.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
export const WEB_BUILD_STAMP = join(ROOT, 'dist/.web-build-stamp');
const INPUT_DIRS = ['src/web', 'src/core', 'catalog', 'vendor'];
const INPUT_FILES = [
  'vite.config.ts',
  'tsconfig.json',
  'package-lock.json',
  'scripts/prerender.ts',
  'scripts/compress.ts',
];
/** Files under the input directories that never reach the build. */
const NOT_INPUT = /\.test\.tsx?$/;

function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

/** The hash of everything the web build reads. */
export function webBuildInputsHash(): string {
  const h = createHash('sha256');
  const all = [
    ...INPUT_DIRS.flatMap((d) => files(join(ROOT, d))).filter((f) => !NOT_INPUT.test(f)),
    ...INPUT_FILES.map((f) => join(ROOT, f)).filter((f) => existsSync(f)),
  ].sort();
  for (const f of all) {
    h.update(relative(ROOT, f)).update('\0').update(readFileSync(f)).update('\0');
  }
  const viteEnv = Object.entries(process.env)
    .filter(([k]) => k.startsWith('VITE_'))
    .sort(([a], [b]) => a.localeCompare(b));
  h.update(JSON.stringify(viteEnv));
  return h.digest('hex');
}
