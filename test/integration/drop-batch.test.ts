/**
 * A vendor's batch (issue 32 item 2, docs/decisions/drops.md "A vendor's batch"): several products, one drop, one
 * per-buyer limit across them; and a lapsed hold's piece going to the next in line at once. app.inject against a
 * real store (a SQLite file, and PostgreSQL when TEST_DATABASE_URL is set), two server instances on one store.
 *
 * - One buyer (the same client, or the same wallet from another address) holds at most `perBuyer` pieces of the
 *   batch, also when their orders come at once on both instances; another batch is another drop.
 * - A buyer with their piece leaves the line of the batch's other pieces: their pages say so and they take no one's
 *   turn there.
 * - One turn: a buyer whose hold in the batch lapsed unpaid has had their turn in the batch.
 * - A hold past its deadline is given back when a read sees it (a waiting buyer's line, a quote), not at the next
 *   release sweep, on either instance.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Keypair } from '@solana/web3.js';
import type { DropLineResponse, QuoteResponse } from '../../src/core/api';
import type { Catalog } from '../../src/core/catalog';
import { startServer, type RunningServer } from '../../src/server/server';
import type { StoreConfig } from '../../src/server/store/store';
import { sellerStock } from '../../src/server/seller/stock';
import { payoutAccountsAssumedToExist } from '../support/payout-accounts';
import { balancesAssumed, proofOf } from '../support/hold-proof';
import {
  Clock,
  intlShipping,
  postgresBackend,
  RecordingTransport,
  sqliteBackend,
  testSettings,
  type Backend,
  withGlassPieces,
} from './orders-support';

const backends = [sqliteBackend(), postgresBackend()];
const START = Date.parse('2030-01-01T12:10:00.000Z'); // the Clock starts at 12:00:00
const SPRING = ['spring-1', 'spring-2', 'spring-3', 'spring-4'];
const AUTUMN = 'autumn-1';

/** The shop's catalogue with batch 'Spring 2026' (4 one-of-a-kind pieces) and 'Autumn 2026' (1), from START. */
function batchCatalog(): Catalog {
  const piece = (id: string, batch: string) => ({
    id,
    name: `Piece ${id}`,
    units: 1,
    drop: { startsAt: new Date(START).toISOString(), holdMinutes: 2, batch },
  });
  return withGlassPieces([...SPRING.map((id) => piece(id, 'Spring 2026')), piece(AUTUMN, 'Autumn 2026')]);
}

describe.each(backends)('a drop batch on $name', (backend: Backend) => {
  describe.runIf(backend.enabled)(`${backend.name} store`, () => {
    let clock: Clock;
    let config: StoreConfig;
    const servers: RunningServer[] = [];
    let keyN = 0;

    async function instance() {
      const server = await startServer(testSettings({ HOLD_LIMIT_PER_CLIENT: '0' }), {
        catalog: batchCatalog(),
        payoutAccounts: payoutAccountsAssumedToExist,
        walletBalances: balancesAssumed(),
        store: config,
        priceSource: { current: () => ({ priceUsd: '0.5', fetchedAt: clock.now() }) },
        transport: new RecordingTransport(),
        now: clock.now,
        listen: false,
        startOutbox: false,
        expireEveryMs: 0, // no release sweep: what gives a lapsed hold back here is the reads
      });
      servers.push(server);
      const inject = (url: string, ip: string, payload?: object, headers = {}) =>
        server.app.inject({
          method: 'POST',
          url,
          remoteAddress: ip,
          headers,
          ...(payload ? { payload } : {}),
        });
      const line = async (productId: string, ip: string) => {
        const r = await inject(`/api/drops/${productId}/line`, ip);
        expect(r.statusCode, r.body).toBe(200);
        return r.json<DropLineResponse>().place;
      };
      const quote = (productId: string, ip: string) =>
        inject('/api/quotes', ip, { items: [{ productId, quantity: 1 }] });
      /** Quote then order, as Buy Now does. */
      const buy = async (productId: string, ip: string, wallet: Keypair) => {
        const q = await quote(productId, ip);
        if (q.statusCode !== 200) return q;
        const { quote: signed, reference } = q.json<QuoteResponse>();
        return inject(
          '/api/orders',
          ip,
          {
            quote: signed,
            shipping: intlShipping,
            paymentMethod: 'wallet',
            payer: proofOf(wallet, reference),
          },
          { 'idempotency-key': `b-${++keyN}` },
        );
      };
      const states = async (productIds: readonly string[]) =>
        (
          await server.store.db
            .selectFrom('reservations')
            .select(['product_id', 'state'])
            .where('product_id', 'in', productIds)
            .orderBy('product_id')
            .execute()
        ).map((r) => `${r.product_id} ${r.state}`);
      return { server, line, quote, buy, states };
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

    const codeOf = (r: { json: <T>() => T }) => r.json<{ error: string }>().error;
    const SPRING_LIMIT =
      'One buyer can have at most 1 piece of this drop (Spring 2026), and you already have one reserved or bought.';
    const SPRING_TURN =
      'One buyer can have at most 1 piece of this drop (Spring 2026), and you have had your turn: each buyer is let through once.';

    it('one piece per buyer across the batch: the same client or the same wallet is refused another piece; another batch is another drop', async () => {
      const a = await instance();
      const b = await instance();
      clock.advance(START - clock.ms);
      const wallet = Keypair.generate();
      // The buyer is let through on spring-2's page (its piece is free), then buys spring-1 on the other instance.
      expect((await b.line('spring-2', '198.51.100.1')).state).toBe('through');
      const first = await a.buy('spring-1', '198.51.100.1', wallet);
      expect(first.statusCode, first.body).toBe(201);
      // spring-2's page says they have their piece of the drop (and asks no more), on either instance; their quote
      // for it is refused in the batch's words.
      for (const inst of [a, b])
        expect(await inst.line('spring-2', '198.51.100.1')).toEqual({
          state: 'done',
          batch: { name: 'Spring 2026', hasPiece: true },
        });
      expect(await a.line('spring-3', '198.51.100.1')).toEqual({
        state: 'done',
        batch: { name: 'Spring 2026', hasPiece: true },
      });
      const again = await b.quote('spring-3', '198.51.100.1');
      expect(again.statusCode, again.body).toBe(409);
      expect(again.json()).toMatchObject({ error: 'drop_turn_passed', message: SPRING_TURN });
      // They took no one's turn there: the next buyer on spring-2's page is let through at once.
      expect((await a.line('spring-2', '198.51.100.2')).state).toBe('through');
      // The same wallet from another address: refused in the order's transaction, in the batch's words.
      const otherClient = await b.buy('spring-3', '198.51.100.3', wallet);
      expect(otherClient.statusCode, otherClient.body).toBe(409);
      expect(otherClient.json()).toMatchObject({ error: 'drop_limit', message: SPRING_LIMIT });
      // That address keeps no turn on spring-3 either: the next buyer there is let through at once.
      expect(await a.line('spring-3', '198.51.100.3')).toEqual({
        state: 'done',
        batch: { name: 'Spring 2026', hasPiece: false },
      });
      expect((await b.line('spring-3', '198.51.100.4')).state).toBe('through');
      // Another batch is another drop: the same buyer buys its piece.
      const autumn = await b.buy(AUTUMN, '198.51.100.1', wallet);
      expect(autumn.statusCode, autumn.body).toBe(201);
      expect(await a.states([...SPRING, AUTUMN])).toEqual(['autumn-1 held', 'spring-1 held']);
      // The vendor's console: the batch's pieces with their batch, and who had their turn on another piece of it or
      // from another address (the buyer on every other piece, the same wallet's other address on every piece).
      const { drops } = await sellerStock(
        { stock: a.server.stock, catalog: batchCatalog(), now: clock.now },
        ['coopersglass'],
      );
      expect(drops?.map((d) => [d.productId, d.batch, d.held, d.line.elsewhere])).toEqual([
        ['spring-1', 'Spring 2026', 1, 1],
        ['spring-2', 'Spring 2026', 0, 2],
        ['spring-3', 'Spring 2026', 0, 2],
        ['spring-4', 'Spring 2026', 0, 2],
        ['autumn-1', 'Autumn 2026', 1, 0],
      ]);
      expect(drops?.find((d) => d.productId === 'spring-2')?.line).toMatchObject({ joined: 2, through: 1 });
    });

    it('one piece per buyer when their orders come at once on both instances: one client with four wallets, one wallet from four clients', async () => {
      const a = await instance();
      const b = await instance();
      clock.advance(START - clock.ms);
      // One client asks for every piece at once, each order with its own wallet.
      const sameClient = await Promise.all(
        SPRING.map((id, i) => (i % 2 ? a : b).buy(id, '203.0.113.9', Keypair.generate())),
      );
      expect(sameClient.filter((r) => r.statusCode === 201)).toHaveLength(1);
      for (const r of sameClient.filter((x) => x.statusCode !== 201)) {
        expect(r.statusCode, r.body).toBe(409);
        expect(['drop_limit', 'drop_turn_passed']).toContain(codeOf(r));
      }
      // One wallet from three other clients at once, for the three pieces left.
      const wallet = Keypair.generate();
      const left = SPRING.filter((_, i) => sameClient[i]!.statusCode !== 201);
      const sameWallet = await Promise.all(
        left.map((id, i) => (i % 2 ? a : b).buy(id, `203.0.113.${20 + i}`, wallet)),
      );
      expect(sameWallet.filter((r) => r.statusCode === 201)).toHaveLength(1);
      for (const r of sameWallet.filter((x) => x.statusCode !== 201)) {
        expect(r.statusCode, r.body).toBe(409);
        expect(r.json()).toMatchObject({ error: 'drop_limit', message: SPRING_LIMIT });
      }
      expect((await a.states(SPRING)).filter((s) => s.endsWith('held'))).toHaveLength(2);
      const levels = (await a.server.stock.levels()).filter((l) => SPRING.includes(l.productId));
      expect(levels.reduce((n, l) => n + l.reserved, 0)).toBe(2);
    });

    it('a lapsed hold: its piece goes to the next in line at the first read after its deadline, and its buyer has had their turn in the batch', async () => {
      const a = await instance();
      const b = await instance();
      clock.advance(START - clock.ms);
      const wallet = Keypair.generate();
      const held = await a.buy('spring-1', '198.51.100.1', wallet);
      expect(held.statusCode, held.body).toBe(201);
      // The next buyer waits on spring-1's page.
      expect(await b.line('spring-1', '198.51.100.2')).toEqual({ state: 'waiting', ahead: 0 });
      // The hold (2 minutes) lapses unpaid. No release sweep runs: the waiting buyer's next read gives it back and
      // lets them through, on the other instance.
      clock.advance(2 * 60_000 - 1);
      expect(await b.line('spring-1', '198.51.100.2')).toEqual({ state: 'waiting', ahead: 0 });
      clock.advance(1);
      expect((await b.line('spring-1', '198.51.100.2')).state).toBe('through');
      expect(await a.states(['spring-1'])).toEqual(['spring-1 released']);
      const log = await a.server.stock.changes({ productId: 'spring-1' });
      expect(log.at(-1)).toMatchObject({ kind: 'release', actor: 'expiry', reservedAfter: 0 });
      const next = await a.buy('spring-1', '198.51.100.2', Keypair.generate());
      expect(next.statusCode, next.body).toBe(201);
      // The buyer whose hold lapsed has had their turn in the batch: on its other pieces' pages, and by their wallet
      // from another address.
      expect(await a.line('spring-2', '198.51.100.1')).toEqual({
        state: 'done',
        batch: { name: 'Spring 2026', hasPiece: false },
      });
      const fromElsewhere = await b.buy('spring-3', '198.51.100.5', wallet);
      expect(fromElsewhere.statusCode, fromElsewhere.body).toBe(409);
      expect(fromElsewhere.json()).toMatchObject({ error: 'drop_turn_passed', message: SPRING_TURN });
      // Another batch is another turn.
      expect((await b.buy(AUTUMN, '198.51.100.1', wallet)).statusCode).toBe(201);
    });

    it('a lapsed hold of a product that is not a drop: the next quote after its deadline gives it back (no sweep), on either instance', async () => {
      const a = await instance();
      const b = await instance();
      const q = await a.quote('lilac-tiptop', '198.51.100.1');
      const { quote: signed, reference } = q.json<QuoteResponse>();
      const order = await a.server.app.inject({
        method: 'POST',
        url: '/api/orders',
        remoteAddress: '198.51.100.1',
        headers: { 'idempotency-key': 'lilac-1' },
        payload: {
          quote: signed,
          shipping: intlShipping,
          paymentMethod: 'wallet',
          payer: proofOf(Keypair.generate(), reference),
        },
      });
      expect(order.json<{ held: boolean }>().held).toBe(true);
      const refused = await b.quote('lilac-tiptop', '198.51.100.2');
      expect(refused.json<{ error: string }>().error).toBe('reserved');
      // The hold's own deadline (holds.md: 5 minutes by default here) passes: the next quote, on B, gets the piece.
      const deadline = (
        await a.server.store.db
          .selectFrom('reservations')
          .select('expires_at')
          .where('product_id', '=', 'lilac-tiptop')
          .executeTakeFirstOrThrow()
      ).expires_at;
      clock.advance(Date.parse(deadline) - clock.ms);
      const again = await b.quote('lilac-tiptop', '198.51.100.2');
      expect(again.statusCode, again.body).toBe(200);
      expect(await a.states(['lilac-tiptop'])).toEqual(['lilac-tiptop released']);
    });
  });
});
