/**
 * Outbox lease hand-over after kill -9: a worker process claims the seller e-mail of a paid order and is killed
 * with SIGKILL inside the transport. The surviving instance (a real server with the default lease and poll)
 * sends both e-mails within 15 s of the kill, each once, seller first. And an instance restarting under the same
 * identity releases its own leases at start.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { OrderCreated, QuoteResponse } from '../../src/core/api';
import { createOutboxWorker } from '../../src/server/mail/outbox';
import { createSealer } from '../../src/server/privacy/seal';
import { addStock } from '../support/stock';
import { startServer, type RunningServer } from '../../src/server/server';
import { fakeSignature, intlShipping, RecordingTransport, testSettings } from './orders-support';
import { payoutAccountsAssumedToExist } from '../support/payout-accounts';

const dir = mkdtempSync(join(tmpdir(), 'claim-lease-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const realPrice = { current: () => ({ priceUsd: '0.5', fetchedAt: new Date() }) };

async function paidOrder(s: RunningServer, key: string): Promise<string> {
  // Lilac TipTop is one of a kind (stock): one more unit for each order of this test.
  await addStock(s, 'lilac-tiptop', 1);
  const q = (
    await s.app.inject({
      method: 'POST',
      url: '/api/quotes',
      payload: { items: [{ productId: 'lilac-tiptop', quantity: 1 }] },
    })
  ).json<QuoteResponse>();
  const o = await s.app.inject({
    method: 'POST',
    url: '/api/orders',
    payload: { quote: q.quote, shipping: intlShipping, paymentMethod: 'wallet' },
    headers: { 'idempotency-key': key },
  });
  expect(o.statusCode, o.body).toBe(201);
  const id = o.json<OrderCreated>().orderId;
  const r = await s.orders.recordPayment(
    { orderId: id },
    {
      signature: fakeSignature(),
      receivedBaseUnits: BigInt(q.amountBaseUnits),
      finalized: false,
      blockTime: null,
    },
  );
  expect(r.ok).toBe(true);
  return id;
}

describe('outbox leases', () => {
  it("a killed instance's claimed e-mails go out on another instance within 15 s", async () => {
    const file = join(dir, 'kill.sqlite');
    const transport = new RecordingTransport();
    // The surviving instance, not delivering yet (its worker starts after the kill).
    const survivor = await startServer(testSettings(), {
      payoutAccounts: payoutAccountsAssumedToExist,
      store: { kind: 'sqlite', file },
      priceSource: realPrice,
      transport,
      listen: false,
      startOutbox: false,
      expireEveryMs: 0,
    });
    try {
      const id = await paidOrder(survivor, 'lease-kill-1');

      const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/outbox-claimer.ts', file], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const claimed = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /claimed (\S+)\n/.exec(out);
          if (m) resolve(m[1] ?? '');
        });
        child.on('exit', (code) => reject(new Error(`claimer exited early (${code})`)));
      });
      const row = await survivor.store.db
        .selectFrom('outbox')
        .selectAll()
        .where('id', '=', claimed)
        .executeTakeFirstOrThrow();
      expect(row.lock_token).toMatch(/^doomed-instance:3000\//);
      expect(row.role).toBe('seller');

      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
      const killedAt = Date.now();

      survivor.outbox.start();
      const deadline = killedAt + 15_000;
      while (transport.sent.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      const elapsed = Date.now() - killedAt;
      expect(transport.sent.map((m) => `${m.orderId}/${m.role}`)).toEqual([`${id}/seller`, `${id}/buyer`]);
      expect(elapsed).toBeLessThan(15_000);
    } finally {
      await survivor.close();
    }
  }, 60_000);

  it('an instance restarting under its own identity releases its leases at start, and only its own', async () => {
    const file = join(dir, 'restart.sqlite');
    const s = await startServer(testSettings(), {
      payoutAccounts: payoutAccountsAssumedToExist,
      store: { kind: 'sqlite', file },
      priceSource: realPrice,
      transport: new RecordingTransport(),
      listen: false,
      startOutbox: false,
      expireEveryMs: 0,
    });
    try {
      await paidOrder(s, 'lease-restart-1');
      await paidOrder(s, 'lease-restart-2');
      const sellers = await s.store.db
        .selectFrom('outbox')
        .select('id')
        .where('role', '=', 'seller')
        .execute();
      expect(sellers).toHaveLength(2);
      const farFuture = new Date(Date.now() + 3600_000).toISOString();
      await s.store.db
        .updateTable('outbox')
        .set({ locked_until: farFuture, lock_token: 'host-a:3000/old-claim' })
        .where('id', '=', sellers[0]!.id)
        .execute();
      await s.store.db
        .updateTable('outbox')
        .set({ locked_until: farFuture, lock_token: 'host-b:3000/live-claim' })
        .where('id', '=', sellers[1]!.id)
        .execute();
      const restarted = createOutboxWorker({
        store: s.store,
        transport: new RecordingTransport(),
        instanceId: 'host-a:3000',
        sealer: createSealer(testSettings().privacy.dataKeys),
      });
      expect(await restarted.releaseOwnLeases()).toBe(1);
      const after = await s.store.db
        .selectFrom('outbox')
        .select(['id', 'lock_token'])
        .where('role', '=', 'seller')
        .execute();
      const byId = new Map(after.map((r) => [r.id, r.lock_token]));
      expect(byId.get(sellers[0]!.id)).toBeNull();
      expect(byId.get(sellers[1]!.id)).toBe('host-b:3000/live-claim');
    } finally {
      await s.close();
    }
  });
});
