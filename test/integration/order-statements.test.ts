/**
 * The round trips of a wallet order that holds stock on PostgreSQL (docs/decisions/drops.md "Where a winning order's
 * time goes"): every statement the order's transaction sends, counted on the pool's clients (pg's `Client.query`,
 * wrapped for the test). A drop's winning order (per-buyer limit, cap, the drop's line) and a plain wallet order
 * each take three round trips: the buyer's locks with the begin; the order with its history, its Idempotency-Key's
 * row and ONE read for the balance rule, the per-buyer limit and the cap; the reservation with the stock's update,
 * its log and the end of the buyer's turn, with the commit in the same query (the stock row locked for PostgreSQL's
 * own time: store/pg-simple.ts). The read is in a statement after the locks' (its snapshot is taken when it starts).
 * On PostgreSQL and SQLite: the one read (stock/hold-facts.ts) brings the same facts as SQLite's reads one by one;
 * an order whose answer changes in the transaction (not held after all) stores and replays the answer it got; of
 * orders racing for the last pieces exactly the pieces are held and the others leave nothing behind.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import { Keypair } from '@solana/web3.js';
import type { QuoteResponse } from '../../src/core/api';
import type { Catalog } from '../../src/core/catalog';
import { startServer, type RunningServer } from '../../src/server/server';
import { payoutAccountsAssumedToExist } from '../support/payout-accounts';
import { proofOf } from '../support/hold-proof';
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

const DROP = 'opal-drop';
const PLAIN = 'opal-plain'; // wallet, 3 pieces, no drop
const START = Date.parse('2030-01-01T12:10:00.000Z'); // the Clock starts at 12:00:00

const dropCatalog = (units: number): Catalog =>
  withGlassPieces([
    { id: DROP, name: 'Opal Drop', units, drop: { startsAt: new Date(START).toISOString() } },
    { id: PLAIN, name: 'Opal Plain', units },
  ]);

/** Every statement sent on any pool client while `sent` is armed, with the client that sent it. */
const sent: { client: pg.Client; text: string }[] = [];
let armed = false;
const query = pg.Client.prototype.query;

describe.each([postgresBackend(), sqliteBackend()])('a held wallet order on $name', (backend: Backend) => {
  const pgOnly = backend.name === 'postgres';
  /** PostgreSQL's statements: defined on PostgreSQL only (not skipped on SQLite, where there is nothing to count). */
  const pgIt = (pgOnly ? it.runIf(backend.enabled) : () => undefined) as ReturnType<typeof it.runIf>;
  let clock: Clock;
  let server: RunningServer;
  let keyN = 0;
  /** Every wallet's $CLAIM (far more than any order, unless a test says otherwise). */
  let balance = 10n ** 18n;

  beforeEach(async () => {
    if (!backend.enabled) return;
    clock = new Clock();
    balance = 10n ** 18n;
    server = await startServer(testSettings({ HOLD_LIMIT_PER_CLIENT: '5' }), {
      catalog: dropCatalog(3),
      payoutAccounts: payoutAccountsAssumedToExist,
      walletBalances: { balanceOf: () => Promise.resolve(balance) },
      store: await backend.fresh(),
      priceSource: { current: () => ({ priceUsd: '0.5', fetchedAt: clock.now() }) },
      transport: new RecordingTransport(),
      now: clock.now,
      listen: false,
      startOutbox: false,
      expireEveryMs: 0,
    });
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string })?.text;
      if (armed && text !== undefined) sent.push({ client: this, text });
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
  });
  afterEach(async () => {
    pg.Client.prototype.query = query;
    await server?.close();
  });
  afterAll(async () => {
    await backend.cleanup();
  });

  const inject = (url: string, payload: object, ip: string, headers = {}) =>
    server.app.inject({ method: 'POST', url, remoteAddress: ip, headers, payload });

  /**
   * Quote then order (as Buy Now does), held; on PostgreSQL the statements of the order's transaction, `begin` to
   * `commit`.
   */
  async function orderStatements(productId: string, ip: string, wallet = Keypair.generate()) {
    const q = await inject(
      '/api/quotes',
      { items: [{ productId, quantity: 1 }], wallet: wallet.publicKey.toBase58() },
      ip,
    );
    expect(q.statusCode, q.body).toBe(200);
    const quote = q.json<QuoteResponse>();
    sent.length = 0;
    armed = true;
    const r = await inject(
      '/api/orders',
      {
        quote: quote.quote,
        shipping: intlShipping,
        paymentMethod: 'wallet',
        payer: proofOf(wallet, quote.reference),
      },
      ip,
      { 'idempotency-key': `statements-${++keyN}` },
    );
    armed = false;
    expect(r.statusCode, r.body).toBe(201);
    expect(r.json<{ held: boolean }>().held).toBe(true);
    if (!pgOnly) return [];
    const begin = sent.findIndex((s) => /^\s*begin/i.test(s.text));
    expect(begin).toBeGreaterThanOrEqual(0);
    const client = sent[begin]!.client;
    const mine = sent.slice(begin).filter((s) => s.client === client);
    // The commit: its own statement, or carried by the transaction's last (the reservation's: stock/reservations.ts).
    const commit = mine.findIndex((s) => /(^|;)\s*commit\s*$/i.test(s.text));
    expect(commit).toBeGreaterThan(0);
    return mine.slice(0, commit + 1).map((s) => s.text.replace(/\s+/g, ' ').trim());
  }

  /** Which step of the hold each statement is. */
  const steps = (statements: string[]) =>
    statements.map((s) =>
      /^begin; select pg_advisory_xact_lock/i.test(s)
        ? 'begin+locks'
        : /^begin/i.test(s)
          ? 'begin'
          : /^commit/i.test(s)
            ? 'commit'
            : /update stock.*;\s*commit$/i.test(s)
              ? 'reserve+commit'
              : /pg_advisory_xact_lock/.test(s)
                ? 'locks'
                : /insert into "orders".*as wallet_holds/.test(s)
                  ? 'order+read'
                  : /insert into "orders"/.test(s)
                    ? 'order'
                    : /update stock/.test(s)
                      ? 'reserve'
                      : /^select/i.test(s)
                        ? 'read'
                        : s.slice(0, 60),
    );

  pgIt("a drop's winning order: three round trips, the read after the buyer's locks", async () => {
    clock.advance(START - clock.ms);
    const statements = await orderStatements(DROP, '198.51.100.1');
    expect(steps(statements)).toEqual(['begin+locks', 'order+read', 'reserve+commit']);
    // The locks, with the begin: the wallet's and the client's, in one statement, nothing else in it.
    expect(statements[0]!.match(/pg_advisory_xact_lock/g)).toHaveLength(2);
    expect(statements[0]).not.toMatch(/reservations/);
    // The order's statement carries its Idempotency-Key's row and the read: the balance rule's holds, the per-buyer
    // limit's units, the cap's. The reservation's carries the end of the buyer's turn.
    expect(statements[1]).toMatch(/insert into "idempotency_keys"/);
    expect(statements[1]).toMatch(/as wallet_holds/);
    expect(statements[1]).toMatch(/'active'/);
    expect(statements[1]).toMatch(/as cap$/);
    expect(statements[2]).toMatch(/update "drop_line"/);
    // The turn really ended, and the answer is stored for a replay.
    const line = await server.store.db
      .selectFrom('drop_line')
      .select(['done_at'])
      .where('product_id', '=', DROP)
      .executeTakeFirstOrThrow();
    expect(line.done_at).toBe(clock.now().toISOString());
    const stored = await server.store.db
      .selectFrom('idempotency_keys')
      .select('response_json')
      .where('key', '=', `statements-${keyN}`)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(stored.response_json)).toMatchObject({ held: true });
  });

  pgIt('a plain wallet order that holds: the same three', async () => {
    const statements = await orderStatements(PLAIN, '198.51.100.2');
    expect(steps(statements)).toEqual(['begin+locks', 'order+read', 'reserve+commit']);
    expect(statements[2]).not.toMatch(/drop_line/);
    // Kysely's own begin and commit are not sent by themselves (the begin went with the locks, the commit with the
    // reservation).
    expect(sent.filter((s) => /^\s*(begin|commit)\s*$/i.test(s.text))).toEqual([]);
  });

  it.runIf(backend.enabled)(
    'orders racing for the last pieces: exactly the pieces are held, the rest refused in words, nothing left behind',
    async () => {
      // Six buyers at once for PLAIN's three pieces (no drop: every order reaches the reservation).
      const wallets = Array.from({ length: 6 }, () => Keypair.generate());
      const quotes = await Promise.all(
        wallets.map((w, i) =>
          inject(
            '/api/quotes',
            { items: [{ productId: PLAIN, quantity: 1 }], wallet: w.publicKey.toBase58() },
            `198.51.100.${40 + i}`,
          ),
        ),
      );
      const results = await Promise.all(
        quotes.map((q, i) => {
          const quote = q.json<QuoteResponse>();
          return inject(
            '/api/orders',
            {
              quote: quote.quote,
              shipping: intlShipping,
              paymentMethod: 'wallet',
              payer: proofOf(wallets[i]!, quote.reference),
            },
            `198.51.100.${40 + i}`,
            { 'idempotency-key': `race-${i}` },
          );
        }),
      );
      const codes = results.map((r) => r.statusCode).sort();
      expect(codes).toEqual([201, 201, 201, 409, 409, 409]);
      for (const r of results.filter((x) => x.statusCode === 409))
        expect(r.json<{ message: string }>().message).toMatch(/^(Reserved|Sold out)/);
      const db = server.store.db;
      const stock = await db
        .selectFrom('stock')
        .select(['on_hand', 'reserved'])
        .where('product_id', '=', PLAIN)
        .executeTakeFirstOrThrow();
      expect({ onHand: Number(stock.on_hand), reserved: Number(stock.reserved) }).toEqual({
        onHand: 3,
        reserved: 3,
      });
      const orders = await db.selectFrom('orders').select('id').execute();
      const reservations = await db.selectFrom('reservations').select('order_id').execute();
      const keys = await db.selectFrom('idempotency_keys').select('key').execute();
      expect({ orders: orders.length, reservations: reservations.length, keys: keys.length }).toEqual({
        orders: 3,
        reservations: 3,
        keys: 3,
      });
      // Every pool connection is usable after (none left in an aborted transaction): ten reads at once.
      const reads = await Promise.all(
        Array.from({ length: 10 }, () => db.selectFrom('stock').select('product_id').execute()),
      );
      expect(reads.every((r) => r.length > 0)).toBe(true);
    },
  );

  it.runIf(backend.enabled)(
    "an order beyond what the wallet's other holds leave is taken but not held: its stored answer says so, replayed",
    async () => {
      const first = await inject(
        '/api/quotes',
        { items: [{ productId: PLAIN, quantity: 1 }] },
        '198.51.100.3',
      );
      const amount = BigInt(first.json<QuoteResponse>().amountBaseUnits);
      // Enough for one piece, not two.
      balance = amount + amount / 2n;
      const wallet = Keypair.generate();
      await orderStatements(PLAIN, '198.51.100.3', wallet);
      const q = await inject(
        '/api/quotes',
        { items: [{ productId: PLAIN, quantity: 1 }], wallet: wallet.publicKey.toBase58() },
        '198.51.100.4',
      );
      const quote = q.json<QuoteResponse>();
      const body = {
        quote: quote.quote,
        shipping: intlShipping,
        paymentMethod: 'wallet',
        payer: proofOf(wallet, quote.reference),
      };
      sent.length = 0;
      armed = true;
      const r = await inject('/api/orders', body, '198.51.100.4', { 'idempotency-key': 'beyond' });
      armed = false;
      expect(r.statusCode, r.body).toBe(201);
      expect(r.json()).toMatchObject({
        held: false,
        holdNote: expect.stringMatching(/^Not reserved: this wallet does not hold the [\d,.]+ \$CLAIM/),
      });
      // Stored as answered (the answer foreseen with the order's row was "held", replaced in the transaction).
      if (pgOnly)
        expect(sent.filter((s) => /^update "idempotency_keys"/.test(s.text.trim()))).toHaveLength(1);
      const again = await inject('/api/orders', body, '198.51.100.4', { 'idempotency-key': 'beyond' });
      expect(again.statusCode, again.body).toBe(201);
      expect(again.json()).toEqual(r.json());
      const held = await server.store.db
        .selectFrom('reservations')
        .select('state')
        .where('payer', '=', wallet.publicKey.toBase58())
        .execute();
      expect(held).toEqual([{ state: 'held' }]);
    },
  );

  it.runIf(backend.enabled)(
    "the one read brings what the rules read one by one: the wallet's holds, the buyer's units per drop, the cap's",
    async () => {
      clock.advance(START - clock.ms);
      const w = Keypair.generate();
      const w2 = Keypair.generate();
      // Client A: a plain piece with wallet W, a drop piece with wallet W2; client B: a plain piece with wallet W.
      await orderStatements(PLAIN, '198.51.100.10', w);
      clock.advance(1_000);
      await orderStatements(DROP, '198.51.100.10', w2);
      clock.advance(1_000);
      await orderStatements(PLAIN, '198.51.100.11', w);
      const db = server.store.db;
      const rows = await db
        .selectFrom('reservations as r')
        .innerJoin('orders as o', 'o.id', 'r.order_id')
        .select([
          'r.order_id',
          'r.product_id',
          'r.holder',
          'r.payer',
          'r.expires_at',
          'r.created_at',
          'o.amount_base_units',
        ])
        .orderBy('r.created_at')
        .orderBy('r.product_id')
        .execute();
      expect(rows.map((r) => r.product_id)).toEqual([PLAIN, DROP, PLAIN]);
      const [a1, a2, b1] = rows as [(typeof rows)[0], (typeof rows)[0], (typeof rows)[0]];
      const holderA = a1.holder!;
      expect(a2.holder).toBe(holderA);
      expect(b1.holder).not.toBe(holderA);
      const facts = () =>
        db.transaction().execute((trx) =>
          server.stock.readHoldFacts(trx, {
            wallet: w.publicKey.toBase58(),
            holder: holderA,
            orderId: 'another-order',
            at: clock.now().toISOString(),
            drops: [[DROP], [PLAIN], [DROP, PLAIN]],
            cap: true,
          }),
        );
      const hold = (r: typeof a1) => ({
        orderId: r.order_id,
        amount: BigInt(r.amount_base_units!),
        createdAt: r.created_at,
      });
      expect(await facts()).toEqual({
        walletHolds: [hold(a1), hold(b1)],
        // The drop: client A's (wallet W2); the plain product: client A's and wallet W's; both: all three.
        drops: [
          { active: 1, spent: 0 },
          { active: 2, spent: 0 },
          { active: 3, spent: 0 },
        ],
        cap: { units: 2, nextRelease: [a1.expires_at, a2.expires_at].sort()[0] },
      });
      // The first plain hold given back: no longer the wallet's nor the cap's; spent for the per-buyer limit.
      await db
        .updateTable('reservations')
        .set({ state: 'released' })
        .where('order_id', '=', a1.order_id)
        .execute();
      expect(await facts()).toEqual({
        walletHolds: [hold(b1)],
        drops: [
          { active: 1, spent: 0 },
          { active: 1, spent: 1 },
          { active: 2, spent: 1 },
        ],
        cap: { units: 1, nextRelease: a2.expires_at },
      });
      // The cap not asked, no client: the wallet's units only.
      const walletOnly = await db.transaction().execute((trx) =>
        server.stock.readHoldFacts(trx, {
          wallet: w.publicKey.toBase58(),
          holder: undefined,
          orderId: b1.order_id,
          at: clock.now().toISOString(),
          drops: [[DROP, PLAIN]],
          cap: false,
        }),
      );
      expect(walletOnly).toEqual({
        walletHolds: [hold(b1)],
        drops: [{ active: 1, spent: 1 }],
        cap: undefined,
      });
    },
  );
});
