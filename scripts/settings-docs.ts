import { readFileSync, writeFileSync } from 'node:fs';
import { SECTIONS } from '../src/server/settings';
import { settingsList, withSettingsList } from '../src/server/settings/docs';

/**
 * `npm run settings:docs`: rewrites the README's settings lists from the schemas in src/server/settings/
 * (src/server/settings/docs.test.ts fails while they differ).
 */
const readme = readFileSync('README.md', 'utf8');
const next = withSettingsList(readme, settingsList(SECTIONS));
if (next === readme) console.log('README.md: the settings lists are up to date');
else {
  writeFileSync('README.md', next);
  console.log('README.md: settings lists rewritten from the schemas');
}
