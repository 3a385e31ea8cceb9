/**
 * The drop's correctness (issue 32, docs/decisions/drops.md), app.inject against a real store (a SQLite file, and
 * PostgreSQL when TEST_DATABASE_URL is set), two server instances on one store where it matters. No timing is
 * asserted: the figures are `npm run bench:drop`'s.
 *
 * - Sold out costs nothing: once nothing is free, quotes and orders on either instance are refused in words
 *   ("Reserved: may come back in N minutes" while a hold is open, "Sold out" after) without a write transaction.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { QuoteResponse } from '../../src/core/api';
import { startServer, type RunningServer } from '../../src/server/server';
import {
  Clock,
  intlShipping,
  postgresBackend,
  RecordingTransport,
  sqliteBackend,
  testSettings,
  type Backend,
} from './orders-support';
import { payoutAccountsAssumedToExist } from '../support/payout-accounts';
import { balancesAssumed, proofOf, TEST_PAYER } from '../support/hold-proof';
import type { StoreConfig } from '../../src/server/store/store';

const backends = [sqliteBackend(), postgresBackend()];
const LILAC = 'lilac-tiptop'; // wallet, glass: one of a kind

describe.each(backends)('drops on $name', (backend: Backend) => {
  describe.runIf(backend.enabled)(`${backend.name} store`, () => {
    let clock: Clock;
    let config: StoreConfig;
    const servers: RunningServer[] = [];
    let keyN = 0;

    /** One instance on the shared store; `transactions()` counts the write transactions it has begun. */
    async function instance(env: Record<string, string> = {}) {
      const server = await startServer(testSettings({ HOLD_LIMIT_PER_CLIENT: '0', ...env }), {
        payoutAccounts: payoutAccountsAssumedToExist,
        walletBalances: balancesAssumed(),
        store: config,
        // Always fresh at the shop's clock (the clock moves here).
        priceSource: { current: () => ({ priceUsd: '0.5', fetchedAt: clock.now() }) },
        transport: new RecordingTransport(),
        now: clock.now,
        listen: false,
        startOutbox: false,
        expireEveryMs: 0,
      });
      servers.push(server);
      let begun = 0;
      const db = server.store.db;
      const transaction = db.transaction.bind(db);
      db.transaction = () => {
        begun++;
        return transaction();
      };
      const inject = (
        method: 'GET' | 'POST',
        url: string,
        payload?: object,
        headers = {},
        ip = '203.0.113.7',
      ) => server.app.inject({ method, url, remoteAddress: ip, headers, ...(payload ? { payload } : {}) });
      const quote = (productId: string, ip?: string) =>
        inject('POST', '/api/quotes', { items: [{ productId, quantity: 1 }] }, {}, ip);
      const order = (q: QuoteResponse, ip?: string) =>
        inject(
          'POST',
          '/api/orders',
          {
            quote: q.quote,
            shipping: intlShipping,
            paymentMethod: 'wallet',
            payer: proofOf(TEST_PAYER, q.reference),
          },
          { 'idempotency-key': `d-${++keyN}` },
          ip,
        );
      return { server, inject, quote, order, transactions: () => begun };
    }

    beforeEach(async () => {
      clock = new Clock();
      config = await backend.fresh();
    });
    afterEach(async () => {
      for (const s of servers.splice(0)) await s.close();
    });
    afterAll(async () => {
      await backend.cleanup();
    });

    it('sold out costs nothing: once nothing is free, both instances refuse quotes and orders in words without a write transaction', async () => {
      const a = await instance();
      const b = await instance();
      // Ten buyers have a quote while the piece is free; the first one's Buy Now holds it (on A).
      const quotes: QuoteResponse[] = [];
      for (let i = 0; i < 10; i++) {
        const q = await (i % 2 ? b : a).quote(LILAC, `198.51.100.${i}`);
        expect(q.statusCode, q.body).toBe(200);
        quotes.push(q.json<QuoteResponse>());
      }
      const held = await a.order(quotes[0]!, '198.51.100.0');
      expect(held.statusCode, held.body).toBe(201);
      expect(held.json<{ held: boolean }>().held).toBe(true);

      const before = { a: a.transactions(), b: b.transactions() };
      // The other nine order on both instances, and new buyers ask for quotes: refused in words, nothing written.
      for (let i = 1; i < 10; i++) {
        const r = await (i % 2 ? b : a).order(quotes[i]!, `198.51.100.${i}`);
        expect(r.statusCode, r.body).toBe(409);
        expect(r.json()).toMatchObject({
          error: 'reserved',
          message: expect.stringMatching(/^Reserved: may come back in 5 minutes\. /),
        });
      }
      for (const inst of [a, b]) {
        const r = await inst.quote(LILAC, '192.0.2.44');
        expect(r.statusCode, r.body).toBe(409);
        expect(r.json<{ message: string }>().message).toMatch(/^Reserved: may come back in 5 minutes\. /);
      }
      expect({ a: a.transactions(), b: b.transactions() }).toEqual(before);
      const orders = await a.server.store.db
        .selectFrom('orders')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(orders.n)).toBe(1);

      // Two minutes later the words count down; the hold lapses (5 min) and the piece is free again on both
      // instances (A released it and forgot at once; B's memory of the sold-out line lapses within a second).
      clock.advance(2 * 60_000);
      expect((await b.quote(LILAC)).json<{ message: string }>().message).toMatch(/in 3 minutes\. /);
      clock.advance(3 * 60_000);
      expect(await a.server.stock.releaseLapsed(clock.now().toISOString())).toBe(1);
      expect((await a.quote(LILAC)).statusCode).toBe(200);
      await new Promise((r) => setTimeout(r, 600)); // B's memory of the sold-out line is half a second
      expect((await b.quote(LILAC)).statusCode).toBe(200);

      // Sold (the seller counts it gone): "Sold out", still without a write transaction.
      await a.server.stock.set({ productId: LILAC }, 0, 'test', clock.now().toISOString());
      const after = { a: a.transactions(), b: b.transactions() };
      await new Promise((r) => setTimeout(r, 600));
      for (const inst of [a, b]) {
        const q = await inst.quote(LILAC);
        expect(q.statusCode, q.body).toBe(409);
        expect(q.json()).toMatchObject({
          error: 'sold_out',
          message: 'Sold out: Lilac TipTop is no longer available.',
        });
        const o = await inst.order(quotes[5]!);
        expect(o.statusCode, o.body).toBe(409);
        expect(o.json<{ error: string }>().error).toBe('sold_out');
      }
      expect({ a: a.transactions(), b: b.transactions() }).toEqual(after);
    });
  });
});
