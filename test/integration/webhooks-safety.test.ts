/**
 * Webhooks, safe to point anywhere and the vendor's alone (issue 35): destinations resolving to loopback,
 * private, link-local or metadata addresses are refused when added and again at send time (a DNS answer that
 * changes in between, through the sender's resolver hook); WEBHOOKS_ALLOW_PRIVATE lets loopback through but never
 * link-local or metadata; vendor A cannot see, change, test or resend vendor B's endpoints; the secret is shown
 * once and appears in no log line, list or stored value; a sender killed with SIGKILL mid-delivery leaves the
 * event to its next life, which delivers it with the same webhook-id. A real HTTPS receiver on loopback verifies
 * every delivery with `standardwebhooks`.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  WebhookDeliveriesView,
  WebhookEndpointView,
  WebhookEndpointWithSecret,
} from '../../src/core/webhook-api';
import { catalog } from '../../catalog';
import { startServer, type RunningServer } from '../../src/server/server';
import type { Settings } from '../../src/server/settings';
import { createSealer, parseDataKeys } from '../../src/server/privacy/seal';
import { createWebhookWorker } from '../../src/server/webhooks/worker';
import type { WebhooksPart } from '../../src/server/ops/dependencies';
import { TEST_DATA_KEYS } from '../support/fixtures';
import { sellerSettings, signInSeller, injector, SITE } from '../support/seller-session';
import { startReceiver, type Receiver } from '../support/webhook-receiver';
import { testResolver, type TestResolver } from '../support/webhook-resolver';
import { sqliteBackend } from './orders-support';

const coopers = Keypair.generate();
const gorilla = Keypair.generate();
const mint = Keypair.generate().publicKey.toBase58();
const backend = sqliteBackend();

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await backend.cleanup();
});

interface Console {
  server: RunningServer;
  resolver: TestResolver;
  log: () => string;
  file: string;
  call(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    cookie: string,
    body?: unknown,
  ): Promise<{ status: number; body: string; json: <T>() => T }>;
  cookies: { coopers: string; gorilla: string };
}

async function startConsole(allowPrivate: boolean): Promise<Console> {
  const base = sellerSettings(coopers, gorilla, mint);
  const settings: Settings = { ...base, webhooks: { ...base.webhooks, allowPrivate } };
  const resolver = testResolver();
  const store = await backend.fresh();
  let logged = '';
  const logStream = new PassThrough();
  logStream.on('data', (c: Buffer) => (logged += c.toString('utf8')));
  const server = await startServer(settings, {
    store,
    listen: false,
    startOutbox: false,
    expireEveryMs: 0,
    retention: false,
    logger: true,
    logStream,
    webhooks: { resolve: resolver, extraCa: [receiver.ca], start: false, baseDelayMs: 10, maxDelayMs: 20 },
  });
  const inject = injector(() => server, SITE);
  const cookies = {
    coopers: await signInSeller(inject, coopers),
    gorilla: await signInSeller(inject, gorilla),
  };
  return {
    server,
    resolver,
    file: store.kind === 'sqlite' ? store.file : '',
    log: () => logged,
    cookies,
    async call(method, url, cookie, body) {
      const r = await server.app.inject({
        method,
        url,
        headers: { cookie, origin: SITE },
        ...(body !== undefined ? { payload: body as object } : {}),
      });
      return { status: r.statusCode, body: r.body, json: <T>() => r.json<T>() };
    },
  };
}

describe('webhook destinations, production rules (WEBHOOKS_ALLOW_PRIVATE off)', () => {
  let c: Console;
  beforeAll(async () => {
    c = await startConsole(false);
  });
  afterAll(async () => {
    await c?.server.close();
  });

  it.each([
    ['https://127.0.0.1/hook', 'loopback'],
    ['https://10.0.0.7/hook', 'private network'],
    ['https://169.254.169.254/latest/meta-data', 'metadata'],
    ['https://169.254.10.20/hook', 'link-local'],
    ['https://[::1]/hook', 'loopback'],
    ['https://ten.vendor.test/hook', 'private network'],
    ['https://linklocal.vendor.test/hook', 'link-local'],
    ['https://metadata.vendor.test/hook', 'metadata'],
    ['https://six.vendor.test/hook', 'loopback'],
    ['https://[::ffff:127.0.0.1]/hook', 'loopback'],
  ])('refuses %s when it is added (%s)', async (url, words) => {
    const r = await c.call('POST', '/api/seller/webhooks', c.cookies.coopers, { url });
    expect(r.status, r.body).toBe(400);
    expect(r.json<{ error: string; message: string; field: string }>()).toMatchObject({
      error: 'webhook_url_refused',
      field: 'url',
    });
    expect(r.json<{ message: string }>().message).toContain(words);
    const list = await c.call('GET', '/api/seller/webhooks', c.cookies.coopers);
    expect(list.json<{ endpoints: unknown[] }>().endpoints).toHaveLength(0);
  });

  it('refuses plain http and a name that does not resolve', async () => {
    for (const url of [
      'http://public.vendor.test/hook',
      'ftp://public.vendor.test/',
      'https://nowhere.vendor.test/',
    ]) {
      const r = await c.call('POST', '/api/seller/webhooks', c.cookies.coopers, { url });
      expect(r.status, url).toBe(400);
    }
  });

  it('refuses at send time a name whose answer changed to loopback after it was added', async () => {
    c.resolver.answer('93.184.215.14'); // a public answer: accepted when added
    const created = await c.call('POST', '/api/seller/webhooks', c.cookies.coopers, {
      url: `https://hooks.vendor.test:${receiver.port}/rebind`,
    });
    expect(created.status, created.body).toBe(201);
    const { endpoint, secret } = created.json<WebhookEndpointWithSecret>();
    receiver.secrets('/rebind', secret);
    c.resolver.answer('127.0.0.1'); // now it points at the shop's own machine
    expect((await c.call('POST', `/api/seller/webhooks/${endpoint.id}/test`, c.cookies.coopers)).status).toBe(
      200,
    );
    const run = await c.server.webhooks.runOnce();
    expect(run.delivered).toBe(0);
    expect(run.retrying).toBeGreaterThanOrEqual(1);
    const log = (
      await c.call('GET', `/api/seller/webhooks/${endpoint.id}/deliveries`, c.cookies.coopers)
    ).json<WebhookDeliveriesView>();
    expect(log.deliveries[0]).toMatchObject({ state: 'retrying', lastStatus: null });
    expect(log.deliveries[0]?.attempts).toBeGreaterThanOrEqual(1);
    expect(log.deliveries[0]?.lastError).toContain('loopback');
    expect(receiver.received('/rebind')).toHaveLength(0); // nothing reached the receiver on 127.0.0.1
  });
});

describe('webhook endpoints with WEBHOOKS_ALLOW_PRIVATE=1', () => {
  let c: Console;
  beforeAll(async () => {
    c = await startConsole(true);
  });
  afterAll(async () => {
    await c?.server.close();
  });

  it('lets loopback through but never link-local or metadata addresses, when added or at send time', async () => {
    for (const url of [
      'https://169.254.169.254/latest',
      'https://metadata.vendor.test/',
      'https://linklocal.vendor.test/',
      'http://169.254.169.254/',
    ]) {
      const r = await c.call('POST', '/api/seller/webhooks', c.cookies.coopers, { url });
      expect(r.status, url).toBe(400);
    }
    c.resolver.answer('127.0.0.1');
    const created = await c.call('POST', '/api/seller/webhooks', c.cookies.gorilla, {
      url: `https://hooks.vendor.test:${receiver.port}/meta`,
    });
    expect(created.status, created.body).toBe(201);
    const { endpoint } = created.json<WebhookEndpointWithSecret>();
    c.resolver.answer('169.254.169.254');
    await c.call('POST', `/api/seller/webhooks/${endpoint.id}/test`, c.cookies.gorilla);
    await c.server.webhooks.runOnce();
    const log = (
      await c.call('GET', `/api/seller/webhooks/${endpoint.id}/deliveries`, c.cookies.gorilla)
    ).json<WebhookDeliveriesView>();
    expect(log.deliveries[0]?.lastError).toContain('metadata');
    expect(receiver.received('/meta')).toHaveLength(0);
    expect((await c.call('DELETE', `/api/seller/webhooks/${endpoint.id}`, c.cookies.gorilla)).status).toBe(
      200,
    );
  });

  it("keeps each vendor's endpoints its own, and the secret out of lists, logs and the store", async () => {
    const created = await c.call('POST', '/api/seller/webhooks', c.cookies.coopers, {
      url: `${receiver.origin}/mine`,
      events: ['order.paid', 'order.shipped'],
    });
    expect(created.status, created.body).toBe(201);
    const { endpoint, secret } = created.json<WebhookEndpointWithSecret>();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    receiver.secrets('/mine', secret);

    // B sees none of A's endpoints and can do nothing to them.
    const theirs = await c.call('GET', '/api/seller/webhooks', c.cookies.gorilla);
    expect(theirs.json<{ endpoints: WebhookEndpointView[] }>().endpoints.map((e) => e.id)).not.toContain(
      endpoint.id,
    );
    for (const [method, url, body] of [
      ['PATCH', `/api/seller/webhooks/${endpoint.id}`, { paused: true }],
      ['PATCH', `/api/seller/webhooks/${endpoint.id}`, { rotateSecret: true }],
      ['DELETE', `/api/seller/webhooks/${endpoint.id}`, undefined],
      ['POST', `/api/seller/webhooks/${endpoint.id}/test`, undefined],
      ['GET', `/api/seller/webhooks/${endpoint.id}/deliveries`, undefined],
    ] as const) {
      const r = await c.call(method, url, c.cookies.gorilla, body);
      expect(r.status, `${method} ${url}`).toBe(404);
    }
    // …nor add one for A's shop.
    const forA = await c.call('POST', '/api/seller/webhooks', c.cookies.gorilla, {
      url: `${receiver.origin}/theirs`,
      vendorId: 'coopersglass',
    });
    expect(forA.status).toBe(400);

    // A's test event is delivered and verified; B cannot resend it.
    const test = await c.call('POST', `/api/seller/webhooks/${endpoint.id}/test`, c.cookies.coopers);
    const deliveryId = test.json<{ delivery: { id: string } }>().delivery.id;
    await c.server.webhooks.runOnce();
    const [got] = await receiver.waitFor('/mine', 1);
    expect(got).toMatchObject({ id: deliveryId, verified: true });
    expect(got?.event?.type).toBe('webhook.test');
    const resendByB = await c.call(
      'POST',
      `/api/seller/webhooks/${endpoint.id}/deliveries/${deliveryId}/resend`,
      c.cookies.gorilla,
    );
    expect(resendByB.status).toBe(404);
    const resend = await c.call(
      'POST',
      `/api/seller/webhooks/${endpoint.id}/deliveries/${deliveryId}/resend`,
      c.cookies.coopers,
    );
    expect(resend.status, resend.body).toBe(200);
    await c.server.webhooks.runOnce();
    const again = await receiver.waitFor('/mine', 2);
    expect(again.map((r) => r.id)).toEqual([deliveryId, deliveryId]);

    // Rotation: the new secret answered once; both secrets verify for the day of overlap.
    const rotated = await c.server.app.inject({
      method: 'PATCH',
      url: `/api/seller/webhooks/${endpoint.id}`,
      headers: { cookie: c.cookies.coopers, origin: SITE },
      payload: { rotateSecret: true },
    });
    expect(rotated.statusCode, rotated.body).toBe(200);
    const newSecret = rotated.json<WebhookEndpointWithSecret>().secret;
    expect(newSecret).not.toBe(secret);
    await c.call('POST', `/api/seller/webhooks/${endpoint.id}/test`, c.cookies.coopers);
    await c.server.webhooks.runOnce();
    const third = (await receiver.waitFor('/mine', 3))[2]!;
    expect(third.signature.split(' ')).toHaveLength(2);
    for (const s of [secret, newSecret]) {
      receiver.secrets('/mine', s);
      const { Webhook } = await import('standardwebhooks');
      expect(() =>
        new Webhook(s).verify(third.body, {
          'webhook-id': third.id,
          'webhook-timestamp': third.timestamp,
          'webhook-signature': third.signature,
        }),
      ).not.toThrow();
    }

    // The secrets are in no list, no delivery log, no log line, and sealed in the store.
    const lists = [
      (await c.call('GET', '/api/seller/webhooks', c.cookies.coopers)).body,
      (await c.call('GET', `/api/seller/webhooks/${endpoint.id}/deliveries`, c.cookies.coopers)).body,
    ];
    const stored = JSON.stringify(
      await c.server.store.db.selectFrom('webhook_endpoints').selectAll().execute(),
    );
    for (const s of [secret, newSecret]) {
      const bare = s.slice('whsec_'.length);
      for (const text of [...lists, c.log(), stored]) expect(text).not.toContain(bare);
    }
    expect(c.log()).toContain('/api/seller/webhooks'); // the log was written: the requests are in it
  });

  it('an endpoint failing for days is paused and its vendor e-mailed once', async () => {
    const created = await c.call('POST', '/api/seller/webhooks', c.cookies.gorilla, {
      url: `${receiver.origin}/down`,
    });
    const { endpoint, secret } = created.json<WebhookEndpointWithSecret>();
    receiver.secrets('/down', secret);
    receiver.answer('/down', 503, 503, 503, 503, 503, 503);
    let clock = Date.now() + 60_000; // ahead of the server, whose clock queues the test events
    const worker = createWebhookWorker({
      store: c.server.store,
      sealer: createSealer(parseDataKeys(TEST_DATA_KEYS).keys),
      settings: {
        webhooks: { allowPrivate: true, timeoutMs: 10_000, concurrency: 4, maxResponseBytes: 65_536 },
        mail: sellerSettings(coopers, gorilla, mint).mail,
      },
      catalog,
      resolve: c.resolver,
      extraCa: [receiver.ca],
      now: () => new Date(clock),
      random: () => 0,
    });
    const failures = async () => {
      await c.call('POST', `/api/seller/webhooks/${endpoint.id}/test`, c.cookies.gorilla);
      await worker.runOnce();
    };
    // GET /api/health/deps (public): the webhooks part in counts, never an endpoint's address, path or id.
    const webhooksHealth = async () => {
      const r = await c.call('GET', '/api/health/deps', '');
      expect(r.status).toBe(200);
      for (const secret of [new URL(receiver.origin).host, '/down', endpoint.id, 'gorilla'])
        expect(r.body).not.toContain(secret);
      return r.json<{ parts: { webhooks: WebhooksPart } }>().parts.webhooks;
    };
    await failures(); // day 0: failing since now, still active
    expect(await webhooksHealth()).toMatchObject({
      status: 'degraded',
      endpoints: { failing: 1 },
      waiting: expect.any(Number) as number,
    });
    expect((await webhooksHealth()).detail).toMatch(/^1 of \d+ active endpoints? failing/);
    let list = (await c.call('GET', '/api/seller/webhooks', c.cookies.gorilla)).json<{
      endpoints: WebhookEndpointView[];
    }>();
    expect(list.endpoints.find((e) => e.id === endpoint.id)).toMatchObject({ state: 'active' });
    expect(list.endpoints.find((e) => e.id === endpoint.id)?.failingSince).not.toBeNull();
    clock += 3 * 24 * 3600_000 + 1_000; // three days of failures later
    await failures();
    list = (await c.call('GET', '/api/seller/webhooks', c.cookies.gorilla)).json();
    expect(list.endpoints.find((e) => e.id === endpoint.id)).toMatchObject({
      state: 'paused',
      stateReason: 'failing',
    });
    expect(await webhooksHealth()).toMatchObject({
      status: 'degraded',
      endpoints: { failing: 0, pausedFailing: 1 },
    });
    clock += 3600_000;
    await failures(); // paused: nothing is sent, no second e-mail
    const mails = await c.server.store.db
      .selectFrom('outbox')
      .select(['kind', 'payout_group'])
      .where('kind', '=', 'webhook_failing')
      .execute();
    expect(mails).toEqual([{ kind: 'webhook_failing', payout_group: 'gorilla' }]);
    // Resumed by the vendor: what waited is sent.
    receiver.answer('/down');
    const resumed = await c.server.app.inject({
      method: 'PATCH',
      url: `/api/seller/webhooks/${endpoint.id}`,
      headers: { cookie: c.cookies.gorilla, origin: SITE },
      payload: { paused: false },
    });
    expect(resumed.json<WebhookEndpointView>()).toMatchObject({ state: 'active', failingSince: null });
    clock += 24 * 3600_000;
    const run = await worker.runOnce();
    expect(run.delivered).toBeGreaterThanOrEqual(1);
    expect((await webhooksHealth()).endpoints).toMatchObject({ failing: 0, pausedFailing: 0 });
  });

  it('a sender killed with SIGKILL mid-delivery: the next life delivers it with the same webhook-id', async () => {
    const created = await c.call('POST', '/api/seller/webhooks', c.cookies.coopers, {
      url: `${receiver.origin}/killed`,
    });
    const { endpoint, secret } = created.json<WebhookEndpointWithSecret>();
    receiver.secrets('/killed', secret);
    receiver.answer('/killed', 'hang');
    const test = await c.call('POST', `/api/seller/webhooks/${endpoint.id}/test`, c.cookies.coopers);
    const deliveryId = test.json<{ delivery: { id: string } }>().delivery.id;

    const caFile = join(c.file, '..', 'ca.pem');
    writeFileSync(caFile, receiver.ca);
    const instance = 'doomed-sender:3000';
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/support/webhook-sender.ts', c.file, caFile, instance],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const first = await receiver.waitFor('/killed', 1, 45_000).catch((err: unknown) => {
      throw new Error(`${String(err)}\n${stderr}`);
    });
    expect(first[0]).toMatchObject({ id: deliveryId, verified: true });
    child.kill('SIGKILL');
    await exited;
    const held = await c.server.store.db
      .selectFrom('webhook_deliveries')
      .select(['state', 'lock_token'])
      .where('id', '=', deliveryId)
      .executeTakeFirstOrThrow();
    expect(held.state).toBe('pending');
    expect(held.lock_token?.startsWith(`${instance}/`)).toBe(true);

    // The instance starts again (same instance id): it releases its old claim and delivers.
    const restarted = createWebhookWorker({
      store: c.server.store,
      sealer: createSealer(parseDataKeys(TEST_DATA_KEYS).keys),
      settings: {
        webhooks: { allowPrivate: true, timeoutMs: 10_000, concurrency: 4, maxResponseBytes: 65_536 },
        mail: sellerSettings(coopers, gorilla, mint).mail,
      },
      catalog,
      resolve: c.resolver,
      extraCa: [receiver.ca],
      instanceId: instance,
    });
    expect(await restarted.releaseOwnLeases()).toBe(1);
    expect(await restarted.runOnce()).toMatchObject({ delivered: 1 });
    const both = await receiver.waitFor('/killed', 2);
    expect(both.map((r) => r.id)).toEqual([deliveryId, deliveryId]);
    expect(both[1]?.verified).toBe(true);
  });
});
