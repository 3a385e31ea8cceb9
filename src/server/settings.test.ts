import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { isDemoEnv, loadSettings, publicConfig, SettingsError } from './settings';

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
};

function problems(env: Record<string, string>, d = demo): string[] {
  try {
    loadSettings(env, d);
  } catch (err) {
    if (err instanceof SettingsError) return err.problems;
    throw err;
  }
  return [];
}

describe('settings', () => {
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
      cluster: 'localnet',
    });
    expect(s.claimMint).toBe(KEY_A);
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

  it('outside demo mode requires every production setting, naming each one', () => {
    const p = problems({ SOLANA_RPC_URL: 'https://rpc.example' }, undefined as never);
    for (const name of [
      'PRICE_API_URL',
      'QUOTE_SECRET',
      'SELLER_EMAIL',
      'CLAIM_MINT',
      'RECIPIENT_COOPERSGLASS',
      'RECIPIENT_GORILLA',
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
  ])('rejects %o with a message naming %s', (env, name) => {
    const p = problems(env);
    expect(p.length).toBeGreaterThan(0);
    expect(p.some((x) => x.startsWith(`${name}:`))).toBe(true);
  });

  it('reports every bad setting at once', () => {
    const p = problems({ PORT: 'x', MAIL_TRANSPORT: 'y', QUOTE_SECRET: 'z' });
    expect(p).toHaveLength(3);
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
  });
});
