import { namePattern, type Section, type SettingSpec } from './schema';

/**
 * The settings' documentation, from the schemas: the README's settings lists (between the markers below, written by
 * `npm run settings:docs`) and the check of `.env.example`. docs.test.ts fails when either disagrees with the
 * schemas, so a setting cannot be added, renamed or have its default changed without its docs.
 */

export const README_BEGIN =
  '<!-- settings:begin (generated from the schemas in src/server/settings/ by `npm run settings:docs`) -->';
export const README_END = '<!-- settings:end -->';

type Sections = readonly Pick<Section<never, unknown>, 'title' | 'settings'>[];

function valuesOf(spec: SettingSpec): string | undefined {
  if (spec.int) return `${spec.int[0]} to ${spec.int[1]}`;
  if (spec.percentBps) return `${spec.percentBps[0] / 100} % to ${spec.percentBps[1] / 100} %`;
  return spec.values;
}

function defaultOf(spec: SettingSpec): string | undefined {
  return spec.default !== undefined ? `\`${spec.default}\`` : spec.defaultDoc;
}

/** The README's settings lists, one per section, markers included. */
export function settingsList(sections: Sections): string {
  const out = [README_BEGIN];
  for (const s of sections) {
    out.push('', `#### ${s.title}`, '');
    for (const [name, spec] of Object.entries(s.settings)) {
      const d = defaultOf(spec);
      const v = valuesOf(spec);
      out.push(`- \`${name}\`: ${spec.doc}${d ? ` Default: ${d}.` : ''}${v ? ` Values: ${v}.` : ''}`);
    }
  }
  out.push('', README_END);
  return out.join('\n');
}

/** The README with its settings block replaced by `list`; throws when the markers are missing. */
export function withSettingsList(readme: string, list: string): string {
  const begin = readme.indexOf(README_BEGIN);
  const end = readme.indexOf(README_END);
  if (begin < 0 || end < begin)
    throw new Error(`README.md: the markers ${README_BEGIN} … ${README_END} are missing`);
  return readme.slice(0, begin) + list + readme.slice(end + README_END.length);
}

/**
 * What `.env.example` gets wrong against the schemas: a setting it does not list, a name no schema declares, an
 * active line (`NAME=value`, not commented out) whose value is not the declared default.
 */
export function envExampleProblems(sections: Sections, text: string): string[] {
  const specs = sections.flatMap((s) => Object.entries(s.settings));
  const find = (name: string): SettingSpec | undefined =>
    specs.find(([n]) => n === name)?.[1] ??
    specs.find(([n]) => n.includes('<KEY>') && namePattern(n).test(name))?.[1];
  const problems: string[] = [];
  const listed: string[] = [];
  for (const line of text.split('\n')) {
    const m = /^(#\s*)?([A-Z][A-Z0-9_]*(?:<KEY>[A-Z0-9_]*)?)=(.*)$/.exec(line);
    if (!m) continue;
    const [, commented, name = '', value = ''] = m;
    listed.push(name);
    const spec = find(name);
    if (!spec) problems.push(`${name}: in .env.example but declared by no settings schema`);
    else if (!commented && spec.default !== undefined && value !== String(spec.default))
      problems.push(`${name}: .env.example sets '${value}', the schema's default is '${spec.default}'`);
  }
  for (const [name] of specs) {
    const pattern = name.includes('<KEY>') ? namePattern(name) : undefined;
    if (!listed.some((l) => l === name || pattern?.test(l)))
      problems.push(`${name}: declared by a settings schema but not listed in .env.example`);
  }
  return problems;
}
