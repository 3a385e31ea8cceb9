import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadSettings, SECTIONS } from './index';
import { envExampleProblems, README_BEGIN, README_END, settingsList } from './docs';
import { Reader, section } from './schema';

const readme = readFileSync('README.md', 'utf8');
const envExample = readFileSync('.env.example', 'utf8');
const KEY_A = 'So11111111111111111111111111111111111111112';
const KEY_B = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const demo = { claimMint: KEY_A, recipients: { coopersglass: KEY_B, gorilla: KEY_B } };

/** The README's generated block, markers included. */
function readmeBlock(text: string): string {
  return text.slice(text.indexOf(README_BEGIN), text.indexOf(README_END) + README_END.length);
}

/** A section with one setting no doc lists: what a new setting added without docs looks like. */
const planted = section({
  title: 'Planted',
  settings: { PLANTED_NEW_SETTING: { doc: 'Added without docs.', default: 1, int: [0, 9] } },
  read: (r) => r.int('PLANTED_NEW_SETTING'),
});

describe('settings docs follow the schemas', () => {
  it("the README's settings lists are the ones the schemas generate (npm run settings:docs)", () => {
    expect(readme).toContain(README_BEGIN);
    expect(readmeBlock(readme)).toBe(settingsList(SECTIONS));
  });

  it('.env.example lists every setting, declares no unknown one, and shows only the defaults', () => {
    expect(envExampleProblems(SECTIONS, envExample)).toEqual([]);
  });

  it('a setting added to a schema without docs fails both checks', () => {
    expect(readmeBlock(readme)).not.toBe(settingsList([...SECTIONS, planted]));
    expect(envExampleProblems([...SECTIONS, planted], envExample)).toEqual([
      'PLANTED_NEW_SETTING: declared by a settings schema but not listed in .env.example',
    ]);
  });

  it('.env.example with a stale default or an unknown name is refused', () => {
    const stale = envExample.replace(/^PORT=3000$/m, 'PORT=8080').replace(/^HOST=/m, 'HOTS=');
    expect(envExampleProblems(SECTIONS, stale)).toEqual([
      "PORT: .env.example sets '8080', the schema's default is '3000'",
      'HOTS: in .env.example but declared by no settings schema',
      'HOST: declared by a settings schema but not listed in .env.example',
    ]);
  });

  it('a section reading a setting its schema does not declare fails at once', () => {
    const sneaky = section({ title: 'Sneaky', settings: {}, read: (r) => r.get('UNDECLARED') });
    expect(() => sneaky.read(new Reader({}, sneaky, []), undefined)).toThrow(
      "settings: the section 'Sneaky' reads UNDECLARED, which its schema does not declare",
    );
  });

  it('every declared setting is read by its section (no schema line without a reader)', () => {
    const read = new Set<string>();
    const recording = (env: Record<string, string>) =>
      new Proxy(env, {
        get: (t, name: string) => {
          read.add(name);
          return t[name];
        },
      });
    const production = {
      SOLANA_RPC_URL: 'https://api.mainnet-beta.solana.com',
      PRICE_API_URL: 'https://api.dexscreener.com',
      QUOTE_SECRET: 'x'.repeat(40),
      SELLER_EMAIL: 'seller@shop.example',
      CLAIM_MINT: KEY_A,
      RECIPIENT_COOPERSGLASS: KEY_B,
      RECIPIENT_GORILLA: KEY_B,
      DATA_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
    };
    loadSettings(recording({}), demo);
    loadSettings(recording({ ...production, MAIL_TRANSPORT: 'smtp', SMTP_URL: 'smtp://h:25' }));
    loadSettings(
      recording({
        ...production,
        MAIL_TRANSPORT: 'emailjs',
        EMAILJS_SERVICE_ID: 's',
        EMAILJS_USER_ID: 'u',
        EMAILJS_ACCESS_TOKEN: 'a',
        EMAILJS_TEMPLATE_SELLER_COOPERSGLASS: 't1',
        EMAILJS_TEMPLATE_SELLER_GORILLA: 't2',
        EMAILJS_TEMPLATE_BUYER: 't3',
      }),
    );
    const declared = SECTIONS.flatMap((s) => Object.keys(s.settings)).map((n) =>
      n.replace('<KEY>', 'GORILLA'),
    );
    expect(declared.filter((n) => !read.has(n))).toEqual([]);
  });
});
