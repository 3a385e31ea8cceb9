/**
 * Production dependencies are what production code imports, no more and no less. "Production code" is every
 * file reachable by imports from what a production install runs: the server (`start:server`), the local
 * network (`localnet`, demo mode), the operator scripts (`stock`, `vendor:setup`) and the browser app (built
 * from src/web/main.tsx). A package imported only by tests, benches or demo/dev scripts belongs in
 * devDependencies (it would otherwise land in every production install); a package production code imports
 * must be a declared dependency (not one that happens to be installed for another package).
 */
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** Production dependencies that no file imports, and why they are there. */
const NOT_IMPORTED: Record<string, (scripts: Record<string, string>) => boolean> = {
  // The TypeScript loader the production scripts run under (`node --import tsx …`).
  tsx: (s) => /--import tsx /.test(s['start:server'] ?? ''),
  // A stand-in that `overrides` gives the Mobile Wallet Adapter protocol for its react-native peer (its browser
  // build, the one bundled, never imports it): vendor/react-native-absent, docs/decisions/solana-libraries.md.
  'react-native': () => true,
};

const PRODUCTION_SCRIPTS = ['start:server', 'localnet', 'stock', 'vendor:setup'];
const WEB_ENTRY = 'src/web/main.tsx';

function entryPoints(): string[] {
  const entries = [WEB_ENTRY];
  for (const name of PRODUCTION_SCRIPTS) {
    const cmd = pkg.scripts[name];
    if (!cmd) throw new Error(`package.json has no script ${name}`);
    const file = /--import tsx (\S+\.ts)/.exec(cmd)?.[1];
    if (!file) throw new Error(`script ${name} runs no TypeScript file: ${cmd}`);
    entries.push(file);
  }
  return entries;
}

/** Runtime import specifiers of a source file (type-only imports excluded). */
export function importsOf(source: string): string[] {
  const out: string[] = [];
  const staticImport = /^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm;
  for (const m of source.matchAll(staticImport)) if (!m[2]) out.push(m[3]!);
  for (const m of source.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) out.push(m[1]!);
  return out;
}

/** The package a specifier names; a Node built-in name is a package in the browser app (the bundler's polyfill). */
export function packageOf(specifier: string, browser = false): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:'))
    return undefined;
  const name = specifier.startsWith('@')
    ? specifier.split('/').slice(0, 2).join('/')
    : specifier.split('/')[0]!;
  if (!browser && builtinModules.includes(name)) return undefined;
  return name;
}

function resolveLocal(from: string, specifier: string): string {
  const base = resolve(dirname(from), specifier);
  const candidates = [
    base,
    base.replace(/\.js$/, '.ts'),
    base.replace(/\.js$/, '.tsx'),
    `${base}.ts`,
    `${base}.tsx`,
    resolve(base, 'index.ts'),
    resolve(base, 'index.tsx'),
  ];
  const found = candidates.find((c) => /\.(ts|tsx|json|css|svg)$/.test(c) && existsSync(c));
  if (!found) throw new Error(`cannot resolve ${specifier} from ${from}`);
  return found;
}

/** Every package imported at run time by the files reachable from the entries. */
function productionImports(): Map<string, string> {
  const seen = new Set<string>();
  const packages = new Map<string, string>(); // package → first importing file
  const queue = entryPoints().map((e) => resolve(root, e));
  while (queue.length) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    if (!/\.(ts|tsx)$/.test(file)) continue;
    for (const spec of importsOf(readFileSync(file, 'utf8'))) {
      const name = packageOf(spec, file.startsWith(resolve(root, 'src/web')));
      if (name) {
        if (!packages.has(name)) packages.set(name, file.slice(root.length + 1));
      } else if (spec.startsWith('.')) {
        queue.push(resolveLocal(file, spec));
      }
    }
  }
  return packages;
}

describe('production dependencies', () => {
  it('finds imports the way the rules above read them', () => {
    const src = [
      "import { a } from 'alpha';",
      "import type { B } from 'beta';",
      "import '@scope/gamma/side-effect';",
      "export { d } from './local';",
      "const e = await import('epsilon');",
    ].join('\n');
    expect(importsOf(src)).toEqual(['alpha', '@scope/gamma/side-effect', './local', 'epsilon']);
    expect(importsOf(src).map((s) => packageOf(s))).toEqual(['alpha', '@scope/gamma', undefined, 'epsilon']);
    expect(packageOf('node:fs')).toBeUndefined();
    expect(packageOf('crypto')).toBeUndefined();
    expect(packageOf('buffer', true)).toBe('buffer');
  });

  const imported = productionImports();

  it('are each imported by production code (test-only packages are devDependencies)', () => {
    const unused = Object.keys(pkg.dependencies).filter(
      (name) => !imported.has(name) && !NOT_IMPORTED[name]?.(pkg.scripts),
    );
    expect(unused, 'production dependencies that production code never imports').toEqual([]);
  });

  it('include every package production code imports', () => {
    const undeclared = [...imported]
      .filter(([name]) => !(name in pkg.dependencies))
      .map(([name, file]) => `${name} (${file})`);
    expect(undeclared, 'packages imported by production code but not production dependencies').toEqual([]);
  });

  it('reach the server, the local network, the operator scripts and the browser app', () => {
    for (const name of ['fastify', 'litesvm', 'react-dom', '@solana/kit', '@solana-program/system'])
      expect(imported.has(name)).toBe(true);
    // One Solana library in production code, the demo chain included (issue 30 item 4): web3.js and
    // spl-token are devDependencies, for tests and demo:pay.
    for (const name of ['@solana/web3.js', '@solana/spl-token']) {
      expect(imported.has(name), name).toBe(false);
      expect(pkg.devDependencies[name], name).toBeDefined();
    }
  });
});
