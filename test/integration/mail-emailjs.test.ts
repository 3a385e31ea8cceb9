import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMailTransport, EMAILJS_LIB_VERSION, PermanentMailError } from '../../src/server/mail';
import { createEmailJsTransport } from '../../src/server/mail/emailjs-transport';
import type { Settings } from '../../src/server/settings';
import { evilFacts, outgoing, qrFacts, SELLER, walletFacts } from '../support/mail-fixtures';

/** A fake EmailJS send endpoint answering like the real one (200 'OK', 400 text, 429). */
let server: Server;
let base: string;
let hits: { at: number; path: string; contentType: string; body: unknown }[];
let answer: (body: Record<string, unknown>) => [number, string];

beforeEach(async () => {
  hits = [];
  answer = (b) =>
    typeof b.user_id === 'string' && b.user_id ? [200, 'OK'] : [400, 'The user_id parameter is required'];
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      hits.push({
        at: performance.now(),
        path: `${req.method} ${req.url}`,
        contentType: req.headers['content-type'] ?? '',
        body,
      });
      const [status, text] = answer(body);
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(text);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

const settings = (over: Partial<NonNullable<Settings['mail']['emailjs']>> = {}): Settings['mail'] => ({
  transport: 'emailjs',
  dir: 'unused',
  from: 'x',
  sellerEmail: SELLER,
  emailjs: {
    apiUrl: base,
    serviceId: 'service_abc',
    userId: 'public_key_1',
    accessToken: 'private_token_1',
    templates: {
      seller: { coopersglass: 'tmpl_seller_glass', gorilla: 'tmpl_seller_gorilla' },
      buyer: 'tmpl_buyer',
    },
    ...over,
  },
});

describe('emailjs transport against a fake EmailJS', () => {
  it('posts the exact JSON, seller template per vendor group then the buyer template, ≥1 s apart', async () => {
    // The spacing is the transport's, on its own clock: a virtual one here (its sleeps advance it), so the gaps are
    // exact and nothing depends on how fast this machine is. Requests are recorded when the transport starts them.
    let clock = 1_000_000;
    const sleeps: number[] = [];
    const starts: number[] = [];
    const t = createEmailJsTransport(settings().emailjs!, {
      now: () => clock,
      sleep: async (ms) => {
        sleeps.push(ms);
        clock += ms;
      },
      fetch: ((input: string | URL | Request, init?: RequestInit) => {
        starts.push(clock);
        return fetch(input, init);
      }) as typeof fetch,
    });
    const [seller, buyer] = outgoing(walletFacts, 'order_confirmation', 'ord_e1');
    const [paid] = outgoing(qrFacts, 'payment_received', 'ord_e2');
    // fired together: the transport serializes and spaces them itself
    await Promise.all([t.send(seller!), t.send(buyer!), t.send({ ...paid!, payoutGroup: 'coopersglass' })]);

    expect(hits.map((h) => h.path)).toEqual(Array(3).fill('POST /api/v1.0/email/send'));
    expect(hits.every((h) => h.contentType === 'application/json')).toBe(true);
    expect(hits[0]?.body).toEqual({
      lib_version: EMAILJS_LIB_VERSION,
      user_id: 'public_key_1',
      service_id: 'service_abc',
      template_id: 'tmpl_seller_gorilla',
      template_params: {
        from_name: 'Ada Lovelace',
        email: 'ada@example.com',
        shippingAddress: '12 St James Square, London, Greater London, SW1Y 4JH, United Kingdom',
        product: 'BathSalts Flower (zips)',
        totalUSD: '200.00',
        totalCLAIM: '47,619.047619', // the spec's field; six decimals, thousands separators for reading
        to_name: 'Seller',
        seller_email: SELLER,
        quantity: '1',
      },
      accessToken: 'private_token_1',
    });
    expect(hits[1]?.body).toMatchObject({
      template_id: 'tmpl_buyer',
      template_params: { to_name: 'Ada Lovelace' },
    });
    expect((hits[1]?.body as { template_params: object }).template_params).not.toHaveProperty('seller_email');
    expect(hits[2]?.body).toMatchObject({
      template_id: 'tmpl_seller_glass',
      template_params: { quantity: '2', totalCLAIM: 'N/A', solanaPayURL: qrFacts.solanaPayUrl },
    });
    expect(starts).toHaveLength(3);
    // EmailJS allows one request a second: each later request waited, and started at least 1 s after the previous.
    expect(sleeps).toHaveLength(2);
    for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(1000);
  });

  it('passes hostile values as data, unchanged (EmailJS templates escape them)', async () => {
    const t = createMailTransport(settings());
    const [seller] = outgoing(evilFacts);
    await t.send(seller!);
    const body = hits[0]?.body as { template_params: Record<string, string> };
    expect(body.template_params.from_name).toBe(evilFacts.shipping?.fullName);
  });

  it('400 is permanent (with the reason), 429 and 5xx are retryable, and a failure does not jam the queue', async () => {
    const [seller] = outgoing(walletFacts);
    const bad = createMailTransport(settings({ userId: '' }));
    const e400 = await bad.send(seller!).catch((e: unknown) => e);
    expect(e400).toBeInstanceOf(PermanentMailError);
    expect((e400 as Error).message).toContain('The user_id parameter is required');

    const t = createMailTransport(settings());
    answer = () => [429, 'Too Many Requests'];
    const e429 = await t.send(seller!).catch((e: unknown) => e);
    expect(e429).toBeInstanceOf(Error);
    expect(e429).not.toBeInstanceOf(PermanentMailError);
    answer = () => [502, 'Bad Gateway'];
    const e502 = await t.send(seller!).catch((e: unknown) => e);
    expect(e502).not.toBeInstanceOf(PermanentMailError);
    answer = () => [200, 'OK'];
    await expect(t.send(seller!)).resolves.toBeUndefined();
    expect(hits).toHaveLength(4);
  });

  it('network failure is retryable', async () => {
    const t = createMailTransport({
      ...settings(),
      emailjs: { ...settings().emailjs!, apiUrl: 'http://127.0.0.1:1' },
    });
    const err = await t.send(outgoing(walletFacts)[0]!).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(PermanentMailError);
  });
});
