/**
 * Bad input never gives a 5xx: every /api route gets a few hundred malformed requests (wrong content types,
 * invalid JSON, bodies over the limit, deep nesting, wrong types, unicode, nulls, extra fields, bad
 * Idempotency-Key headers, bad ids), in-process through startServer on a temp SQLite file. Every answer must be
 * a 4xx with a JSON {error, message} body, and no order, idempotency key, history or outbox row may be written.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoKeys } from '../support/demo-keypairs';
import { createPriceService, type PriceService } from '../../src/server/price/index';
import { pricePlugin } from '../../src/server/http/price-routes';
import { startServer, type RunningServer } from '../../src/server/server';
import { loadSettings } from '../../src/server/settings';
import { INTERNATIONAL_SHIPPING } from '../support/fixtures';
import { payoutAccountsAssumedToExist } from '../support/payout-accounts';

let dir: string;
let server: RunningServer;
let price: PriceService;
let validQuote: string;

const SHIPPING = INTERNATIONAL_SHIPPING;
const UNKNOWN_ORDER = '2b6f0cc9-0f3a-4f39-9a53-8f5a6c1d2e3f';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'claim-fuzz-'));
  const k = demoKeys();
  const settings = loadSettings(
    {
      PORT: '0',
      DATABASE_URL: join(dir, 'store.sqlite'),
      MAIL_DIR: join(dir, 'mail'),
      RATE_LIMIT_ORDERS_PER_MINUTE: '0',
    },
    {
      claimMint: k.mint.toBase58(),
      recipients: {
        coopersglass: k.recipients.coopersglass.toBase58(),
        gorilla: k.recipients.gorilla.toBase58(),
      },
    },
  );
  const upstream = JSON.stringify({
    pairs: [
      {
        pairAddress: settings.price.pairAddress,
        priceUsd: '0.0042',
        liquidity: { usd: 48210.55, base: 5739350, quote: 171.3 },
      },
    ],
  });
  price = createPriceService(settings.price, {
    fetch: (async () => new Response(upstream)) as typeof fetch,
    claimMint: settings.claimMint,
  });
  await price.start();
  server = await startServer(settings, {
    payoutAccounts: payoutAccountsAssumedToExist,
    listen: false,
    startOutbox: false,
    expireEveryMs: 0,
    priceSource: { current: () => price.current() },
    plugins: [async (app) => void (await app.register(pricePlugin, { service: price }))],
  });
  const q = await server.app.inject({
    method: 'POST',
    url: '/api/quotes',
    payload: { items: [{ productId: 'lilac-tiptop', quantity: 1 }] },
  });
  expect(q.statusCode).toBe(200);
  validQuote = (q.json() as { quote: string }).quote;
});

afterAll(async () => {
  await server?.close();
  await price?.stop();
  rmSync(dir, { recursive: true, force: true });
});

// ---- generators ---------------------------------------------------------------------------------------------

/** Values that are invalid for every field of our request bodies. */
const BAD_LEAVES: unknown[] = [
  null,
  0,
  -1,
  1.5,
  1e308,
  '',
  ' ',
  'x'.repeat(300),
  '\u0000abc',
  'a\u202ebc\u0007',
  [],
  {},
  true,
  false,
  ['x'],
  { $gt: '' },
];

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Every single-point mutation of `base`: each leaf or subtree replaced by each bad value, each key removed. */
function mutations(base: Json): Json[] {
  const out: Json[] = [];
  const walk = (node: Json, rebuild: (v: Json | undefined) => Json) => {
    if (node !== null && typeof node === 'object') {
      const entries = Array.isArray(node) ? node.map((v, i) => [i, v] as const) : Object.entries(node);
      for (const [key, child] of entries) {
        const set = (v: Json | undefined): Json => {
          if (Array.isArray(node)) {
            const copy = [...node];
            if (v === undefined) copy.splice(key as number, 1);
            else copy[key as number] = v;
            return rebuild(copy);
          }
          const copy: { [k: string]: Json } = { ...node };
          if (v === undefined) delete copy[key as string];
          else copy[key as string] = v;
          return rebuild(copy);
        };
        out.push(set(undefined));
        for (const bad of BAD_LEAVES) out.push(set(bad as Json));
        walk(child, set);
      }
    }
  };
  walk(base, (v) => v as Json);
  // Extra fields at the top and in every nested object.
  if (base && typeof base === 'object' && !Array.isArray(base)) {
    out.push(
      { ...base, extra: 1 },
      { ...base, __proto__x: { admin: true } },
      { ...base, constructor: { prototype: { x: 1 } } },
    );
  }
  return out;
}

const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
const deepObj = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

/** Raw bodies with the content type they claim. */
const RAW_BODIES: { contentType?: string; payload: string | Buffer }[] = [
  { contentType: 'application/json', payload: '' },
  { contentType: 'application/json', payload: '{' },
  { contentType: 'application/json', payload: '{"items": [' },
  { contentType: 'application/json', payload: "{'items': []}" },
  { contentType: 'application/json', payload: 'NaN' },
  { contentType: 'application/json', payload: 'undefined' },
  { contentType: 'application/json', payload: 'null' },
  { contentType: 'application/json', payload: '[]' },
  { contentType: 'application/json', payload: '1' },
  { contentType: 'application/json', payload: '"str"' },
  { contentType: 'application/json', payload: 'true' },
  { contentType: 'application/json', payload: '\uFEFF{}' },
  { contentType: 'application/json', payload: '{"__proto__": {"polluted": true}}' },
  { contentType: 'application/json', payload: '{"constructor": {"prototype": {"polluted": true}}}' },
  { contentType: 'application/json', payload: '{"a":1,"a":2}' },
  { contentType: 'application/json', payload: Buffer.from([0xff, 0xfe, 0xfd, 0x00, 0x7b]) },
  { contentType: 'application/json', payload: '{"s":"\\ud800"}' },
  { contentType: 'application/json', payload: deep(5_000) },
  { contentType: 'application/json', payload: deep(20_000) },
  { contentType: 'application/json', payload: deepObj(3_000) },
  { contentType: 'application/json', payload: JSON.stringify({ items: 'x'.repeat(70 * 1024) }) },
  { contentType: 'application/json', payload: `[${'1,'.repeat(40_000)}1]` },
  { contentType: 'application/json; charset=utf-16', payload: '{}' },
  { contentType: 'application/json; charset=latin1', payload: '{}' },
  { contentType: 'text/plain', payload: '{"items":[]}' },
  { contentType: 'text/html', payload: '<h1>hi</h1>' },
  { contentType: 'application/xml', payload: '<items/>' },
  { contentType: 'application/x-www-form-urlencoded', payload: 'items=1&quote=x' },
  {
    contentType: 'multipart/form-data; boundary=x',
    payload: '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--',
  },
  { contentType: 'application/octet-stream', payload: Buffer.alloc(100, 1) },
  { contentType: 'application/json', payload: Buffer.alloc(65 * 1024 + 1, 0x20) },
  { contentType: '', payload: '{}' },
  { contentType: ';;;', payload: '{}' },
  { contentType: 'application/jsonx', payload: '{}' },
];

const RANDOM_JSON: Json[] = fc.sample(fc.jsonValue({ maxDepth: 4 }) as fc.Arbitrary<Json>, {
  numRuns: 150,
  seed: 20_251_123,
});

const BAD_IDS = [
  'x',
  '0',
  '../../etc/passwd',
  '%2e%2e%2f',
  '%00',
  'null',
  'undefined',
  UNKNOWN_ORDER.toUpperCase(),
  `${UNKNOWN_ORDER}0`,
  ' '.repeat(3),
  '%F0%9F%92%A5',
  '%ED%A0%80', // lone surrogate, UTF-8 encoded
  '%FF',
  'a'.repeat(2_000),
  '1 OR 1=1',
  "'; drop table orders; --",
  UNKNOWN_ORDER, // well-formed, unknown
];

const BAD_KEYS: (string | undefined)[] = [
  undefined,
  '',
  ' ',
  'a b',
  'k'.repeat(129),
  'ключ',
  '💥',
  'tab\there',
  '\u0000',
  'a, b',
];

// ---- the run ------------------------------------------------------------------------------------------------

interface Problem {
  request: string;
  status: number;
  body: string;
}

async function send(opts: InjectOptions, problems: Problem[], label: string): Promise<number> {
  let res;
  try {
    res = await server.app.inject(opts);
  } catch (err) {
    // light-my-request refuses some header values itself (like Node's http client would): not our server's answer.
    if (err instanceof TypeError || (err as { code?: string }).code === 'ERR_INVALID_CHAR') return 0;
    throw err;
  }
  const ok4xx = res.statusCode >= 400 && res.statusCode < 500;
  let body: { error?: unknown; message?: unknown } | undefined;
  try {
    body = res.json();
  } catch {
    body = undefined;
  }
  const shapeOk =
    typeof body?.error === 'string' &&
    typeof body.message === 'string' &&
    String(res.headers['content-type']).startsWith('application/json');
  if (!ok4xx || !shapeOk)
    problems.push({ request: label, status: res.statusCode, body: res.body.slice(0, 300) });
  return 1;
}

function jsonBodies(base: Json): { contentType?: string; payload: string | Buffer; label: string }[] {
  return [
    ...RAW_BODIES.map((b, i) => ({ ...b, label: `raw#${i}` })),
    ...mutations(base).map((m, i) => ({
      contentType: 'application/json',
      payload: JSON.stringify(m),
      label: `mutation#${i}`,
    })),
    ...RANDOM_JSON.map((j, i) => ({
      contentType: 'application/json',
      payload: JSON.stringify(j),
      label: `random#${i}`,
    })),
  ];
}

async function postAll(
  url: string,
  base: Json,
  headers: Record<string, string>,
  problems: Problem[],
): Promise<number> {
  let n = 0;
  for (const b of jsonBodies(base)) {
    const h: Record<string, string> = { ...headers };
    if (b.contentType !== undefined) h['content-type'] = b.contentType;
    n += await send(
      { method: 'POST', url, headers: h, payload: b.payload },
      problems,
      `POST ${url} ${b.label} ${String(b.payload).slice(0, 80)}`,
    );
  }
  return n;
}

describe('API fuzz: malformed requests get a 4xx with an ApiError body and change nothing', () => {
  it('POST /api/quotes', async () => {
    const problems: Problem[] = [];
    const n = await postAll(
      '/api/quotes',
      { items: [{ productId: 'lilac-tiptop', quantity: 1 }] },
      {},
      problems,
    );
    expect(n).toBeGreaterThan(200);
    expect(problems).toEqual([]);
  });

  it('POST /api/orders (bodies, then Idempotency-Key headers)', async () => {
    const problems: Problem[] = [];
    const base: Json = { quote: validQuote, shipping: SHIPPING, paymentMethod: 'wallet' };
    let n = await postAll('/api/orders', base, { 'idempotency-key': 'fuzz-key' }, problems);
    // Tampered and foreign quote tokens.
    const [body, mac] = validQuote.split('.');
    for (const quote of [
      '',
      '.',
      'a.b',
      `${body}.`,
      `.${mac}`,
      `${body}x.${mac}`,
      `${body}.${mac}x`,
      `${mac}.${body}`,
      `${body}.${mac}.${mac}`,
      'q'.repeat(60_000),
      '💥.💥',
    ]) {
      n += await send(
        {
          method: 'POST',
          url: '/api/orders',
          headers: { 'idempotency-key': `tok-${n}` },
          payload: { ...(base as object), quote },
        },
        problems,
        `POST /api/orders quote=${quote.slice(0, 40)}`,
      );
    }
    // A valid body with every bad key (absent, empty, too long, non-ASCII, control characters, two keys joined).
    for (const key of BAD_KEYS) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (key !== undefined) headers['idempotency-key'] = key;
      n += await send(
        { method: 'POST', url: '/api/orders', headers, payload: JSON.stringify(base) },
        problems,
        `POST /api/orders key=${JSON.stringify(key)}`,
      );
    }
    expect(n).toBeGreaterThan(200);
    expect(problems).toEqual([]);
  });

  it('GET /api/orders/:id, POST …/confirmation and …/payment with bad ids and bodies', async () => {
    const problems: Problem[] = [];
    let n = 0;
    for (const id of BAD_IDS) {
      n += await send(
        { method: 'GET', url: `/api/orders/${id}` },
        problems,
        `GET /api/orders/${id.slice(0, 40)}`,
      );
      n += await send(
        { method: 'POST', url: `/api/orders/${id}/confirmation` },
        problems,
        `POST confirmation ${id.slice(0, 40)}`,
      );
      n += await send(
        { method: 'POST', url: `/api/orders/${id}/payment`, payload: { signature: '5'.repeat(88) } },
        problems,
        `POST payment ${id.slice(0, 40)}`,
      );
    }
    n += await postAll(`/api/orders/${UNKNOWN_ORDER}/payment`, { signature: '5'.repeat(88) }, {}, problems);
    n += await postAll(`/api/orders/${UNKNOWN_ORDER}/confirmation`, {}, {}, problems);
    expect(n).toBeGreaterThan(200);
    expect(problems).toEqual([]);
  });

  it('GET routes and unknown methods/paths under /api', async () => {
    const problems: Problem[] = [];
    let n = 0;
    const gets = ['/api/health', '/api/catalog', '/api/config', '/api/price', '/api/price/history'];
    for (const url of gets) {
      // Query strings and headers are ignored by these routes: they must answer 200 whatever they get.
      for (const q of ['?a=1', '?a[b]=1&a[c]=2', `?${'x'.repeat(8_000)}=1`, '?%FF', '?__proto__[x]=1']) {
        const res = await server.app.inject({
          method: 'GET',
          url: `${url}${q}`,
          headers: { accept: 'text/html', 'accept-encoding': 'br;q=0' },
        });
        expect(res.statusCode, `${url}${q}`).toBe(200);
      }
      // A body on a GET, and methods the route does not have.
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
        n += await send(
          { method, url, payload: '{"x":1}', headers: { 'content-type': 'application/json' } },
          problems,
          `${method} ${url}`,
        );
      }
    }
    for (const url of [
      '/api',
      '/api/',
      '/api/nope',
      '/api/orders',
      '/api/quotes',
      '/api/orders//payment',
      `/api/orders/${UNKNOWN_ORDER}/nope`,
      '/api/%FF',
    ]) {
      for (const method of ['GET', 'PUT', 'DELETE'] as const)
        n += await send({ method, url }, problems, `${method} ${url}`);
    }
    expect(n).toBeGreaterThan(40);
    expect(problems).toEqual([]);
  });

  it('wrote no order, idempotency key, history or outbox row', async () => {
    const db = server.store.db;
    const count = async (table: 'orders' | 'idempotency_keys' | 'order_history' | 'outbox') =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    expect(await count('orders')).toBe(0);
    expect(await count('idempotency_keys')).toBe(0);
    expect(await count('order_history')).toBe(0);
    expect(await count('outbox')).toBe(0);
  });
});
