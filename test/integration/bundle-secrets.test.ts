/**
 * Secrets never reach the browser: nothing under dist/web (the built app, every asset and source map) names or
 * contains a secret setting, the seller's e-mail, or server-only code; GET /api/config answers the allow-list only.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../catalog';
import { demoKeys } from '../support/demo-keypairs';
import { buildApp } from '../../src/server/app';
import { loadSettings } from '../../src/server/settings';
import { ensureWebBuild } from '../support/prepare';

const ROOT = resolve(import.meta.dirname, '../..');
const WEB_DIR = join(ROOT, 'dist/web');

/** Secret values for the config check and the demo defaults the bundle must not contain either. */
const SECRETS = {
  SELLER_EMAIL: 'seller-secret@shop.test',
  QUOTE_SECRET: 'quote-secret-0123456789-0123456789-zzzz',
  EMAILJS_ACCESS_TOKEN: 'emailjs-access-token-secret-value',
  SMTP_URL: 'smtp://mailer:smtp-password-secret@mail.shop.test:587',
};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

let bundle: { file: string; text: string }[] = [];

beforeAll(() => {
  // The build of the current sources (not whatever an older build left in dist/).
  ensureWebBuild();
  bundle = files(WEB_DIR).map((f) => ({ file: relative(WEB_DIR, f), text: readFileSync(f, 'latin1') }));
}, 180_000);

describe('the browser bundle (dist/web)', () => {
  it('has an index.html and JavaScript to scan', () => {
    expect(bundle.some((f) => f.file === 'index.html')).toBe(true);
    expect(bundle.filter((f) => f.file.endsWith('.js')).length).toBeGreaterThan(0);
  });

  const forbidden: [string, string][] = [
    ['the demo seller e-mail', 'seller@example.test'],
    ['the demo quote secret', 'demo-quote-secret-not-for-production-use'],
    ['SELLER_EMAIL', 'SELLER_EMAIL'],
    ['QUOTE_SECRET', 'QUOTE_SECRET'],
    ['EMAILJS_ACCESS_TOKEN', 'EMAILJS_ACCESS_TOKEN'],
    ['SMTP_URL', 'SMTP_URL'],
    ['better-sqlite3', 'better-sqlite3'],
    ['nodemailer', 'nodemailer'],
    ['kysely', 'kysely'],
    ['server source paths', 'src/server'],
    ['the settings module', 'loadSettings'],
    ['the order service', 'createOrderService'],
    ['the store', 'store_migration'],
    ['the quote signer', 'signQuote'],
    ['the mail outbox', 'createOutboxWorker'],
  ];
  for (const [what, needle] of forbidden) {
    it(`contains no ${what}`, () => {
      const hits = bundle
        .filter((f) => f.text.toLowerCase().includes(needle.toLowerCase()))
        .map((f) => f.file);
      expect(hits).toEqual([]);
    });
  }

  it('has no inline script in index.html', () => {
    const html = bundle.find((f) => f.file === 'index.html')?.text ?? '';
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attrs, body] of scripts) {
      expect(attrs).toMatch(/\bsrc=/);
      expect(body?.trim()).toBe('');
    }
    expect(html).not.toMatch(/\son[a-z]+\s*=/i); // no inline event handlers
  });
});

describe('GET /api/config', () => {
  it('answers exactly the allow-listed keys, and no secret value', async () => {
    const k = demoKeys();
    const settings = loadSettings(
      { PORT: '0', MAIL_TRANSPORT: 'smtp', ...SECRETS },
      {
        claimMint: k.mint.toBase58(),
        recipients: {
          coopersglass: k.recipients.coopersglass.toBase58(),
          gorilla: k.recipients.gorilla.toBase58(),
        },
      },
    );
    const app = await buildApp({ settings, catalog });
    try {
      const res = await app.inject({ method: 'GET', url: '/api/config' });
      expect(res.statusCode).toBe(200);
      expect(Object.keys(res.json() as object).sort()).toEqual([
        'claimMint',
        'cluster',
        'demo',
        'pairAddress',
        'rpcUrl',
        'wsUrl',
      ]);
      for (const value of [...Object.values(SECRETS), 'smtp-password-secret', settings.quote.secret])
        expect(res.body).not.toContain(value);
      // The catalogue is public data: it must not carry settings either.
      const cat = await app.inject({ method: 'GET', url: '/api/catalog' });
      for (const value of Object.values(SECRETS)) expect(cat.body).not.toContain(value);
    } finally {
      await app.close();
    }
  });
});
