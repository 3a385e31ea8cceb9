/**
 * Local lint rules on imports (the repository has no import plugin; these need only the TypeScript compiler):
 * - `local/no-cycle`: an import whose file leads back, import by import, to the importing file.
 * - `local/feature-boundaries`: an import from one feature's folder into a folder it must not reach, e.g. the
 *   seller console into the checkout. Options: [{ from, forbid: [folders], message }], folders relative to the
 *   working directory.
 */
import path from 'node:path';
import { pathBack, resolveImport } from './import-graph.js';

/** Calls `check(node, specifier)` for every import-like node with a string source. */
function onImports(check) {
  const visit = (node) => {
    if (node.source && node.source.type === 'Literal' && typeof node.source.value === 'string')
      check(node, node.source.value);
  };
  return {
    ImportDeclaration: visit,
    ExportNamedDeclaration: visit,
    ExportAllDeclaration: visit,
    ImportExpression: visit,
  };
}

const within = (file, folder) => file === folder || file.startsWith(folder + path.sep);

const noCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'Refuse an import that leads back to the importing file.' },
    schema: [],
    messages: { cycle: 'Import cycle: {{trail}}. Move what both need into a module neither imports.' },
  },
  create(context) {
    const file = path.resolve(context.filename);
    return onImports((node, specifier) => {
      const target = resolveImport(file, specifier);
      if (!target) return;
      const trail = pathBack(target, file);
      if (!trail) return;
      const rel = (f) => path.relative(context.cwd, f);
      context.report({ node, messageId: 'cycle', data: { trail: [file, ...trail].map(rel).join(' → ') } });
    });
  },
};

const featureBoundaries = {
  meta: {
    type: 'problem',
    docs: { description: "Refuse an import from one feature's folder into a folder it must not reach." },
    schema: [
      {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            from: { type: 'string' },
            forbid: { type: 'array', items: { type: 'string' } },
            message: { type: 'string' },
          },
          required: ['from', 'forbid', 'message'],
          additionalProperties: false,
        },
      },
    ],
    messages: { crossing: '{{message}} ({{specifier}})' },
  },
  create(context) {
    const file = path.resolve(context.filename);
    const rules = (context.options[0] ?? []).filter((r) => within(file, path.resolve(context.cwd, r.from)));
    if (rules.length === 0) return {};
    return onImports((node, specifier) => {
      const target = resolveImport(file, specifier);
      if (!target) return;
      for (const r of rules)
        if (r.forbid.some((f) => within(target, path.resolve(context.cwd, f))))
          context.report({ node, messageId: 'crossing', data: { message: r.message, specifier } });
    });
  },
};

export default { rules: { 'no-cycle': noCycle, 'feature-boundaries': featureBoundaries } };
