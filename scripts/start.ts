/**
 * `npm start`: the whole demo from a fresh clone. Runs `npm run build` only when the build is missing or older
 * than its sources (dist/.build-complete, written at the end of a build, against the newest source file), then
 * runs the built server (dist/server/main.js) in this process, as `npm run start:prod` does.
 *
 * Signals: npm passes SIGTERM and SIGINT on to this process. While the build runs it is its own process group,
 * stopped as a whole on the signal (no Vite or prerender left running), and this process exits; once the server
 * runs here, its own shutdown (main.ts: drain, close, exit) handles them. No child outlives `npm start`.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const rootDir = resolve(import.meta.dirname, '..');
const BUILD_COMPLETE = join(rootDir, 'dist/.build-complete');
const OUTPUTS = ['dist/server/main.js', 'dist/web/index.html', 'dist/web/_prerender/manifest.json'];
/** What the build reads: our sources, the catalogue, the vendored package, the build scripts and configs. */
const INPUT_DIRS = ['src', 'catalog', 'vendor'];
const INPUT_FILES = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'vite.config.ts',
  'scripts/build-server.ts',
  'scripts/web-build-stamp.ts',
  'scripts/prerender.ts',
  'scripts/compress.ts',
];
const NOT_INPUT = /\.test\.tsx?$/;

function newest(path: string): number {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return NOT_INPUT.test(path) ? 0 : st.mtimeMs;
  return readdirSync(path).reduce((m, name) => Math.max(m, newest(join(path, name))), 0);
}

/** Why the build must run, or undefined when dist/ holds the build of the current sources. */
export function staleReason(): string | undefined {
  const missing = OUTPUTS.find((f) => !existsSync(join(rootDir, f)));
  if (missing || !existsSync(BUILD_COMPLETE)) return `no build yet (${missing ?? 'dist/.build-complete'})`;
  const built = statSync(BUILD_COMPLETE).mtimeMs;
  const sources = Math.max(...[...INPUT_DIRS, ...INPUT_FILES].map((p) => newest(join(rootDir, p))));
  return sources > built ? 'sources changed since the last build' : undefined;
}

/** Runs `npm run build` as its own process group; a SIGTERM or SIGINT meanwhile stops the whole group and exits. */
async function build(): Promise<void> {
  const child = spawn('npm', ['run', 'build'], {
    cwd: rootDir,
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'production' },
    detached: true,
  });
  const stop = (signal: NodeJS.Signals) => {
    console.error(`${signal}: stopping the build; the store was not started.`);
    try {
      if (child.pid) process.kill(-child.pid, 'SIGTERM');
    } catch {
      // already gone
    }
    process.exit(1);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  const [code, signal] = (await new Promise((resolve) => child.once('exit', (c, s) => resolve([c, s])))) as [
    number | null,
    NodeJS.Signals | null,
  ];
  process.off('SIGTERM', stop);
  process.off('SIGINT', stop);
  if (code !== 0) {
    console.error(`npm run build failed (exit ${code ?? signal}); the store was not started.`);
    process.exit(1);
  }
}

const reason = staleReason();
if (reason) {
  console.log(`build: ${reason}; running npm run build…`);
  await build();
} else {
  console.log('build: up to date (dist/)');
}
await import(pathToFileURL(join(rootDir, 'dist/server/main.js')).href);
