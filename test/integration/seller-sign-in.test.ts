/**
 * Seller sign-in checked field by field against the request issued for its nonce, with the Wallet Standard's own
 * code as the referee (`@solana/wallet-standard-util`: `createSignInMessageText`, `verifySignIn`), and the
 * wallet's sessions (listed, ended, replaced, purged on the housekeeping schedule). In-process (app.inject)
 * against a real store: a SQLite file, and PostgreSQL when TEST_DATABASE_URL is set. A localnet shop, so the
 * chain id it issues is `localnet`.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Keypair } from '@solana/web3.js';
import { createSignInMessageText, verifySignIn } from '@solana/wallet-standard-util';
import nacl from 'tweetnacl';
import type { SellerMe, SellerSessionList } from '../../src/core/seller-api';
import type { SiwsFields, SiwsRequest } from '../../src/core/siws';
import { startServer, type RunningServer } from '../../src/server/server';
import { loadSettings, type Settings } from '../../src/server/settings';
import { TEST_DATA_KEYS } from '../support/fixtures';
import { Clock, keys, postgresBackend, sqliteBackend, TestPrice, type Backend } from './orders-support';
import { payoutAccountsAssumedToExist } from '../support/payout-accounts';

const SITE = 'https://shop.example';
const coopers = Keypair.generate();
const gorilla = Keypair.generate();

function settings(): Settings {
  return loadSettings({
    SOLANA_RPC_URL: 'http://127.0.0.1:9',
    MIGRATE_ON_START: '1', // a fresh store per test: migrated at start (the release step: migrate.test.ts)
    SOLANA_CLUSTER: 'localnet',
    PRICE_API_URL: 'http://127.0.0.1:9',
    QUOTE_SECRET: 'test-secret-0123456789-0123456789-abcdef',
    SELLER_EMAIL: 'seller@shop.test',
    CLAIM_MINT: keys.mint,
    RECIPIENT_COOPERSGLASS: coopers.publicKey.toBase58(),
    RECIPIENT_GORILLA: gorilla.publicKey.toBase58(),
    PUBLIC_URL: SITE,
    PORT: '0',
    MAIL_TRANSPORT: 'file',
    DATA_KEYS: TEST_DATA_KEYS,
  });
}

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';
const SAFARI_IOS =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1';

/** A field of the issued request changed, added or removed; undefined removes it. */
type Change = [what: string, field: keyof SiwsFields, change: (r: SiwsRequest) => Partial<SiwsFields>];
const CHANGES: Change[] = [
  ['another domain', 'domain', () => ({ domain: 'evil.example' })],
  ['another statement', 'statement', () => ({ statement: 'Sign in to evil.example.' })],
  ['no statement', 'statement', () => ({ statement: undefined })],
  ['another URI', 'uri', () => ({ uri: 'https://evil.example' })],
  ['no URI', 'uri', () => ({ uri: undefined })],
  ['Version: 2', 'version', () => ({ version: '2' })],
  ['no Version', 'version', () => ({ version: undefined })],
  ['Chain ID mainnet on a localnet shop', 'chainId', () => ({ chainId: 'mainnet' })],
  ['no Chain ID', 'chainId', () => ({ chainId: undefined })],
  [
    'another issued-at',
    'issuedAt',
    (r) => ({ issuedAt: new Date(Date.parse(r.issuedAt) - 1000).toISOString() }),
  ],
  ['no Issued At', 'issuedAt', () => ({ issuedAt: undefined })],
  [
    'an expiry a year out',
    'expirationTime',
    (r) => ({ expirationTime: new Date(Date.parse(r.issuedAt) + 365 * 86_400_000).toISOString() }),
  ],
  ['no Expiration Time', 'expirationTime', () => ({ expirationTime: undefined })],
  ['a Not Before', 'notBefore', (r) => ({ notBefore: r.issuedAt })],
  ['a Request ID', 'requestId', () => ({ requestId: 'req-1' })],
  ['other resources', 'resources', () => ({ resources: ['https://evil.example/admin'] })],
  ['no Resources', 'resources', () => ({ resources: undefined })],
];

const backends = [sqliteBackend(), postgresBackend()];

describe.each(backends)('seller sign-in on $name', (backend: Backend) => {
  describe.runIf(backend.enabled)(`${backend.name} store`, () => {
    let server: RunningServer;
    let clock: Clock;

    async function start(expireEveryMs = 0) {
      clock = new Clock();
      server = await startServer(settings(), {
        payoutAccounts: payoutAccountsAssumedToExist,
        store: await backend.fresh(),
        priceSource: new TestPrice(clock, '0.5'),
        now: clock.now,
        listen: false,
        startOutbox: false,
        expireEveryMs,
      });
    }
    afterEach(async () => {
      await server?.close();
    });
    afterAll(async () => {
      await backend.cleanup();
    });

    const inject = (
      method: 'GET' | 'POST' | 'DELETE',
      url: string,
      opts: { body?: unknown; cookie?: string; ua?: string } = {},
    ) =>
      server.app.inject({
        method,
        url,
        ...(opts.body !== undefined ? { payload: opts.body as object } : {}),
        headers: {
          ...(opts.cookie ? { cookie: opts.cookie } : {}),
          ...(opts.ua ? { 'user-agent': opts.ua } : {}),
        },
      });
    async function nonce(): Promise<SiwsRequest> {
      const r = await inject('GET', '/api/seller/nonce');
      expect(r.statusCode, r.body).toBe(200);
      return r.json<SiwsRequest>();
    }
    /** The standard's own text of the request with changes, signed by `key`. */
    function signed(key: Keypair, fields: Omit<SiwsFields, 'address'>, tail = '') {
      const address = key.publicKey.toBase58();
      const message = createSignInMessageText({ ...fields, address }) + tail;
      const signature = nacl.sign.detached(new TextEncoder().encode(message), key.secretKey);
      return {
        body: { message, signature: Buffer.from(signature).toString('base64') },
        output: {
          account: { address, publicKey: key.publicKey.toBytes(), chains: [], features: [] },
          signedMessage: new TextEncoder().encode(message),
          signature,
        },
      };
    }
    const cookieOf = (r: { headers: Record<string, unknown> }) =>
      `claim_seller=${/claim_seller=([^;]*)/.exec(String(r.headers['set-cookie']))![1]}`;
    async function signInAs(key: Keypair, opts: { cookie?: string; ua?: string } = {}) {
      const r = await inject('POST', '/api/seller/session', {
        body: signed(key, await nonce()).body,
        ...opts,
      });
      expect(r.statusCode, r.body).toBe(200);
      return cookieOf(r);
    }

    describe('the signed message against the issued request', () => {
      beforeEach(() => start());

      it('issues every field for this site and cluster, and stores the request per nonce', async () => {
        const request = await nonce();
        expect(request).toEqual({
          domain: 'shop.example',
          statement: 'Sign in to the $CLAIM seller console with your payout wallet.',
          uri: SITE,
          version: '1',
          chainId: 'localnet',
          nonce: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{16,24}$/),
          issuedAt: clock.now().toISOString(),
          expirationTime: new Date(clock.ms + 5 * 60_000).toISOString(),
          resources: [`${SITE}/seller`],
        });
        const row = await server.store.db
          .selectFrom('seller_nonces')
          .selectAll()
          .where('nonce', '=', request.nonce)
          .executeTakeFirstOrThrow();
        expect(JSON.parse(row.request_json!)).toEqual(request);
      });

      it("signs in with the Wallet Standard's own text of the issued request (verifySignIn agrees)", async () => {
        const request = await nonce();
        const { body, output } = signed(coopers, request);
        expect(body.message).toContain(`Resources:\n- ${SITE}/seller`);
        expect(verifySignIn({ ...request, address: coopers.publicKey.toBase58() }, output)).toBe(true);
        const r = await inject('POST', '/api/seller/session', { body });
        expect(r.statusCode, r.body).toBe(200);
        expect(r.json<SellerMe>().vendors).toEqual([{ id: 'coopersglass', name: 'Coopers Glass' }]);
      });

      it('accepts a trailing newline, as the standard parser does', async () => {
        for (const tail of ['\n', '\n\n']) {
          const r = await inject('POST', '/api/seller/session', {
            body: signed(coopers, await nonce(), tail).body,
          });
          expect(r.statusCode, `${JSON.stringify(tail)}: ${r.body}`).toBe(200);
        }
      });

      it.each(CHANGES)(
        'refuses %s with 401 and a plain reason (verifySignIn refuses it too)',
        async (_what, field, change) => {
          const request = await nonce();
          const fields = { ...request, ...change(request) } as Record<string, unknown>;
          for (const k of Object.keys(fields)) if (fields[k] === undefined) delete fields[k];
          const { body, output } = signed(coopers, fields as Omit<SiwsFields, 'address'>);
          expect(verifySignIn({ ...request, address: coopers.publicKey.toBase58() }, output)).toBe(false);
          const r = await inject('POST', '/api/seller/session', { body });
          expect(r.statusCode, r.body).toBe(401);
          const problem = r.json<{ error: string; message: string; field: string }>();
          expect(problem).toMatchObject({
            error: field === 'domain' ? 'wrong_domain' : 'changed_field',
            field,
          });
          expect(problem.message).toMatch(/^(The signed message|This sign-in message is for evil\.example)/);
          // Nothing was opened, and the nonce is still there for the genuine message.
          expect(await server.store.db.selectFrom('seller_sessions').selectAll().execute()).toEqual([]);
          const ok = await inject('POST', '/api/seller/session', { body: signed(coopers, request).body });
          expect(ok.statusCode, ok.body).toBe(200);
        },
      );

      it('refuses a nonce it never issued, a used one and an expired one', async () => {
        const request = await nonce();
        let r = await inject('POST', '/api/seller/session', {
          body: signed(coopers, { ...request, nonce: 'NeverIssued1234' }).body,
        });
        expect(r.statusCode).toBe(401);
        expect(r.json()).toMatchObject({ error: 'nonce_used' });
        const good = signed(coopers, request).body;
        expect((await inject('POST', '/api/seller/session', { body: good })).statusCode).toBe(200);
        r = await inject('POST', '/api/seller/session', { body: good });
        expect(r.json()).toMatchObject({ error: 'nonce_used' });
        const old = await nonce();
        clock.advance(5 * 60_000);
        r = await inject('POST', '/api/seller/session', { body: signed(coopers, old).body });
        expect(r.statusCode).toBe(401);
        expect(r.json()).toMatchObject({ error: 'expired_request' });
      });

      it('refuses a text that is not a standard sign-in message with 400, and unknown lines with 401', async () => {
        const { body } = signed(coopers, await nonce());
        const noAddress = body.message.replace(/\n[1-9A-HJ-NP-Za-km-z]{32,44}\n/, '\nnot-an-address\n');
        for (const message of ['hello', noAddress]) {
          const r = await inject('POST', '/api/seller/session', { body: { ...body, message } });
          expect(r.statusCode, message).toBe(400);
          expect(r.json()).toMatchObject({ error: 'invalid_message' });
        }
        // A line the standard does not know makes its parser read everything after the address as the statement:
        // a text changed after signing fails the signature, and the same text signed has no fields (no nonce).
        const extra = `${body.message}\nAdmin: yes`;
        let r = await inject('POST', '/api/seller/session', { body: { ...body, message: extra } });
        expect(r.statusCode).toBe(401);
        expect(r.json()).toMatchObject({ error: 'bad_signature' });
        const sig = nacl.sign.detached(new TextEncoder().encode(extra), coopers.secretKey);
        r = await inject('POST', '/api/seller/session', {
          body: { message: extra, signature: Buffer.from(sig).toString('base64') },
        });
        expect(r.statusCode).toBe(401);
        expect(r.json()).toMatchObject({ error: 'changed_field', field: 'nonce' });
      });
    });

    describe('sessions', () => {
      beforeEach(() => start());

      it("lists the wallet's open sessions with their device, and ends one, or all the others", async () => {
        const laptop = await signInAs(coopers, { ua: FIREFOX });
        clock.advance(1000);
        const phone = await signInAs(coopers, { ua: SAFARI_IOS });
        const other = await signInAs(gorilla);
        const list = (cookie: string) =>
          inject('GET', '/api/seller/sessions', { cookie }).then((r) => r.json<SellerSessionList>().sessions);
        const seen = await list(laptop);
        expect(seen.map((s) => [s.device, s.current])).toEqual([
          ['Safari on iOS', false],
          ['Firefox on Linux', true],
        ]);
        expect(seen[0]!.id).toMatch(/^[0-9a-f]{64}$/);
        expect(seen[0]!.expiresAt).toBe(new Date(clock.ms + 8 * 3600_000).toISOString());
        // Another wallet cannot end (or see) coopers' sessions.
        let r = await inject('DELETE', `/api/seller/sessions/${seen[0]!.id}`, { cookie: other });
        expect(r.statusCode).toBe(404);
        expect((await list(other)).length).toBe(1);
        // End the phone's session from the laptop.
        r = await inject('DELETE', `/api/seller/sessions/${seen[0]!.id}`, { cookie: laptop });
        expect(r.statusCode, r.body).toBe(200);
        expect((await inject('GET', '/api/seller/me', { cookie: phone })).statusCode).toBe(401);
        expect((await list(laptop)).map((s) => s.device)).toEqual(['Firefox on Linux']);
        // Two more, then "end all others".
        await signInAs(coopers);
        await signInAs(coopers);
        r = await inject('POST', '/api/seller/sessions/end-others', { cookie: laptop });
        expect(r.json()).toEqual({ ended: 2 });
        expect((await list(laptop)).length).toBe(1);
        // Ending the current session signs out (the cookie is cleared).
        const current = (await list(laptop))[0]!;
        r = await inject('DELETE', `/api/seller/sessions/${current.id}`, { cookie: laptop });
        expect(String(r.headers['set-cookie'])).toContain('Max-Age=0');
        expect((await inject('GET', '/api/seller/me', { cookie: laptop })).statusCode).toBe(401);
        expect((await inject('GET', '/api/seller/me', { cookie: other })).statusCode).toBe(200);
      });

      it('signing in again in the same browser ends the session it replaces', async () => {
        const first = await signInAs(coopers);
        const second = await signInAs(coopers, { cookie: first });
        expect((await inject('GET', '/api/seller/me', { cookie: first })).statusCode).toBe(401);
        expect((await inject('GET', '/api/seller/me', { cookie: second })).statusCode).toBe(200);
        expect(await server.store.db.selectFrom('seller_sessions').selectAll().execute()).toHaveLength(1);
      });
    });

    describe('housekeeping', () => {
      beforeEach(() => start(50));

      it('purges expired sessions and unused nonces on its schedule, keeping live ones', async () => {
        await signInAs(coopers);
        await nonce();
        clock.advance(8 * 3600_000 - 60_000);
        const live = await signInAs(gorilla);
        const fresh = await nonce();
        clock.advance(60_000);
        const count = async () => ({
          sessions: (await server.store.db.selectFrom('seller_sessions').select('address').execute()).map(
            (r) => r.address,
          ),
          nonces: (await server.store.db.selectFrom('seller_nonces').select('nonce').execute()).map(
            (r) => r.nonce,
          ),
        });
        const deadline = Date.now() + 10_000;
        let now = await count();
        while ((now.sessions.length > 1 || now.nonces.length > 1) && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 50));
          now = await count();
        }
        expect(now).toEqual({ sessions: [gorilla.publicKey.toBase58()], nonces: [fresh.nonce] });
        expect((await inject('GET', '/api/seller/me', { cookie: live })).statusCode).toBe(200);
      });
    });
  });
});
