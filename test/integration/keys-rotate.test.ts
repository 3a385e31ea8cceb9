/**
 * `npm run keys:rotate` as an operator runs it, on a real SQLite store: killed with SIGKILL in the middle of a
 * rotation, run again it finishes; a third run finds nothing to do; then the old key is dropped and every value
 * still opens.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { afterAll, describe, expect, it } from 'vitest';
import type { OrderCreated, QuoteResponse } from '../../src/core/api';
import { catalog } from '../../catalog';
import { createOrderService } from '../../src/server/orders/service';
import { startServer } from '../../src/server/server';
import { loadSettings } from '../../src/server/settings';
import { openStore } from '../../src/server/store/store';
import { shippingOfRow } from '../support/sealed';
import { restock } from '../support/stock';
import { Clock, fakeSignature, intlShipping, keys, RecordingTransport, TestPrice } from './orders-support';
import { payoutAccountsAssumedToExist } from '../support/payout-accounts';

const key = (byte: number) => Buffer.alloc(32, byte).toString('base64');
const dir = mkdtempSync(join(tmpdir(), 'claim-rotate-'));
const file = join(dir, 'store.sqlite');
const env = (dataKeys: string): Record<string, string> => ({
  DATA_KEYS: dataKeys,
  DATABASE_URL: file,
  SOLANA_RPC_URL: 'http://127.0.0.1:9',
  MIGRATE_ON_START: '1', // a fresh store per test: migrated at start (the release step: migrate.test.ts)
  MAIL_TRANSPORT: 'file',
  PRICE_API_URL: 'http://127.0.0.1:9',
  QUOTE_SECRET: 'test-secret-0123456789-0123456789-abcdef',
  SELLER_EMAIL: 'seller@shop.test',
  CLAIM_MINT: keys.mint,
  RECIPIENT_COOPERSGLASS: Keypair.generate().publicKey.toBase58(),
  RECIPIENT_GORILLA: Keypair.generate().publicKey.toBase58(),
  PORT: '0',
});
const OLD = `old:${key(21)}`;
const ROTATING = `new:${key(22)},old:${key(21)}`;
const NEW_ONLY = `new:${key(22)}`;
const fixed = env(OLD);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function valuesByKey(dataKeys: string) {
  const settings = loadSettings({ ...fixed, DATA_KEYS: dataKeys });
  const store = await openStore(settings.database);
  try {
    return await createOrderService({ store, catalog, settings, now: () => new Date() }).sealedValuesByKey();
  } finally {
    await store.close();
  }
}

function rotate(args: string[] = []) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'scripts/keys-rotate.ts', ...args], {
    env: { PATH: process.env.PATH, ...fixed, DATA_KEYS: ROTATING },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

describe('npm run keys:rotate', () => {
  it('killed mid-rotation, run again it finishes; safe twice; the old key can then be dropped', async () => {
    // A store with orders, e-mails and their errors, all sealed under the old key.
    const clock = new Clock();
    const server = await startServer(loadSettings(fixed), {
      payoutAccounts: payoutAccountsAssumedToExist,
      priceSource: new TestPrice(clock, '0.5'),
      transport: new RecordingTransport(),
      now: clock.now,
      listen: false,
      startOutbox: false,
      expireEveryMs: 0,
      retention: false,
    });
    const ids: string[] = [];
    try {
      await restock(server, 'sonic-crushed-opal-spillproof', 20);
      for (let i = 0; i < 12; i++) {
        const q = await server.app.inject({
          method: 'POST',
          url: '/api/quotes',
          payload: { items: [{ productId: 'sonic-crushed-opal-spillproof', quantity: 1 }] },
        });
        const o = await server.app.inject({
          method: 'POST',
          url: '/api/orders',
          payload: {
            quote: q.json<QuoteResponse>().quote,
            shipping: { ...intlShipping, fullName: `Rotating Buyer ${i}` },
            paymentMethod: 'wallet',
          },
          headers: { 'idempotency-key': `rotate-${i}` },
        });
        const created = o.json<OrderCreated>();
        ids.push(created.orderId);
        await server.orders.recordPayment(
          { orderId: created.orderId },
          {
            signature: fakeSignature(),
            receivedBaseUnits: BigInt(created.amountBaseUnits),
            finalized: true,
            blockTime: null,
          },
        );
      }
      await server.outbox.runOnce();
    } finally {
      await server.close();
    }
    const before = await valuesByKey(ROTATING);
    expect(Object.keys(before)).toEqual(['old']);
    const total = before.old ?? 0;
    expect(total).toBeGreaterThanOrEqual(12 * 5);

    // First run: slowed down, killed with SIGKILL after its third batch.
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'scripts/keys-rotate.ts', '--batch', '4', '--batch-delay-ms', '400'],
      { env: { PATH: process.env.PATH, ...fixed, DATA_KEYS: ROTATING }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no third batch: ${out}`)), 60_000);
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (/^batch 3:/m.test(out)) {
          clearTimeout(timer);
          child.kill('SIGKILL');
          resolve();
        }
      });
    });
    await new Promise((r) => child.once('exit', r));
    const mid = await valuesByKey(ROTATING);
    expect(mid.new).toBeGreaterThanOrEqual(12);
    expect(mid.old).toBeGreaterThan(0);
    expect((mid.new ?? 0) + (mid.old ?? 0)).toBe(total);

    // Run again: it finishes what is left.
    const second = rotate();
    expect(second.status, second.stderr).toBe(0);
    expect(second.stdout).toContain(`${mid.old} values re-sealed; 0 unreadable`);
    expect(second.stdout).toContain(
      "Every value is under 'new': the other keys can be dropped from DATA_KEYS.",
    );
    // Safe twice.
    const third = rotate();
    expect(third.status, third.stderr).toBe(0);
    expect(third.stdout).toContain('0 values re-sealed; 0 unreadable');
    expect(await valuesByKey(ROTATING)).toEqual({ new: total });

    // The old key dropped: every order's details still open.
    const settings = loadSettings({ ...fixed, DATA_KEYS: NEW_ONLY });
    const store = await openStore(settings.database);
    try {
      const rows = await store.db.selectFrom('orders').select(['id', 'shipping_json']).execute();
      expect(rows.map((r) => shippingOfRow(settings, r)?.fullName).sort()).toEqual(
        ids.map((_, i) => `Rotating Buyer ${i}`).sort(),
      );
    } finally {
      await store.close();
    }
  }, 180_000);
});
