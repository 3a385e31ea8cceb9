/**
 * The outbox against a real store (SQLite file; PostgreSQL when TEST_DATABASE_URL is set): seller before buyer,
 * failure then recovery delivers exactly once, retries for four days, a restart mid-way loses nothing, and
 * concurrent workers never send a row twice.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { OrderCreated, QuoteResponse } from '../../src/core/api';
import { createOutboxWorker } from '../../src/server/mail/outbox';
import { createSealer } from '../../src/server/privacy/seal';
import { PermanentMailError } from '../../src/server/mail/types';
import { startServer, type RunningServer } from '../../src/server/server';
import { openStore, type Store, type StoreConfig } from '../../src/server/store/store';
import {
  Clock,
  fakeSignature,
  intlShipping,
  postgresBackend,
  RecordingTransport,
  sqliteBackend,
  testSettings,
  TestPrice,
  usShipping,
  type Backend,
} from './orders-support';
import { restock } from '../support/stock';
import { errorOfRow } from '../support/sealed';
import { payoutAccountsAssumedToExist } from '../support/payout-accounts';

const backends = [sqliteBackend(), postgresBackend()];

describe.each(backends)('outbox on $name', (backend: Backend) => {
  describe.runIf(backend.enabled)(`${backend.name} store`, () => {
    let config: StoreConfig;
    let clock: Clock;
    let transport: RecordingTransport;
    let server: RunningServer | undefined;
    let n = 0;

    async function start(): Promise<RunningServer> {
      server = await startServer(testSettings(), {
        payoutAccounts: payoutAccountsAssumedToExist,
        store: config,
        priceSource: new TestPrice(clock, '0.25'),
        transport,
        now: clock.now,
        listen: false,
        startOutbox: false,
        expireEveryMs: 0,
        outbox: { random: () => 0.5, leaseMs: 60_000 },
      });
      // Some tests pay for more than one order of this glass piece (one of a kind).
      await restock(server, 'lilac-tiptop', 20);
      return server;
    }

    beforeEach(async () => {
      config = await backend.fresh();
      clock = new Clock();
      transport = new RecordingTransport();
      await start();
    });
    afterEach(async () => {
      await server?.close();
      server = undefined;
    });
    afterAll(async () => {
      await backend.cleanup();
    });

    async function paidWalletOrder(s: RunningServer): Promise<string> {
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
        headers: { 'idempotency-key': `k${++n}` },
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

    async function paidQrOrder(s: RunningServer): Promise<string> {
      const q = (
        await s.app.inject({
          method: 'POST',
          url: '/api/quotes',
          payload: { items: [{ productId: 'honey-dew-papaya-live-rosin', quantity: 1 }] },
        })
      ).json<QuoteResponse>();
      const o = await s.app.inject({
        method: 'POST',
        url: '/api/orders',
        payload: { quote: q.quote, shipping: usShipping, paymentMethod: 'qr' },
        headers: { 'idempotency-key': `k${++n}` },
      });
      const id = o.json<OrderCreated>().orderId;
      // A QR order with its details e-mails nobody until its payment lands; the payment sends the pair.
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

    const rows = async (s: RunningServer, orderId?: string) => {
      let q = s.store.db.selectFrom('outbox').selectAll();
      if (orderId) q = q.where('order_id', '=', orderId);
      return q.orderBy('created_at').orderBy('role', 'desc').execute();
    };

    it('delivers seller before buyer; the buyer waits while the seller is retrying', async () => {
      const s = server!;
      const id = await paidWalletOrder(s);
      let failSeller = true;
      transport.fail = (m) =>
        m.role === 'seller' && failSeller ? new Error('SMTP 451 try later') : undefined;

      expect(await s.outbox.runOnce()).toEqual({ sent: 0, retrying: 1, failed: 0 });
      expect(transport.attempts.map((m) => m.role)).toEqual(['seller']);
      let r = await rows(s, id);
      expect(r.map((x) => [x.role, x.state, Number(x.attempts)])).toEqual([
        ['seller', 'retrying', 1],
        ['buyer', 'pending', 0],
      ]);
      // Stored redacted and sealed: the mail server's answer may quote the recipient.
      expect(r[0]?.last_error).toMatch(/^sealed:v1:/);
      expect(errorOfRow(testSettings(), r[0]!)).toContain('451');
      // Backoff: 30 s × jitter 0.75 → not due before.
      clock.advance(20_000);
      expect(await s.outbox.runOnce()).toEqual({ sent: 0, retrying: 0, failed: 0 });

      failSeller = false;
      clock.advance(5_000);
      expect(await s.outbox.runOnce()).toEqual({ sent: 2, retrying: 0, failed: 0 });
      expect(transport.sent.map((m) => m.role)).toEqual(['seller', 'buyer']);
      expect(await s.outbox.runOnce()).toEqual({ sent: 0, retrying: 0, failed: 0 });
      r = await rows(s, id);
      expect(r.map((x) => [x.role, x.state, Number(x.attempts)])).toEqual([
        ['seller', 'sent', 2],
        ['buyer', 'sent', 1],
      ]);
      const pub = await s.orders.getOrder(id);
      expect(pub?.emails.map((e) => [e.recipient, e.state, e.attempts])).toEqual([
        ['seller', 'sent', 2],
        ['buyer', 'sent', 1],
      ]);
      // Exactly once each.
      expect(new Set(transport.sent.map((m) => m.id)).size).toBe(transport.sent.length);
    });

    it('a permanently failed seller row lets the buyer row go', async () => {
      const s = server!;
      const id = await paidWalletOrder(s);
      transport.fail = (m) =>
        m.role === 'seller' ? new PermanentMailError('400 template rejected') : undefined;
      expect(await s.outbox.runOnce()).toEqual({ sent: 1, retrying: 0, failed: 1 });
      const pub = await s.orders.getOrder(id);
      expect(pub?.emails.map((e) => [e.recipient, e.state])).toEqual([
        ['seller', 'failed'],
        ['buyer', 'sent'],
      ]);
    });

    it('keeps retrying with growing delays for four days, then gives up', async () => {
      // The spec's window, written out (not the module's constant, so a changed constant fails here).
      const FOUR_DAYS = 4 * 24 * 60 * 60 * 1000;
      const s = server!;
      const id = await paidWalletOrder(s);
      transport.fail = () => new Error('connection refused');
      const createdAt = clock.ms;
      const delays: number[] = [];
      let lastAttemptAt = clock.ms;
      for (let i = 0; i < 300; i++) {
        const before = transport.attempts.length;
        await s.outbox.runOnce();
        if (transport.attempts.length > before) {
          delays.push(clock.ms - lastAttemptAt);
          lastAttemptAt = clock.ms;
        }
        const [seller] = await rows(s, id);
        if (seller?.state === 'failed') break;
        expect(seller?.state).toBe('retrying');
        expect(clock.ms - createdAt).toBeLessThan(FOUR_DAYS + 3_600_000);
        clock.advance(60_000 * 30);
      }
      const [seller, buyer] = await rows(s, id);
      expect(seller?.state).toBe('failed');
      expect(Number(seller?.attempts)).toBeGreaterThan(50);
      expect(clock.ms - createdAt).toBeGreaterThanOrEqual(FOUR_DAYS);
      // Delays grow (exponential) and are capped at an hour (plus the 30-min test step).
      expect(delays[1]).toBeLessThan(delays[delays.length - 1] ?? 0);
      expect(Math.max(...delays)).toBeLessThanOrEqual(3_600_000 + 1_800_000);
      // The seller failed for good, so the buyer message was attempted too (and fails, retrying on its own clock).
      expect(buyer?.state).not.toBe('pending');
    });

    it('survives a restart mid-delivery: the claimed row is sent after its lease, nothing lost or doubled', async () => {
      const s = server!;
      const ids = [await paidWalletOrder(s), await paidQrOrder(s)];
      // The first send hangs (the process "dies" during it).
      let release!: () => void;
      const hang = new Promise<void>((r) => (release = r));
      const dying = new RecordingTransport();
      dying.send = async (m) => {
        dying.attempts.push(m);
        await hang;
        throw new Error('process died');
      };
      const doomed = createOutboxWorker({
        store: s.store,
        transport: dying,
        now: clock.now,
        leaseMs: 60_000,
        batchSize: 1,
        sealer: createSealer(testSettings().privacy.dataKeys),
      });
      const run = doomed.runOnce().catch(() => 'crashed');
      // Wait for the claim itself (the transport was called), not for a guessed time.
      for (let i = 0; i < 200 && dying.attempts.length === 0; i++)
        await new Promise((r) => setTimeout(r, 25));
      expect(dying.attempts).toHaveLength(1);
      await s.close(); // the store goes away under the worker
      server = undefined;
      release();
      await run;

      // Restart on the same database.
      const s2 = await start();
      for (const id of ids) expect(await s2.orders.getOrder(id)).toBeDefined();
      // Within the lease the claimed row waits (and so does its buyer row); the QR order's rows can go.
      const early = await s2.outbox.runOnce();
      expect(early).toEqual({ sent: 2, retrying: 0, failed: 0 });
      expect(transport.sent.map((m) => m.orderId)).not.toContain(dying.attempts[0]?.orderId);
      clock.advance(61_000);
      await s2.outbox.runOnce();
      const all = await rows(s2);
      expect(all).toHaveLength(4);
      expect(all.every((r) => r.state === 'sent')).toBe(true);
      expect(transport.sent).toHaveLength(4);
      expect(new Set(transport.sent.map((m) => `${m.orderId}/${m.kind}/${m.role}`)).size).toBe(4);
      for (const id of ids) {
        const sent = transport.sent.filter((m) => m.orderId === id).map((m) => m.role);
        expect(sent).toEqual(['seller', 'buyer']);
      }
    });

    it('the worker runs on its own timer and is nudged by new rows', async () => {
      await server!.close();
      server = await startServer(testSettings(), {
        payoutAccounts: payoutAccountsAssumedToExist,
        store: config,
        priceSource: new TestPrice(clock, '0.25'),
        transport,
        now: clock.now,
        listen: false,
        expireEveryMs: 0,
        outbox: { pollMs: 10_000 },
      });
      await paidWalletOrder(server);
      for (let i = 0; i < 100 && transport.sent.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
      expect(transport.sent.map((m) => m.role)).toEqual(['seller', 'buyer']);
    });

    it('concurrent workers on separate connections never send a row twice', async () => {
      const s = server!;
      const orderIds: string[] = [];
      for (let i = 0; i < 8; i++) orderIds.push(i % 2 ? await paidWalletOrder(s) : await paidQrOrder(s));
      const stores: Store[] = [];
      for (let i = 0; i < 4; i++) stores.push(await openStore(config));
      try {
        const shared = new RecordingTransport();
        shared.delayMs = 5;
        const workers = stores.map((store) =>
          createOutboxWorker({
            store,
            transport: shared,
            now: clock.now,
            batchSize: 3,
            sealer: createSealer(testSettings().privacy.dataKeys),
          }),
        );
        await Promise.all(workers.map((w) => w.runOnce()));
        const all = await rows(s);
        expect(all).toHaveLength(16);
        expect(all.every((r) => r.state === 'sent')).toBe(true);
        expect(shared.sent).toHaveLength(16);
        expect(new Set(shared.sent.map((m) => m.id)).size).toBe(16);
        for (const id of orderIds) {
          const mine = shared.sent.filter((m) => m.orderId === id).map((m) => m.role);
          expect(mine).toEqual(['seller', 'buyer']);
        }
      } finally {
        for (const st of stores) await st.close();
      }
    });
  });
});
