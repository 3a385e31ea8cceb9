/**
 * The repository's import graph, read with the TypeScript compiler's own pre-processor (static imports, export …
 * from, dynamic import() and `import type` alike): relative specifiers resolved to files. Shared by the local lint
 * rules (eslint-rules/imports.js) and the unit test that walks the whole tree.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const EXTENSIONS = ['', '.ts', '.tsx', '.js', '/index.ts', '/index.tsx', '/index.js'];

/** The file a relative specifier names, or undefined (packages, assets that are not code, missing files). */
export function resolveImport(fromFile, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(fromFile), specifier);
  for (const ext of EXTENSIONS) {
    const candidate = base + ext;
    if (/\.(ts|tsx|js)$/.test(candidate) && fs.existsSync(candidate) && fs.statSync(candidate).isFile())
      return candidate;
  }
  return undefined;
}

/** The imports of one file: [{ specifier, file (resolved or undefined), line }]. */
export function importsOf(file, text = fs.readFileSync(file, 'utf8')) {
  const info = ts.preProcessFile(text, true, true);
  return info.importedFiles.map((r) => ({
    specifier: r.fileName,
    file: resolveImport(file, r.fileName),
    pos: r.pos,
  }));
}

const cache = new Map();

/** The resolved code imports of a file, cached by modification time (one lint run reads each file once). */
export function edgesOf(file) {
  const mtime = fs.statSync(file).mtimeMs;
  const hit = cache.get(file);
  if (hit && hit.mtime === mtime) return hit.edges;
  const edges = [...new Set(importsOf(file).flatMap((i) => (i.file ? [i.file] : [])))];
  cache.set(file, { mtime, edges });
  return edges;
}

/** A path of imports from `start` back to `target` (file names, `start` first), or undefined. */
export function pathBack(start, target) {
  const seen = new Set();
  const walk = (file, trail) => {
    if (file === target) return trail;
    if (seen.has(file)) return undefined;
    seen.add(file);
    for (const next of edgesOf(file)) {
      const found = walk(next, [...trail, next]);
      if (found) return found;
    }
    return undefined;
  };
  return walk(start, [start]);
}

/** Every code file under `dir` (no node_modules, no build output). */
export function codeFiles(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (['node_modules', 'dist', 'var', 'coverage'].includes(entry.name) || entry.name.startsWith('.'))
      continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...codeFiles(full));
    else if (/\.(ts|tsx)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

/** The import cycles among `files` (each once, as the list of its files): Tarjan's strongly connected parts. */
export function cycles(files) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const found = [];
  const strong = (v) => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    on.add(v);
    for (const w of edgesOf(v)) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const part = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        part.push(w);
      } while (w !== v);
      if (part.length > 1 || edgesOf(v).includes(v)) found.push(part.reverse());
    }
  };
  for (const f of files) if (!idx.has(f)) strong(f);
  return found;
}
