/**
 * One Solana library on the server too (issue 30 item 4; docs/decisions/solana-libraries.md): what the production
 * server loads — everything src/server/main.ts and migrate-main.ts reach through static imports, as esbuild
 * bundles them for dist/server (scripts/build-server.ts) — imports no @solana/web3.js, @solana/spl-token or
 * @solana/pay. The demo chain (src/localnet) is reached only by main.ts's dynamic import in demo mode, its own
 * chunk; it runs in the production image too, so it and `npm start` (scripts/start.ts) load none of them either.
 * esbuild's import graph, not a text search, so a re-export or a type-only import is judged as the bundle does
 * (type-only imports vanish).
 */
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { SERVER_BUNDLE, SERVER_ENTRIES } from '../../scripts/build-server';

const FORBIDDEN = ['@solana/web3.js', '@solana/spl-token', '@solana/pay'];
const ENTRIES = Object.values(SERVER_ENTRIES);
/** What else a production install runs: the demo chain (in demo mode, and `npm run localnet`) and `npm start`. */
const DEMO_ENTRIES = ['src/localnet/index.ts', 'src/localnet/main.ts', 'scripts/start.ts'];

/** The server's import graph with the options of scripts/build-server.ts (nothing written). */
async function graph(entryPoints = ENTRIES): Promise<Metafile> {
  const result = await build({
    ...SERVER_BUNDLE,
    entryPoints,
    outdir: 'var/server-libraries',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  return result.metafile;
}

/** Every input reached from the entries through static imports, and the packages they import. */
function staticReach(
  meta: Metafile,
  entries = ENTRIES,
): { files: Set<string>; packages: Map<string, string> } {
  const files = new Set<string>();
  const packages = new Map<string, string>(); // package → first importer
  const queue = [...entries];
  while (queue.length) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const imp of meta.inputs[file]?.imports ?? []) {
      if (imp.kind === 'dynamic-import') continue;
      if (imp.external) {
        if (!packages.has(imp.path)) packages.set(imp.path, file);
      } else queue.push(imp.path);
    }
  }
  return { files, packages };
}

describe('the production server bundle', () => {
  it('loads no web3.js, spl-token or @solana/pay; the demo chain only by dynamic import', async () => {
    const meta = await graph();
    const { files, packages } = staticReach(meta);
    // The graph is the real one: the server's RPC client and the payment are there, on kit.
    expect(files.has('src/server/payments/connection.ts')).toBe(true);
    expect(packages.has('@solana/kit')).toBe(true);
    const forbidden = [...packages].filter(([p]) => FORBIDDEN.some((f) => p === f || p.startsWith(`${f}/`)));
    expect(forbidden, 'package ← first file importing it').toEqual([]);
    expect([...files].filter((f) => f.startsWith('src/localnet/'))).toEqual([]);
    // …and the localnet is still there for demo mode, behind main.ts's dynamic import.
    expect(
      meta.inputs['src/server/main.ts']?.imports.some(
        (i) => i.kind === 'dynamic-import' && i.path === 'src/localnet/index.ts',
      ),
    ).toBe(true);
  });

  it('nor does the demo chain the production image runs, nor npm start', async () => {
    const meta = await graph(DEMO_ENTRIES);
    const { files, packages } = staticReach(meta, DEMO_ENTRIES);
    // The graph is the real one: the chain, its wire decoding and its seeding, on kit and LiteSVM.
    for (const f of [
      'src/localnet/chain.ts',
      'src/localnet/wire.ts',
      'src/localnet/seed.ts',
      'src/localnet/faucet.ts',
    ])
      expect(files.has(f), f).toBe(true);
    expect(packages.has('@solana/kit')).toBe(true);
    expect(packages.has('litesvm/dist/internal.js')).toBe(true);
    const forbidden = [...packages].filter(([p]) => FORBIDDEN.some((f) => p === f || p.startsWith(`${f}/`)));
    expect(forbidden, 'package ← first file importing it').toEqual([]);
  });
});
