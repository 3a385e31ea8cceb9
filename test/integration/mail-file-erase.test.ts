/**
 * Issue 28, finding 10: in the demo the `file` transport's .eml files survived "Delete my details" and retention.
 * The whole server on a real SQLite file with the file transport writing real .eml files: an order's files go with
 * its details (the buyer's "Delete my details", and the retention job), other orders' files stay.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { OrderCreated, OrderPageView, QuoteResponse } from '../../src/core/api';
import { startServer, type RunningServer } from '../../src/server/server';
import { loadSettings } from '../../src/server/settings';
import { restock } from '../support/stock';
import { injector, signInSeller } from '../support/seller-session';
import { payoutAccountsAssumedToExist } from '../support/payout-accounts';
import { Clock, fakeSignature, keys, TestPrice } from './orders-support';

const coopers = Keypair.generate();
const gorilla = Keypair.generate();
const buyer = (n: number) => ({
  kind: 'international',
  fullName: `Octavia Fernsby${'x'.repeat(n)}`,
  email: `octavia${n}@erase-test.example`,
  address1: `${n} Lanternwick Row`,
  city: 'Mossbury',
  stateProvince: 'Fenshire',
  postalCode: 'MB1 2XY',
  country: 'Nowhere',
});

describe('file transport copies are erased with the details', () => {
  let server: RunningServer;
  let dir: string;
  let clock: Clock;
  let n = 0;

  async function start(extra: Record<string, string> = {}) {
    server = await startServer(
      loadSettings({
        DATA_KEYS: `k1:${Buffer.alloc(32, 9).toString('base64')}`,
        SOLANA_RPC_URL: 'http://127.0.0.1:9',
        MIGRATE_ON_START: '1', // a fresh store per test: migrated at start (the release step: migrate.test.ts)
        PRICE_API_URL: 'http://127.0.0.1:9',
        QUOTE_SECRET: 'test-secret-0123456789-0123456789-abcdef',
        SELLER_EMAIL: 'seller@shop.test',
        CLAIM_MINT: keys.mint,
        RECIPIENT_COOPERSGLASS: coopers.publicKey.toBase58(),
        RECIPIENT_GORILLA: gorilla.publicKey.toBase58(),
        PUBLIC_URL: 'https://shop.example',
        PORT: '0',
        HOLD_LIMIT_PER_CLIENT: '0',
        DATABASE_URL: join(dir, 'store.sqlite'),
        MAIL_TRANSPORT: 'file',
        MAIL_DIR: join(dir, 'mail'),
        ...extra,
      }),
      {
        payoutAccounts: payoutAccountsAssumedToExist,
        priceSource: new TestPrice(clock, '0.5'),
        now: clock.now,
        listen: false,
        startOutbox: false,
        expireEveryMs: 0,
        retention: false,
      },
    );
    await restock(server, 'sonic-crushed-opal-spillproof', 20);
  }

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'claim-eml-erase-'));
    clock = new Clock(Date.now());
    await start({ PERSONAL_DATA_RETENTION_DAYS: '0.0001' });
  });
  afterEach(async () => {
    await server.close();
  });

  const inject = injector(() => server, 'https://shop.example');
  const files = () => readdirSync(join(dir, 'mail')).filter((f) => f.endsWith('.eml'));
  const filesOf = (o: OrderCreated) =>
    files().filter((f) => readFileSync(join(dir, 'mail', f), 'utf8').includes(`X-Claim-Order: ${o.orderId}`));

  async function paidOrder(): Promise<OrderCreated> {
    const q = await inject('POST', '/api/quotes', {
      body: { items: [{ productId: 'sonic-crushed-opal-spillproof', quantity: 1 }] },
    });
    const r = await inject('POST', '/api/orders', {
      body: { quote: q.json<QuoteResponse>().quote, shipping: buyer(++n), paymentMethod: 'wallet' },
      headers: { 'idempotency-key': `erase-${n}` },
    });
    expect(r.statusCode, r.body).toBe(201);
    const o = r.json<OrderCreated>();
    const paid = await server.orders.recordPayment(
      { orderId: o.orderId },
      {
        signature: fakeSignature(),
        receivedBaseUnits: BigInt(o.amountBaseUnits),
        finalized: true,
        blockTime: null,
      },
    );
    expect(paid.ok).toBe(true);
    return o;
  }

  it('"Delete my details" and retention erase the order\'s .eml files, and only its', async () => {
    const seller = await signInSeller(inject, coopers);
    const [deleting, retained, kept] = [await paidOrder(), await paidOrder(), await paidOrder()];
    for (const o of [deleting, retained])
      expect(
        (
          await inject('POST', `/api/seller/orders/${o.orderId}/ship`, {
            cookie: seller,
            body: { trackingNumber: `TRACK-${o.orderId.slice(0, 4)}` },
          })
        ).statusCode,
      ).toBe(200);
    await server.outbox.runOnce();
    // Confirmation pair and the shipped note, each naming the buyer.
    expect(filesOf(deleting)).toHaveLength(3);
    expect(filesOf(retained)).toHaveLength(3);
    expect(filesOf(kept)).toHaveLength(2);
    expect(readFileSync(join(dir, 'mail', filesOf(deleting)[0]!), 'utf8')).toContain('Octavia');

    const token = deleting.orderUrl.split('/order/')[1] ?? '';
    const deleted = await inject('DELETE', `/api/order-pages/${token}/details`);
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(deleted.json<OrderPageView>().privacy.details).toBe('erased');
    await server.outbox.runOnce();
    // The vendor's note that the details were deleted names nobody; every copy that quoted the buyer is gone.
    for (const f of filesOf(deleting))
      expect(readFileSync(join(dir, 'mail', f), 'utf8')).not.toMatch(/Octavia|Lanternwick|erase-test/);
    expect(filesOf(deleting).length).toBeLessThanOrEqual(1);
    expect(filesOf(retained)).toHaveLength(3);
    expect(filesOf(kept)).toHaveLength(2);

    // Retention (a tiny window here): the delivered order's details and files go; the unshipped one's stay.
    const delivered = await inject('POST', `/api/seller/orders/${retained.orderId}/delivered`, {
      cookie: seller,
    });
    expect(delivered.statusCode).toBe(200);
    await server.outbox.runOnce();
    clock.advance(25 * 3600_000);
    expect((await server.orders.runRetention()).erased).toBe(1);
    await server.outbox.runOnce();
    expect(filesOf(retained)).toHaveLength(0);
    expect(filesOf(kept)).toHaveLength(2);
  });
});
