import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { simpleParser } from 'mailparser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMailTransport, readEml } from '../../src/server/mail';
import { devMailPlugin } from '../../src/server/http/dev-mail-routes';
import { registerSecurity } from '../../src/server/http/security';
import { testSettings } from './orders-support';
import type { Settings } from '../../src/server/settings';
import { evilFacts, outgoing, SELLER, walletFacts } from '../support/mail-fixtures';

let dir: string;
let app: FastifyInstance;
let clock: number;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'claim-mail-'));
  clock = Date.parse('2025-03-01T10:00:00Z');
  app = Fastify();
  await app.register(devMailPlugin, { dir });
});
afterEach(async () => {
  await app.close();
  await rm(dir, { recursive: true, force: true });
});

const settings = (): Settings['mail'] => ({
  transport: 'file',
  dir,
  from: '$CLAIM Store <orders@claim-store.example>',
  sellerEmail: SELLER,
});

describe('file transport and /dev/mail', () => {
  it('writes one parseable .eml per message, names sorting by time, no temp files left', async () => {
    const t = createMailTransport(settings(), { now: () => (clock += 1000) });
    for (const m of outgoing(walletFacts, 'order_confirmation', 'ord_f1')) await t.send(m);
    const files = (await readdir(dir)).sort();
    expect(files).toHaveLength(2);
    expect(
      files.every((f) =>
        /^2025-03-01T10-00-0[12]-000Z-\d{6}-ord_f1-order_confirmation-(seller|buyer)-\d\.eml$/.test(f),
      ),
    ).toBe(true);
    expect(files[0]).toContain('seller');
    const [seller, buyer] = await Promise.all(
      files.map(async (f) => simpleParser(await readFile(join(dir, f)))),
    );
    expect(seller?.subject).toBe('New order: BathSalts Flower (zips)');
    expect(seller?.date?.toISOString()).toBe('2025-03-01T10:00:01.000Z');
    expect(seller?.text).toContain('Total ($CLAIM): 47,619.047619');
    expect(buyer?.subject).toBe('Your $CLAIM order: BathSalts Flower (zips)');
    expect((await readFile(join(dir, files[0]!), 'utf8')).includes('\r\n')).toBe(true);
    // our reader agrees with mailparser
    const mine = readEml(await readFile(join(dir, files[0]!), 'utf8'));
    expect(mine.subject).toBe(seller?.subject);
    expect(mine.text.trim()).toBe(seller?.text?.trim());
  });

  it('/dev/mail lists newest first and shows each message escaped', async () => {
    const t = createMailTransport(settings(), { now: () => (clock += 1000) });
    for (const m of outgoing(walletFacts, 'order_confirmation', 'ord_a')) await t.send(m);
    for (const m of outgoing(evilFacts, 'order_confirmation', 'ord_b')) await t.send(m);

    const list = await app.inject('/dev/mail');
    expect(list.statusCode).toBe(200);
    expect(list.headers['content-type']).toContain('text/html');
    const subjects = [...list.body.matchAll(/<a href="\/dev\/mail\/([^"]+)">([^<]*)<\/a>/g)];
    expect(subjects).toHaveLength(4);
    expect(subjects[0]?.[1]).toContain('ord_b-order_confirmation-buyer');
    expect(subjects[3]?.[2]).toBe('New order: BathSalts Flower (zips)');
    // Dates in the site's one format, not the header's RFC 2822 text.
    expect(list.body).toContain('<td>1 Mar 2025, 10:00 UTC</td>');
    expect(list.body).not.toContain('+0000');
    expect(list.body).not.toMatch(/<script|<img|<iframe/i);
    expect(list.body).toContain('&lt;script&gt;');

    const one = await app.inject(`/dev/mail/${subjects[0]?.[1]}`);
    expect(one.statusCode).toBe(200);
    expect(one.body).not.toMatch(/<script|<img|<b>/i);
    // The HTML part is shown in one sandboxed frame (no scripts, a unique origin), never in the page itself.
    const frames = [...one.body.matchAll(/<iframe[^>]*>/gi)].map((m) => m[0]);
    expect(frames).toEqual([
      `<iframe sandbox="allow-popups allow-popups-to-escape-sandbox" title="The message's HTML part" src="/dev/mail/${subjects[0]?.[1]}/html">`,
    ]);
    // The buyer's copy does not quote the address they typed; the seller's shows it escaped.
    expect(one.body).toContain('Shipping address: as given, shown on your order page');
    const seller = await app.inject(`/dev/mail/${subjects[1]?.[1]}`);
    expect(seller.body).not.toMatch(/<script|<img|<b>/i);
    expect(seller.body).toContain('Shipping address: &lt;img src=x onerror=&quot;alert(1)&quot;&gt;');

    for (const bad of ['..%2F..%2Fetc%2Fpasswd', '.hidden.eml', 'x.txt', 'nope.eml']) {
      expect((await app.inject(`/dev/mail/${bad}`)).statusCode).toBe(404);
    }
  });

  it("/dev/mail shows the HTML part a buyer gets, alone, sandboxed and without script, under the store's own security headers", async () => {
    const secured = Fastify();
    await registerSecurity(secured, testSettings());
    await secured.register(devMailPlugin, { dir });
    try {
      const t = createMailTransport(settings(), { now: () => (clock += 1000) });
      for (const m of outgoing(evilFacts, 'order_confirmation', 'ord_h')) await t.send(m);
      const [, buyerFile] = (await readdir(dir)).sort();
      const parsed = await simpleParser(await readFile(join(dir, buyerFile!)));
      expect(parsed.html).toBeTruthy();

      const page = await secured.inject(`/dev/mail/${buyerFile}`);
      expect(page.statusCode).toBe(200);
      const pagePolicy = String(page.headers['content-security-policy']);
      expect(pagePolicy).toContain("default-src 'none'");
      expect(pagePolicy).toContain("frame-src 'self'");
      expect(pagePolicy).not.toContain('script-src');

      const part = await secured.inject(`/dev/mail/${buyerFile}/html`);
      expect(part.statusCode).toBe(200);
      expect(part.headers['content-type']).toContain('text/html');
      // Exactly the HTML the buyer's mail program gets (links open outside the frame).
      expect(part.body).toBe(`<base target="_blank">${parsed.html as string}`);
      expect(part.body).not.toMatch(/<script|onerror=/i);
      const policy = String(part.headers['content-security-policy']);
      expect(policy).toMatch(/^sandbox allow-popups allow-popups-to-escape-sandbox;/);
      expect(policy).toContain("script-src 'none'");
      expect(policy).toContain("frame-ancestors 'self'");
      // A name that is not one of the mailbox's messages: 404.
      for (const bad of ['nope.eml', '..%2Fx.eml', 'x.txt'])
        expect((await secured.inject(`/dev/mail/${bad}/html`)).statusCode).toBe(404);
    } finally {
      await secured.close();
    }
  });

  it('/dev/mail works before any message', async () => {
    await rm(dir, { recursive: true, force: true });
    const res = await app.inject('/dev/mail');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('No messages yet.');
  });
});
