import { describe, expect, it } from 'vitest';
import { loadSettings, SettingsError } from '../settings';
import { clientKey, clientKeyOf } from './security';

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

function problems(env: Record<string, string>): string[] {
  try {
    loadSettings(env, demo);
  } catch (err) {
    if (err instanceof SettingsError) return err.problems;
    throw err;
  }
  return [];
}

describe('client key (rate limits and the hold cap count clients by it)', () => {
  it('an IPv4 address is itself, an IPv4-mapped IPv6 address is its IPv4 address', () => {
    expect(clientKeyOf('203.0.113.7')).toBe('203.0.113.7');
    expect(clientKeyOf('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientKeyOf('::ffff:cb00:7107')).toBe('203.0.113.7');
    expect(clientKey({ ip: '198.51.100.1' })).toBe('198.51.100.1');
  });

  it('an IPv6 address counts as its /64, however it is written', () => {
    const key = '2001:db8:1:2::/64';
    for (const ip of [
      '2001:db8:1:2::1',
      '2001:0db8:0001:0002:ffff:ffff:ffff:ffff',
      '2001:DB8:1:2:aaaa::9',
      '2001:db8:1:2:0:0:0:0',
      '2001:db8:1:2::1%eth0',
      '2001:db8:1:2::192.0.2.1',
    ])
      expect(clientKeyOf(ip), ip).toBe(key);
    expect(clientKeyOf('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(clientKeyOf('::1')).toBe('0:0:0:0::/64');
    expect(clientKeyOf('fe80::1')).toBe('fe80:0:0:0::/64');
  });

  it('production refuses TRUST_PROXY=true in words, and takes a hop count or the proxies’ addresses', () => {
    expect(problems({ ...production, TRUST_PROXY: 'true' })).toEqual([
      expect.stringMatching(/^TRUST_PROXY: 'true' trusts every X-Forwarded-For hop.*number of proxies/),
    ]);
    expect(problems({ ...production, TRUST_PROXY: 'on' })[0]).toMatch(/^TRUST_PROXY: /);
    expect(loadSettings({ ...production, TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadSettings({ ...production, TRUST_PROXY: '10.0.0.0/8' }).trustProxy).toEqual(['10.0.0.0/8']);
    expect(loadSettings({ ...production, TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    // Demo mode (one machine, tests) keeps it.
    expect(loadSettings({ TRUST_PROXY: 'true' }, demo).trustProxy).toBe(true);
  });
});
