import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { Keypair } from '@solana/web3.js';
import { catalog } from '../../catalog';
import { parseCatalog } from '../core/catalog';
import { createQuote } from './orders/quotes';
import {
  isDemoEnv,
  loadSettings,
  payoutGroupsOf,
  publicConfig,
  sellerEmailFor,
  SettingsError,
  settingsKey,
} from './settings';

const KEY_A = 'So11111111111111111111111111111111111111112';
const KEY_B = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const KEY_C = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
const demo = { claimMint: KEY_A, recipients: { coopersglass: KEY_B, gorilla: KEY_C } };

const production = {
  SOLANA_RPC_URL: 'https://api.mainnet-beta.solana.com',
  PRICE_API_URL: 'https://api.dexscreener.com',
  QUOTE_SECRET: 'x'.repeat(40),
  SELLER_EMAIL: 'seller@shop.example',
  CLAIM_MINT: KEY_A,
  RECIPIENT_COOPERSGLASS: KEY_B,
  RECIPIENT_GORILLA: KEY_C,
  DATA_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
  MAIL_TRANSPORT: 'smtp',
  SMTP_URL: 'smtp://mail.shop.example:587',
};

function problems(env: Record<string, string>, d = demo, groups?: string[]): string[] {
  try {
    loadSettings(env, d, groups);
  } catch (err) {
    if (err instanceof SettingsError) return err.problems;
    throw err;
  }
  return [];
}

describe('settings', () => {
  it("a vendor's return address for its packing slips: lines by ';', refused in words when bad, a demo one in demo mode", () => {
    const s = loadSettings({
      ...production,
      VENDOR_COOPERSGLASS_RETURN_ADDRESS:
        ' Coopers Glass ; 12 Kiln Road;Portland, OR 97201 ;; United States ',
    });
    expect(s.returnAddresses).toEqual({
      coopersglass: ['Coopers Glass', '12 Kiln Road', 'Portland, OR 97201', 'United States'],
      gorilla: [],
    });
    expect(problems({ ...production, VENDOR_GORILLA_RETURN_ADDRESS: 'a;b;c;d;e;f;g' })).toEqual([
      'VENDOR_GORILLA_RETURN_ADDRESS: has 7 lines (at most 6)',
    ]);
    expect(problems({ ...production, VENDOR_GORILLA_RETURN_ADDRESS: 'x'.repeat(81) })).toEqual([
      'VENDOR_GORILLA_RETURN_ADDRESS: has a line longer than 80 characters',
    ]);
    expect(problems({ ...production, VENDOR_NOBODY_RETURN_ADDRESS: 'a' })[0]).toMatch(
      /^VENDOR_NOBODY_RETURN_ADDRESS: no vendor of the catalogue/,
    );
    expect(loadSettings({}, demo).returnAddresses.coopersglass?.[0]).toBe('Returns (demo address)');
  });

  it('runs in demo mode with no configuration: localnet, demo feed, file mail, demo keys', () => {
    const s = loadSettings({}, demo);
    expect(isDemoEnv({})).toBe(true);
    expect(s.demo).toBe(true);
    expect(s.port).toBe(3000);
    expect(s.host).toBe('127.0.0.1');
    expect(s.database).toEqual({ kind: 'sqlite', file: 'var/store.sqlite' });
    expect(s.solana).toEqual({
      rpcUrl: 'http://127.0.0.1:8899',
      wsUrl: 'ws://127.0.0.1:8900',
      browserRpcUrl: 'http://127.0.0.1:8899',
      browserWsUrl: 'ws://127.0.0.1:8900',
      cluster: 'localnet',
    });
    expect(s.claimMint).toBe(KEY_A);
    expect(s.rpcBudget).toEqual({ per10s: 60 });
    expect(s.recipients).toEqual({ coopersglass: KEY_B, gorilla: KEY_C });
    expect(s.price.apiUrl).toBe('http://127.0.0.1:3000/demo/dexscreener');
    expect(s.mail.transport).toBe('file');
    expect(s.mail.dir).toBe('var/mail');
  });

  it('follows LOCALNET_PORT for the RPC and WebSocket URLs', () => {
    const s = loadSettings({ LOCALNET_PORT: '9100' }, demo);
    expect(s.solana.rpcUrl).toBe('http://127.0.0.1:9100');
    expect(s.solana.wsUrl).toBe('ws://127.0.0.1:9101');
  });

  it('DEMO_VENDORS_WITHOUT_TOKEN_ACCOUNT: payout groups the demo localnet starts without (demo mode only)', () => {
    expect(loadSettings({}, demo).demoVendorsWithoutTokenAccount).toEqual([]);
    expect(
      loadSettings({ DEMO_VENDORS_WITHOUT_TOKEN_ACCOUNT: ' gorilla ' }, demo).demoVendorsWithoutTokenAccount,
    ).toEqual(['gorilla']);
    expect(problems({ DEMO_VENDORS_WITHOUT_TOKEN_ACCOUNT: 'gorila' })).toEqual([
      "DEMO_VENDORS_WITHOUT_TOKEN_ACCOUNT: 'gorila' is no payout group (one of coopersglass, gorilla)",
    ]);
    expect(
      problems({ ...production, DEMO_VENDORS_WITHOUT_TOKEN_ACCOUNT: 'gorilla' }, undefined as never),
    ).toEqual(['DEMO_VENDORS_WITHOUT_TOKEN_ACCOUNT: only for demo mode (the demo localnet); unset it']);
  });

  it('outside demo mode requires every production setting, naming each one', () => {
    const p = problems({ SOLANA_RPC_URL: 'https://rpc.example' }, undefined as never);
    for (const name of [
      'PRICE_API_URL',
      'QUOTE_SECRET',
      'SELLER_EMAIL',
      'CLAIM_MINT',
      'RECIPIENT_COOPERSGLASS',
      'RECIPIENT_GORILLA',
      'DATA_KEYS',
      'MAIL_TRANSPORT',
    ]) {
      expect(
        p.some((x) => x.startsWith(`${name}:`)),
        name,
      ).toBe(true);
    }
    const s = loadSettings(production);
    expect(s.demo).toBe(false);
    expect(s.solana.cluster).toBe('mainnet-beta');
    expect(s.solana.wsUrl).toBe('wss://api.mainnet-beta.solana.com');
  });

  it('production refuses to start without an explicit MAIL_TRANSPORT; file is taken only when named', () => {
    const { MAIL_TRANSPORT: _t, SMTP_URL: _u, ...withoutTransport } = production;
    expect(problems(withoutTransport, undefined as never)).toEqual([
      'MAIL_TRANSPORT: required outside demo mode (smtp or emailjs; file writes .eml files and delivers nothing)',
    ]);
    expect(loadSettings({ ...withoutTransport, MAIL_TRANSPORT: 'file' }).mail.transport).toBe('file');
    expect(loadSettings(production).mail.transport).toBe('smtp');
    // Demo mode keeps its default: the file transport, listed at /dev/mail.
    expect(loadSettings({}, demo).mail.transport).toBe('file');
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ SOLANA_WS_URL: 'http://nope' }, 'SOLANA_WS_URL'],
    [{ SOLANA_CLUSTER: 'moon' }, 'SOLANA_CLUSTER'],
    [{ CLAIM_MINT: 'not-base58!' }, 'CLAIM_MINT'],
    [{ PRICE_PAIR_ADDRESS: '0OIl' }, 'PRICE_PAIR_ADDRESS'],
    [{ PRICE_REFRESH_MS: '5' }, 'PRICE_REFRESH_MS'],
    [{ PRICE_TIMEOUT_MS: 'soon' }, 'PRICE_TIMEOUT_MS'],
    [{ QUOTE_SECRET: 'short' }, 'QUOTE_SECRET'],
    [{ MAIL_TRANSPORT: 'pigeon' }, 'MAIL_TRANSPORT'],
    [{ MAIL_TRANSPORT: 'smtp' }, 'SMTP_URL'],
    [{ MAIL_TRANSPORT: 'smtp', SMTP_URL: 'http://mail' }, 'SMTP_URL'],
    [{ MAIL_TRANSPORT: 'emailjs' }, 'EMAILJS_SERVICE_ID'],
    [{ SELLER_EMAIL: 'nobody' }, 'SELLER_EMAIL'],
    [{ SOLANA_RPC_BUDGET: '0' }, 'SOLANA_RPC_BUDGET'],
    [{ SOLANA_RPC_BUDGET: 'lots' }, 'SOLANA_RPC_BUDGET'],
  ])('rejects %o with a message naming %s', (env, name) => {
    const p = problems(env);
    expect(p.length).toBeGreaterThan(0);
    expect(p.some((x) => x.startsWith(`${name}:`))).toBe(true);
  });

  it('price guards: defaults, the second source off outside demo mode unless set, bad values named', () => {
    const prod = loadSettings(production, demo);
    expect(prod.price).toMatchObject({
      reference: { rule: 'median', windowMs: 600_000 },
      minLiquidityUsd: 5_000,
      maxSpreadBps: 1_000,
    });
    expect(prod.price.secondSourceUrl).toBeUndefined();
    expect(loadSettings({}, demo).price.secondSourceUrl).toMatch(/\/demo\/geckoterminal$/);
    const set = loadSettings(
      {
        ...production,
        PRICE_REFERENCE_RULE: 'twap',
        PRICE_REFERENCE_WINDOW_MS: '300000',
        PRICE_MIN_LIQUIDITY_USD: '20000',
        PRICE_SECOND_SOURCE_URL: 'https://api.geckoterminal.com/api/v2/',
        PRICE_MAX_SPREAD: '7.5%',
      },
      demo,
    ).price;
    expect(set).toMatchObject({
      reference: { rule: 'twap', windowMs: 300_000 },
      minLiquidityUsd: 20_000,
      secondSourceUrl: 'https://api.geckoterminal.com/api/v2',
      maxSpreadBps: 750,
    });
    const bad = problems({
      ...production,
      PRICE_REFERENCE_RULE: 'mean',
      PRICE_REFERENCE_WINDOW_MS: '1000',
      PRICE_MIN_LIQUIDITY_USD: '-5',
      PRICE_SECOND_SOURCE_URL: 'ftp://x',
      PRICE_MAX_SPREAD: '0.1',
    });
    for (const name of [
      'PRICE_REFERENCE_RULE',
      'PRICE_REFERENCE_WINDOW_MS',
      'PRICE_MIN_LIQUIDITY_USD',
      'PRICE_SECOND_SOURCE_URL',
      'PRICE_MAX_SPREAD',
    ])
      expect(
        bad.some((p) => p.startsWith(`${name}:`)),
        name,
      ).toBe(true);
  });

  it('reports every bad setting at once', () => {
    const p = problems({ PORT: 'x', MAIL_TRANSPORT: 'y', QUOTE_SECRET: 'z' });
    expect(p).toHaveLength(3);
  });

  it('reads QUOTE_TTL_SECONDS (default 900, at least 60) as the quote lifetime', () => {
    expect(loadSettings({}, demo).quote.ttlMs).toBe(900_000);
    expect(loadSettings({ QUOTE_TTL_SECONDS: '90' }, demo).quote.ttlMs).toBe(90_000);
    expect(() => loadSettings({ QUOTE_TTL_SECONDS: '59' }, demo)).toThrow(/QUOTE_TTL_SECONDS/);
    expect(() => loadSettings({ QUOTE_TTL_SECONDS: '1.5' }, demo)).toThrow(/QUOTE_TTL_SECONDS/);
  });

  it('accepts sqlite: and postgres:// database URLs', () => {
    expect(loadSettings({ DATABASE_URL: 'sqlite:/tmp/a.db' }, demo).database).toEqual({
      kind: 'sqlite',
      file: '/tmp/a.db',
    });
    expect(loadSettings({ DATABASE_URL: 'postgres://u@h:5432/db' }, demo).database).toEqual({
      kind: 'postgres',
      url: 'postgres://u@h:5432/db',
    });
  });

  it('MIGRATE_ON_START: on in demo mode, off in production unless set; DRAIN_MS below SHUTDOWN_DEADLINE_MS', () => {
    expect(loadSettings({}, demo).migrateOnStart).toBe(true);
    expect(loadSettings({ MIGRATE_ON_START: '0' }, demo).migrateOnStart).toBe(false);
    expect(loadSettings(production, demo).migrateOnStart).toBe(false);
    expect(loadSettings({ ...production, MIGRATE_ON_START: '1' }, demo).migrateOnStart).toBe(true);
    expect(problems({ MIGRATE_ON_START: 'maybe' })).toEqual([
      "MIGRATE_ON_START: must be 1 or 0 (got 'maybe')",
    ]);
    expect(loadSettings(production, demo).databasePoolWarm).toBe(false);
    expect(loadSettings({ ...production, DATABASE_POOL_WARM: '1' }, demo).databasePoolWarm).toBe(true);
    expect(problems({ DATABASE_POOL_WARM: 'hot' })).toEqual([
      "DATABASE_POOL_WARM: must be 1 or 0 (got 'hot')",
    ]);
    expect(loadSettings(production, demo).databaseNamedStatements).toBe(true);
    expect(
      loadSettings({ ...production, DATABASE_NAMED_STATEMENTS: 'off' }, demo).databaseNamedStatements,
    ).toBe(false);
    expect(problems({ DATABASE_NAMED_STATEMENTS: 'some' })).toEqual([
      "DATABASE_NAMED_STATEMENTS: must be 1 or 0 (got 'some')",
    ]);
    expect(loadSettings({}, demo)).toMatchObject({ drainMs: 5_000, shutdownDeadlineMs: 25_000 });
    expect(problems({ DRAIN_MS: '30000', SHUTDOWN_DEADLINE_MS: '30000' })).toEqual([
      "SHUTDOWN_DEADLINE_MS: must be more than DRAIN_MS (30000), or the drain never ends in a close (got '30000')",
    ]);
  });

  it('tells the browser only the allow-listed public values (never the seller address or a key)', () => {
    const s = loadSettings({
      ...production,
      MAIL_TRANSPORT: 'emailjs',
      EMAILJS_SERVICE_ID: 's',
      EMAILJS_USER_ID: 'u',
      EMAILJS_ACCESS_TOKEN: 'secret-token',
      EMAILJS_TEMPLATE_SELLER_COOPERSGLASS: 't1',
      EMAILJS_TEMPLATE_SELLER_GORILLA: 't2',
      EMAILJS_TEMPLATE_BUYER: 't3',
    });
    const json = JSON.stringify(publicConfig(s));
    expect(Object.keys(publicConfig(s)).sort()).toEqual([
      'claimMint',
      'cluster',
      'demo',
      'pairAddress',
      'rpcUrl',
      'wsUrl',
    ]);
    for (const secret of ['seller@shop.example', 'secret-token', 'x'.repeat(40)])
      expect(json).not.toContain(secret);
  });

  it("gives the browser SOLANA_BROWSER_RPC_URL or the cluster's public endpoint, never the server's keyed URL", () => {
    const keyed = { ...production, SOLANA_RPC_URL: 'https://rpc.provider.example/?api-key=SERVERKEY123456' };
    const s = loadSettings(keyed);
    expect(s.solana.rpcUrl).toContain('SERVERKEY123456');
    expect(publicConfig(s).rpcUrl).toBe('https://api.mainnet-beta.solana.com');
    expect(publicConfig(s).wsUrl).toBe('wss://api.mainnet-beta.solana.com');
    expect(JSON.stringify(publicConfig(s))).not.toContain('SERVERKEY123456');

    const own = loadSettings({ ...keyed, SOLANA_BROWSER_RPC_URL: 'https://browser-rpc.example' });
    expect(publicConfig(own).rpcUrl).toBe('https://browser-rpc.example');
    expect(publicConfig(own).wsUrl).toBe('wss://browser-rpc.example');

    expect(problems({ ...keyed, SOLANA_BROWSER_RPC_URL: keyed.SOLANA_RPC_URL })).toEqual([
      'SOLANA_BROWSER_RPC_URL: must not be SOLANA_RPC_URL, which carries credentials (browsers would see them)',
    ]);
  });

  it('prints no password or key in a settings problem', () => {
    const p = problems({
      ...production,
      MAIL_TRANSPORT: 'smtp',
      SMTP_URL: 'http://mailer:hunter2-password@smtp.example:587',
      SOLANA_WS_URL: 'https://rpc.example/?api-key=WSKEY98765',
    });
    const text = p.join('\n');
    expect(p.some((x) => x.startsWith('SMTP_URL:'))).toBe(true);
    expect(p.some((x) => x.startsWith('SOLANA_WS_URL:'))).toBe(true);
    expect(text).not.toContain('hunter2-password');
    expect(text).not.toContain('WSKEY98765');
    expect(text).toContain('mailer:***@smtp.example');
  });

  it('reads TRUST_PROXY as off, on, a hop count or a list of proxy addresses', () => {
    expect(loadSettings({}, demo).trustProxy).toBe(false);
    expect(loadSettings({ TRUST_PROXY: 'true' }, demo).trustProxy).toBe(true);
    expect(loadSettings({ TRUST_PROXY: '2' }, demo).trustProxy).toBe(2);
    expect(loadSettings({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }, demo).trustProxy).toEqual([
      '10.0.0.0/8',
      '127.0.0.1',
    ]);
    expect(problems({ TRUST_PROXY: 'everyone' })[0]).toMatch(/^TRUST_PROXY: /);
  });

  it('the server refuses to start on a bad setting, saying which', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
      env: { PATH: process.env.PATH, PORT: 'not-a-port', MAIL_TRANSPORT: 'carrier-pigeon' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('Invalid settings');
    expect(run.stderr).toContain("PORT: must be a whole number from 0 to 65535 (got 'not-a-port')");
    expect(run.stderr).toContain('MAIL_TRANSPORT');
  }, 30_000); // a cold tsx start takes seconds on a loaded machine

  describe('vendors are data', () => {
    const KEY_D = Keypair.generate().publicKey.toBase58();
    // A third vendor added as data only: a catalogue entry, its products and its settings.
    const third = parseCatalog({
      vendors: [
        ...catalog.vendors,
        { ...catalog.vendors[0]!, id: 'moon-rocks', name: 'Moon Rocks', payoutGroup: 'moon-rocks' },
      ],
      products: [
        ...catalog.products,
        {
          ...catalog.products.find((p) => p.vendorId === 'coopersglass' && !p.variants)!,
          id: 'moon-rock',
          vendorId: 'moon-rocks',
          routes: ['/vendors/moon-rocks/rock'],
        },
      ],
    });
    const groups = payoutGroupsOf(third);

    it('the catalogue names the payout groups; settings names follow them by pattern', () => {
      expect(payoutGroupsOf(catalog)).toEqual(['coopersglass', 'gorilla']);
      expect(groups).toEqual(['coopersglass', 'gorilla', 'moon-rocks']);
      expect(settingsKey('moon-rocks')).toBe('MOON_ROCKS');
    });

    it('RECIPIENT_COOPERSGLASS and RECIPIENT_GORILLA keep working; a new vendor needs its own RECIPIENT_<KEY>', () => {
      const s = loadSettings(production);
      expect(s.recipients).toEqual({ coopersglass: KEY_B, gorilla: KEY_C });
      const p = problems(production, undefined as never, groups);
      expect(p).toEqual([expect.stringMatching(/^RECIPIENT_MOON_ROCKS: required/)]);
      const s3 = loadSettings({ ...production, RECIPIENT_MOON_ROCKS: KEY_D }, undefined, groups);
      expect(s3.recipients).toEqual({ coopersglass: KEY_B, gorilla: KEY_C, 'moon-rocks': KEY_D });
    });

    it("the new vendor's quotes pay its own wallet", () => {
      const s3 = loadSettings({ ...production, RECIPIENT_MOON_ROCKS: KEY_D }, undefined, groups);
      const { response } = createQuote(
        {
          catalog: third,
          settings: s3,
          priceSource: { current: () => ({ priceUsd: '2', fetchedAt: new Date() }) },
          now: () => new Date(),
        },
        { items: [{ productId: 'moon-rock', quantity: 1 }] },
      );
      expect(response.recipient).toBe(KEY_D);
    });

    it('a seller e-mail per vendor (VENDOR_<KEY>_EMAIL), SELLER_EMAIL for the others', () => {
      const s = loadSettings(
        { ...production, RECIPIENT_MOON_ROCKS: KEY_D, VENDOR_MOON_ROCKS_EMAIL: 'moon@rocks.example' },
        undefined,
        groups,
      );
      expect(sellerEmailFor(s.mail, 'moon-rocks')).toBe('moon@rocks.example');
      expect(sellerEmailFor(s.mail, 'gorilla')).toBe('seller@shop.example');
      expect(problems({ VENDOR_GORILLA_EMAIL: 'nope' })).toEqual([
        'VENDOR_GORILLA_EMAIL: not an e-mail address',
      ]);
    });

    it('EmailJS needs a seller template per vendor, by the same pattern', () => {
      const env = {
        ...production,
        RECIPIENT_MOON_ROCKS: KEY_D,
        MAIL_TRANSPORT: 'emailjs',
        EMAILJS_SERVICE_ID: 's',
        EMAILJS_USER_ID: 'u',
        EMAILJS_ACCESS_TOKEN: 'a',
        EMAILJS_TEMPLATE_SELLER_COOPERSGLASS: 't1',
        EMAILJS_TEMPLATE_SELLER_GORILLA: 't2',
        EMAILJS_TEMPLATE_BUYER: 't3',
      };
      expect(problems(env, undefined as never, groups)).toEqual([
        expect.stringMatching(/^EMAILJS_TEMPLATE_SELLER_MOON_ROCKS: required/),
      ]);
      const s = loadSettings({ ...env, EMAILJS_TEMPLATE_SELLER_MOON_ROCKS: 't4' }, undefined, groups);
      expect(s.mail.emailjs?.templates.seller).toEqual({
        coopersglass: 't1',
        gorilla: 't2',
        'moon-rocks': 't4',
      });
    });

    it('refuses a vendor setting that names no vendor (a typo would leave that vendor unpaid)', () => {
      expect(problems({ ...production, RECIPIENT_GORILA: KEY_D }, undefined as never)).toEqual([
        expect.stringMatching(/^RECIPIENT_GORILA: no vendor of the catalogue/),
      ]);
      expect(problems({ VENDOR_NOBODY_EMAIL: 'a@b.example' })).toEqual([
        expect.stringMatching(/^VENDOR_NOBODY_EMAIL: no vendor of the catalogue/),
      ]);
    });
  });

  describe('personal data', () => {
    const k = (byte: number) => Buffer.alloc(32, byte).toString('base64');

    it('production refuses to start without DATA_KEYS; demo mode derives a demo key and says so', () => {
      const { DATA_KEYS: _omitted, ...withoutKeys } = production;
      expect(problems(withoutKeys, undefined as never)).toEqual([
        expect.stringMatching(/^DATA_KEYS: required outside demo mode/),
      ]);
      const d = loadSettings({}, demo);
      expect(d.privacy.demoKey).toBe(true);
      expect(d.privacy.dataKeys.map((x) => x.id)).toEqual(['demo']);
      expect(d.privacy.dataKeys[0]?.key.length).toBe(32);
      // The same demo key every time (a demo store reopens readable).
      expect(loadSettings({}, demo).privacy.dataKeys[0]?.key.equals(d.privacy.dataKeys[0]!.key)).toBe(true);
    });

    it('DATA_KEYS: ids and 32-byte keys, the first seals; bad keys are named, never quoted', () => {
      const s = loadSettings({ ...production, DATA_KEYS: `new:${k(2)}, old:${k(1)}` });
      expect(s.privacy.demoKey).toBe(false);
      expect(s.privacy.dataKeys.map((x) => x.id)).toEqual(['new', 'old']);
      expect(s.privacy.dataKeys[1]?.key.equals(Buffer.alloc(32, 1))).toBe(true);
      // URL-safe base64 is accepted too.
      const urlSafe = Buffer.alloc(32, 0xfb).toString('base64url');
      expect(loadSettings({ ...production, DATA_KEYS: `u:${urlSafe}` }).privacy.dataKeys[0]?.key).toEqual(
        Buffer.alloc(32, 0xfb),
      );
      const short = Buffer.alloc(16, 9).toString('base64');
      const p = problems({ ...production, DATA_KEYS: `a:${short},${k(3)},b:***,c:${k(4)},c:${k(5)}` });
      expect(p).toEqual([
        "DATA_KEYS: key 'a' must be 32 bytes (44 base64 characters), got 16",
        'DATA_KEYS: key 2 needs an id of 1–32 letters, digits, _ or - before a colon',
        "DATA_KEYS: key 'b' is not base64",
        "DATA_KEYS: the id 'c' is given twice",
      ]);
      expect(p.join(' ')).not.toContain(short);
      expect(p.join(' ')).not.toContain(k(3));
    });

    it('PERSONAL_DATA_RETENTION_DAYS: default 90 days, fractions allowed', () => {
      expect(loadSettings({}, demo).privacy.retentionMs).toBe(90 * 86_400_000);
      expect(loadSettings({ PERSONAL_DATA_RETENTION_DAYS: '0.0001' }, demo).privacy.retentionMs).toBe(8_640);
      expect(loadSettings({ PERSONAL_DATA_RETENTION_DAYS: '30' }, demo).privacy.retentionMs).toBe(
        30 * 86_400_000,
      );
      for (const bad of ['-1', 'ninety', '1e3', '4000'])
        expect(problems({ PERSONAL_DATA_RETENTION_DAYS: bad })[0]).toMatch(/^PERSONAL_DATA_RETENTION_DAYS: /);
    });
  });

  it('the server prints a settings error without the SMTP password', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
      env: {
        PATH: process.env.PATH,
        PORT: 'not-a-port',
        MAIL_TRANSPORT: 'smtp',
        SMTP_URL: 'smtp://orders:s3cret-Passw0rd@smtp.example:587',
      },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('Invalid settings');
    expect(run.stderr + run.stdout).not.toContain('s3cret-Passw0rd');
  }, 60_000);
});
