/**
 * No QR to a recipient that cannot receive, against the localnet: the gorilla vendor starts without its $CLAIM token
 * account (`withoutTokenAccount`). The real check (src/server/payments/payout-accounts.ts over a Connection to the
 * localnet, with a test clock for its cache) refuses the vendor's QR quotes in words, leaves its wallet quotes (the
 * wallet's transaction creates the account) and the other vendor alone, asks the chain a bounded number of times
 * however many pages ask, sees the account once it is created, and refuses in words when the chain cannot be asked.
 */
import { createKeyPairSignerFromBytes } from '@solana/kit';
import { Connection, Keypair, LAMPORTS_PER_SOL } from '@solana/web3.js';
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import { startLocalnet, type Localnet } from '../support/localnet';
import { startServer, type RunningServer } from '../../src/server/server';
import { createPayoutAccounts } from '../../src/server/payments/payout-accounts';
import { setupVendorAccounts } from '../../src/server/ops/vendor-accounts';
import { chainRpc } from '../../src/server/payments/connection';
import { notSetUpMessage, PAYOUT_UNKNOWN_MESSAGE } from '../../src/core/payout-account';
import type { PayoutAccountStatus } from '../../src/core/api';
import { Clock, RecordingTransport, sqliteBackend, TestPrice, testSettings } from './orders-support';

const HONEY = 'honey-dew-papaya-live-rosin'; // gorilla, QR (/honey2)
const GARLIC = 'garlic-amaretto-live-resin'; // gorilla, wallet
const EAGLES = 'eagles-xl-joystick-cropal-stick'; // coopersglass, QR (product9)
const GORILLA = 'Gorilla Pack Genetics';

let net: Localnet;
const backend = sqliteBackend();

beforeAll(async () => {
  net = await startLocalnet({ port: 0, slotMs: 40, finalizeLag: 3, withoutTokenAccount: ['gorilla'] });
});
afterAll(async () => {
  await net?.close();
  await backend.cleanup();
});

describe('payout accounts: no QR to a vendor whose token account does not exist', () => {
  let server: RunningServer;
  let clock: Clock;
  let settings: ReturnType<typeof testSettings>;
  let reads = 0;

  beforeEach(async () => {
    clock = new Clock(Date.now());
    const keys = net.keys;
    if (!keys) throw new Error('localnet without demo keys');
    settings = testSettings({
      SOLANA_RPC_URL: net.rpcUrl,
      MIGRATE_ON_START: '1', // a fresh store per test: migrated at start (the release step: migrate.test.ts)
      CLAIM_MINT: keys.mint.toBase58(),
      RECIPIENT_COOPERSGLASS: keys.recipients.coopersglass.toBase58(),
      RECIPIENT_GORILLA: keys.recipients.gorilla.toBase58(),
    });
    reads = 0;
    // The server's reads of the chain, counted by method.
    const chain = chainRpc(net.rpcUrl, (input, init) => {
      if (typeof init?.body === 'string' && init.body.includes('"getMultipleAccounts')) reads += 1;
      return fetch(input, init);
    });
    server = await startServer(settings, {
      store: await backend.fresh(),
      priceSource: new TestPrice(clock, '0.5'),
      transport: new RecordingTransport(),
      listen: false,
      startOutbox: false,
      expireEveryMs: 0,
      retention: false,
      // The production check, on the test clock so its cache periods can be stepped through.
      payoutAccounts: createPayoutAccounts({
        chain,
        mint: settings.claimMint,
        recipients: settings.recipients,
        now: () => clock.ms,
      }),
    });
  });
  afterEach(async () => {
    net.setFailing(false);
    await server.close();
  });

  const quote = (productId: string) =>
    server.app.inject({
      method: 'POST',
      url: '/api/quotes',
      payload: { items: [{ productId, quantity: 1 }] },
    });
  const status = async (vendorId: string) =>
    (
      await server.app.inject({ method: 'GET', url: `/api/vendors/${vendorId}/payout-account` })
    ).json<PayoutAccountStatus>();
  const accountReads = () => reads;

  it("refuses the vendor's QR quote in words; its wallet quote and the other vendor's QR are issued; the chain is asked once for 100 pages", async () => {
    const before = accountReads();
    const refused = await quote(HONEY);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual({ error: 'payout_account_missing', message: notSetUpMessage(GORILLA) });
    expect(refused.body).not.toContain('solana:');
    expect((await quote(GARLIC)).statusCode).toBe(200); // Buy Now's transaction creates the account
    const eagles = await quote(EAGLES);
    expect(eagles.statusCode).toBe(200);
    expect(eagles.json<{ solanaPayUrl: string }>().solanaPayUrl).toMatch(/^solana:/);
    expect(await status('gorilla-pack-genetics')).toEqual({
      vendorId: 'gorilla-pack-genetics',
      state: 'missing',
      message: notSetUpMessage(GORILLA),
    });
    expect(await status('coopersglass')).toEqual({ vendorId: 'coopersglass', state: 'exists' });
    // A script opening the QR pages: 100 more quotes and status reads within the cache period.
    for (let i = 0; i < 50; i += 1) {
      expect((await quote(HONEY)).statusCode).toBe(409);
      expect((await status('gorilla-pack-genetics')).state).toBe('missing');
    }
    expect(accountReads() - before).toBe(1);
    expect(
      (await server.app.inject({ method: 'GET', url: '/api/vendors/nobody/payout-account' })).statusCode,
    ).toBe(404);
  });

  it('shows the QR once the account is created (within the 15 s period), and not before the chain says so', async () => {
    expect((await quote(HONEY)).statusCode).toBe(409);
    const operator = Keypair.generate();
    const conn = new Connection(net.rpcUrl, 'confirmed');
    await conn.confirmTransaction(
      await conn.requestAirdrop(operator.publicKey, LAMPORTS_PER_SOL),
      'confirmed',
    );
    const made = await setupVendorAccounts(
      chainRpc(net.rpcUrl),
      await signerOf(operator),
      settings.claimMint,
      {
        gorilla: settings.recipients.gorilla ?? '',
      },
    );
    expect(made[0]?.created).toBe(true);
    clock.advance(14_000);
    expect((await quote(HONEY)).statusCode).toBe(409); // still the cached answer
    clock.advance(1_000);
    const issued = await quote(HONEY);
    expect(issued.statusCode).toBe(200);
    expect(issued.json<{ solanaPayUrl: string }>().solanaPayUrl).toMatch(/^solana:/);
    expect(await status('gorilla-pack-genetics')).toEqual({
      vendorId: 'gorilla-pack-genetics',
      state: 'exists',
    });
  });

  it('the chain cannot be asked: a plain 503 and never a QR; an account already seen existing stays payable', async () => {
    net.setFailing(true);
    const refused = await quote(EAGLES);
    expect(refused.statusCode).toBe(503);
    expect(refused.json()).toEqual({ error: 'payout_account_unknown', message: PAYOUT_UNKNOWN_MESSAGE });
    expect((await status('coopersglass')).state).toBe('unknown');
    net.setFailing(false);
    clock.advance(5_000);
    expect((await quote(EAGLES)).statusCode).toBe(200);
    net.setFailing(true);
    clock.advance(10 * 60_000);
    expect((await quote(EAGLES)).statusCode).toBe(200); // seen existing: kept while the RPC is down
  });
});

/** A web3.js test key as the kit signer the server's setup takes. */
function signerOf(key: Keypair) {
  return createKeyPairSignerFromBytes(key.secretKey);
}
