/**
 * `local/table-owners`: every table of the store has one writer. The rule holds the table → module map (the
 * option `owners`: table name → folders or files, relative to the working directory) and refuses, in any other
 * file, a write to that table: Kysely's `insertInto`, `replaceInto`, `updateTable`, `deleteFrom`, `mergeInto`
 * with the table's name, or raw SQL in a `sql` template (`insert into`, `update`, `delete from`). A write whose
 * table is not a plain name (a variable, `sql.table(…)`) is refused too, since nobody could check it, and so is
 * a write to a table the map does not name (a new table states its owner first). `anyTable`: folders that may
 * write every table (the migrations).
 */
import path from 'node:path';

const WRITES = new Set(['insertInto', 'replaceInto', 'updateTable', 'deleteFrom', 'mergeInto']);
/** `insert into t`, `update t`, `delete from t` (not `do update set`); the table, or '' when a placeholder follows. */
const RAW_WRITE =
  /(?<!\bdo\s+)\b(?:insert\s+into|update|delete\s+from)\s+(?:"?([a-z_][a-z0-9_]*)"?|(\$\{\}))/gi;

const within = (file, place) => file === place || file.startsWith(place + path.sep);

export default {
  meta: {
    type: 'problem',
    docs: { description: 'Refuse a write to a table outside the module that owns it.' },
    schema: [
      {
        type: 'object',
        properties: {
          owners: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
          anyTable: { type: 'array', items: { type: 'string' } },
        },
        required: ['owners'],
        additionalProperties: false,
      },
    ],
    messages: {
      foreign:
        'Table {{table}} is written only by {{owners}}: ask that module (eslint-rules/table-owners.js).',
      unowned: 'Table {{table}} has no owner in the table → module map (eslint-rules/table-map.js).',
      dynamic: 'A write whose table is not a plain name cannot be checked: name the table.',
    },
  },
  create(context) {
    const file = path.resolve(context.filename);
    const { owners = {}, anyTable = [] } = context.options[0] ?? {};
    if (anyTable.some((p) => within(file, path.resolve(context.cwd, p)))) return {};
    const check = (node, table) => {
      if (table === null) return context.report({ node, messageId: 'dynamic' });
      const places = owners[table];
      if (!places) return context.report({ node, messageId: 'unowned', data: { table } });
      if (!places.some((p) => within(file, path.resolve(context.cwd, p))))
        context.report({ node, messageId: 'foreign', data: { table, owners: places.join(', ') } });
    };
    return {
      CallExpression(node) {
        const callee = node.callee;
        if (callee.type !== 'MemberExpression' || callee.property.type !== 'Identifier') return;
        if (!WRITES.has(callee.property.name)) return;
        const arg = node.arguments[0];
        if (!arg) return;
        if (arg.type === 'Literal' && typeof arg.value === 'string')
          check(node, arg.value.trim().split(/\s+/)[0]);
        else check(node, null);
      },
      TaggedTemplateExpression(node) {
        const tag = node.tag;
        const name =
          tag.type === 'Identifier' ? tag.name : tag.type === 'MemberExpression' ? tag.object.name : '';
        if (name !== 'sql') return;
        const text = node.quasi.quasis.map((q) => q.value.cooked ?? q.value.raw).join('${}');
        for (const m of text.matchAll(RAW_WRITE)) check(node, m[1] ? m[1].toLowerCase() : null);
      },
    };
  },
};
