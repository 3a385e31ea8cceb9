/**
 * `npm run build`'s last step: the server compiled to plain JavaScript for `npm run start:prod`, so production runs
 * `node dist/server/main.js` without a TypeScript loader and without devDependencies.
 *
 * esbuild (the one Vite and tsx already ship; pinned by the lockfile) bundles our own sources (src/server,
 * src/core, src/localnet, catalog) into ESM under dist/server/ and leaves every package external: they are
 * resolved from node_modules at run time, so `npm prune --omit=dev` (or `npm ci --omit=dev`) must leave all of
 * them (test/integration/prod-install.test.ts checks it). The dynamically imported localnet (demo mode only)
 * becomes its own chunk. Entry points: main.js (the store) and migrate.js
 * (`npm run migrate`, the release step).
 * Ends by writing dist/.build-complete, which `npm start` compares with the sources' times (scripts/start.ts).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { build, type BuildOptions } from 'esbuild';
import { WEB_BUILD_STAMP, webBuildInputsHash } from './web-build-stamp';

const rootDir = resolve(import.meta.dirname, '..');

export const BUILD_COMPLETE = resolve(rootDir, 'dist/.build-complete');

/** The server's entry points (dist/server/main.js and migrate.js). */
export const SERVER_ENTRIES = { main: 'src/server/main.ts', migrate: 'src/server/migrate-main.ts' };

/** How the server is bundled: our sources in ESM chunks, every package external (test/unit/server-libraries.test.ts
 * walks the same graph). */
export const SERVER_BUNDLE: BuildOptions = {
  absWorkingDir: rootDir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  packages: 'external',
};

/** Builds into dist/server (or `outDir`: the production-install test builds into its own folder). */
export async function buildServer(outDir = resolve(rootDir, 'dist/server')): Promise<void> {
  rmSync(outDir, { recursive: true, force: true });
  const t0 = Date.now();
  await build({
    ...SERVER_BUNDLE,
    entryPoints: SERVER_ENTRIES,
    outdir: outDir,
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  console.log(`server: ${outDir} built in ${Date.now() - t0} ms`);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.dirname, 'build-server.ts')) {
  await buildServer();
  mkdirSync(resolve(rootDir, 'dist'), { recursive: true });
  writeFileSync(BUILD_COMPLETE, `${new Date().toISOString()}\n`);
  // The web build of `npm run build` (its first steps) is the one the browser tests build: stamp it, so their
  // setup (test/support/prepare.ts) does not build it again.
  writeFileSync(WEB_BUILD_STAMP, `${webBuildInputsHash()}\n`);
}
