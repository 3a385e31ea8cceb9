/**
 * A wallet hold needs the money (docs/decisions/holds.md), against the localnet's real SPL Token balances and a
 * real store (SQLite file; PostgreSQL when TEST_DATABASE_URL is set): addresses without $CLAIM hold nothing while
 * a buyer with the money gets the piece; one wallet's holds never sum above its balance (a concurrent burst on
 * PostgreSQL too); a forged or foreign signature is refused; moving the tokens away releases the holds at the next
 * check of the expiry timer.
 */
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import { Connection, Keypair, PublicKey } from '@solana/web3.js';
import { createTransferCheckedInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import type { OrderCreated, QuoteResponse, StockResponse } from '../../src/core/api';
import { startLocalnet, type Localnet } from '../support/localnet';
import { startServer, type RunningServer } from '../../src/server/server';
import { chainRpc } from '../../src/server/payments/connection';
import { createWalletBalances } from '../../src/server/payments/wallet-balances';
import { formatBaseUnits } from '../../src/core/money';
import { payoutAccountsAssumedToExist } from '../support/payout-accounts';
import { proofOf } from '../support/hold-proof';
import { DECIMALS, faucet, send } from './payments-support';
import {
  Clock,
  fakeSignature,
  intlShipping,
  postgresBackend,
  RecordingTransport,
  sqliteBackend,
  testSettings,
  TestPrice,
  type Backend,
} from './orders-support';

const LILAC = 'lilac-tiptop'; // wallet, glass: one of a kind ($95)
const BATH = { productId: 'bathsalts-flower', variantId: 'zips' }; // wallet, stocked per test

let net: Localnet;
beforeAll(async () => {
  net = await startLocalnet({ port: 0, slotMs: 40, finalizeLag: 3 });
});
afterAll(async () => {
  await net?.close();
});

const backends = [sqliteBackend(), postgresBackend()];

describe.each(backends)('wallet holds need the money on $name', (backend: Backend) => {
  describe.runIf(backend.enabled)(`${backend.name} store`, () => {
    let server: RunningServer;
    let clock: Clock;
    let connection: Connection;
    let mint: PublicKey;
    let keyN = 0;
    let price: TestPrice;

    beforeEach(async () => {
      clock = new Clock(Date.now());
      const keys = net.keys;
      if (!keys) throw new Error('localnet without demo keys');
      mint = keys.mint;
      connection = new Connection(net.rpcUrl, 'confirmed');
      const settings = testSettings({
        SOLANA_RPC_URL: net.rpcUrl,
        MIGRATE_ON_START: '1', // a fresh store per test: migrated at start (the release step: migrate.test.ts)
        CLAIM_MINT: keys.mint.toBase58(),
        RECIPIENT_COOPERSGLASS: keys.recipients.coopersglass.toBase58(),
        RECIPIENT_GORILLA: keys.recipients.gorilla.toBase58(),
        HOLD_LIMIT_PER_CLIENT: '0',
      });
      server = await startServer(settings, {
        store: await backend.fresh(),
        priceSource: (price = new TestPrice(clock, '0.5')),
        transport: new RecordingTransport(),
        payoutAccounts: payoutAccountsAssumedToExist,
        now: clock.now,
        listen: false,
        startOutbox: false,
        expireEveryMs: 0,
        retention: false,
        // The production reader (the chain's token accounts), its 10 s cache on the test clock.
        walletBalances: createWalletBalances({
          chain: chainRpc(net.rpcUrl),
          mint: settings.claimMint,
          now: () => clock.ms,
        }),
      });
      await server.stock.set(BATH, 25, 'test', clock.now().toISOString());
    });
    afterEach(async () => {
      await server.close();
    });
    afterAll(async () => {
      await backend.cleanup();
    });

    const inject = (
      method: 'GET' | 'POST',
      url: string,
      payload?: unknown,
      headers = {},
      ip = '203.0.113.9',
    ) =>
      server.app.inject({
        method,
        url,
        remoteAddress: ip,
        ...(payload !== undefined ? { payload: payload as object } : {}),
        headers,
      });
    async function quote(item: { productId: string; variantId?: string }, ip?: string) {
      const r = await inject('POST', '/api/quotes', { items: [{ ...item, quantity: 1 }] }, {}, ip);
      expect(r.statusCode, r.body).toBe(200);
      return r.json<QuoteResponse>();
    }
    /** Buy Now as the checkout sends it: the quote, the details, and the wallet's signed proof. */
    async function buyNow(
      wallet: Keypair | undefined,
      item: { productId: string; variantId?: string },
      ip?: string,
    ) {
      const q = await quote(item, ip);
      return inject(
        'POST',
        '/api/orders',
        {
          quote: q.quote,
          shipping: intlShipping,
          paymentMethod: 'wallet',
          ...(wallet ? { payer: proofOf(wallet, q.reference) } : {}),
        },
        { 'idempotency-key': `w-${++keyN}` },
        ip,
      );
    }
    const line = async (productId: string, variantId?: string) =>
      (await inject('GET', '/api/stock'))
        .json<StockResponse>()
        .lines.find((l) => l.productId === productId && l.variantId === variantId);
    const claimOf = async (owner: PublicKey) => {
      const ata = getAssociatedTokenAddressSync(mint, owner, true);
      const b = await connection.getTokenAccountBalance(ata, 'confirmed').catch(() => undefined);
      return BigInt(b?.value.amount ?? '0');
    };
    /** A wallet with `units` base units of $CLAIM (and SOL for fees). */
    async function funded(units: bigint): Promise<Keypair> {
      const k = Keypair.generate();
      await faucet(net, k.publicKey, 0.05, 0);
      if (units > 0n) {
        const claim = formatBaseUnits(units).replace(/,/g, '');
        await fetch(`${net.rpcUrl}/faucet`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ address: k.publicKey.toBase58(), claim }),
        }).then(async (r) => {
          if (!r.ok) throw new Error(`faucet ${r.status}: ${await r.text()}`);
        });
      }
      expect(await claimOf(k.publicKey)).toBe(units);
      return k;
    }
    const heldSumOf = async (wallet: PublicKey) => {
      const rows = await server.store.db
        .selectFrom('reservations as r')
        .innerJoin('orders as o', 'o.id', 'r.order_id')
        .select(['r.order_id', 'o.amount_base_units'])
        .where('r.payer', '=', wallet.toBase58())
        .where('r.state', '=', 'held')
        .execute();
      const byOrder = new Map(rows.map((r) => [r.order_id, BigInt(r.amount_base_units ?? '0')]));
      return [...byOrder.values()].reduce((a, b) => a + b, 0n);
    };

    it('20 addresses without $CLAIM hold nothing; a buyer with the money gets the piece within seconds while they keep trying', async () => {
      const poor = Array.from({ length: 20 }, () => Keypair.generate());
      // Each signs its own proof from its own address: valid signatures, no money.
      for (const [i, k] of poor.entries()) {
        const r = await buyNow(k, { productId: LILAC }, `198.51.100.${i + 1}`);
        expect(r.statusCode, r.body).toBe(201);
        const body = r.json<OrderCreated>();
        expect(body.held).toBe(false);
        expect(body.holdNote).toMatch(
          /^Not reserved: this wallet does not hold the [\d,.]+ \$CLAIM this order costs/,
        );
      }
      // Without a proof at all: nothing held either.
      const bare = (await buyNow(undefined, { productId: LILAC }, '198.51.100.99')).json<OrderCreated>();
      expect(bare).toMatchObject({ held: false });
      expect(bare.holdNote).toMatch(/^Not reserved: no wallet showed it holds/);
      expect(await line(LILAC)).toEqual({ productId: LILAC, available: 1 });
      expect(await server.store.db.selectFrom('reservations').selectAll().execute()).toEqual([]);

      // The 20 keep trying (every address again and again) while the buyer with the money clicks Buy Now.
      const q = await quote({ productId: LILAC });
      const buyer = await funded(BigInt(q.amountBaseUnits) + 1_000_000n);
      let stop = false;
      let attempts = 0;
      const attackers = poor.map(async (k, i) => {
        const ip = `198.51.100.${i + 1}`;
        while (!stop) {
          attempts += 1;
          const qr = await inject(
            'POST',
            '/api/quotes',
            { items: [{ productId: LILAC, quantity: 1 }] },
            {},
            ip,
          );
          if (qr.statusCode !== 200) continue; // 409 once the buyer holds it
          const q = qr.json<QuoteResponse>();
          const r = await inject(
            'POST',
            '/api/orders',
            {
              quote: q.quote,
              shipping: intlShipping,
              paymentMethod: 'wallet',
              payer: proofOf(k, q.reference),
            },
            { 'idempotency-key': `a-${++keyN}` },
            ip,
          );
          if (r.statusCode === 201) expect(r.json<OrderCreated>().held).toBe(false);
          else expect(r.statusCode, r.body).toBe(409);
        }
      });
      const started = Date.now();
      let mine: OrderCreated | undefined;
      while (!mine && Date.now() - started < 10_000) {
        const r = await buyNow(buyer, { productId: LILAC }, '192.0.2.10');
        if (r.statusCode === 201 && r.json<OrderCreated>().held) mine = r.json<OrderCreated>();
      }
      const tookMs = Date.now() - started;
      stop = true;
      await Promise.all(attackers);
      expect(mine, 'the buyer with the money holds the piece').toBeDefined();
      expect(tookMs).toBeLessThan(5_000);
      console.log(
        `wallet holds: buyer held the piece after ${tookMs} ms while 20 addresses made ${attempts} attempts`,
      );
      expect(await line(LILAC)).toMatchObject({ available: 0, held: 1 });
      // Their payment is seen: the piece is theirs.
      const paid = await server.orders.recordPayment(
        { orderId: mine!.orderId },
        {
          signature: fakeSignature(),
          receivedBaseUnits: BigInt(mine!.amountBaseUnits),
          finalized: true,
          blockTime: null,
        },
      );
      expect(paid).toMatchObject({ ok: true, status: 'final' });
      expect(await line(LILAC)).toEqual({ productId: LILAC, available: 0 });
    });

    it("one wallet's holds never sum above its balance: the order beyond it is taken but not held", async () => {
      const q = await quote(BATH);
      const amount = BigInt(q.amountBaseUnits);
      const wallet = await funded(amount * 2n + amount / 2n); // two and a half orders
      const results: boolean[] = [];
      for (let i = 0; i < 4; i++) {
        const r = await buyNow(wallet, BATH, `192.0.2.${20 + i}`); // other addresses: the cap is not the limit
        expect(r.statusCode, r.body).toBe(201);
        results.push(r.json<OrderCreated>().held === true);
      }
      expect(results).toEqual([true, true, false, false]);
      expect(await heldSumOf(wallet.publicKey)).toBe(amount * 2n);
      expect(await line(BATH.productId, BATH.variantId)).toMatchObject({ available: 23, held: 2 });
      // Once one hold lapses, the wallet may hold again (its balance covers it beside the other).
      clock.advance(5 * 60_000 + 1_000);
      price.set('0.5');
      await server.orders.expireOrders();
      const again = await buyNow(wallet, BATH);
      expect(again.json<OrderCreated>().held).toBe(true);
    });

    it('a concurrent burst from one wallet (many addresses) holds at most what its balance covers', async () => {
      const q = await quote(BATH);
      const amount = BigInt(q.amountBaseUnits);
      const wallet = await funded(amount * 3n + amount / 3n);
      const quotes = await Promise.all(Array.from({ length: 12 }, () => quote(BATH)));
      const answers = await Promise.all(
        quotes.map((qq, i) =>
          inject(
            'POST',
            '/api/orders',
            {
              quote: qq.quote,
              shipping: intlShipping,
              paymentMethod: 'wallet',
              payer: proofOf(wallet, qq.reference),
            },
            { 'idempotency-key': `burst-${i}-${++keyN}` },
            `192.0.2.${100 + i}`,
          ),
        ),
      );
      expect(answers.map((a) => a.statusCode)).toEqual(Array(12).fill(201));
      const held = answers.filter((a) => a.json<OrderCreated>().held === true);
      expect(held).toHaveLength(3);
      expect(await heldSumOf(wallet.publicKey)).toBe(amount * 3n);
      expect(await line(BATH.productId, BATH.variantId)).toMatchObject({ available: 22, held: 3 });
    });

    it("a forged or foreign signature is refused in words and makes nothing; a whale's address cannot be borrowed", async () => {
      const q0 = await quote({ productId: LILAC });
      const whale = await funded(BigInt(q0.amountBaseUnits) * 10n);
      const attacker = Keypair.generate();
      const orders = async () => (await server.store.db.selectFrom('orders').select('id').execute()).length;
      const before = await orders();
      const attempt = async (payer: unknown) => {
        const q = await quote({ productId: LILAC });
        return inject(
          'POST',
          '/api/orders',
          {
            quote: q.quote,
            shipping: intlShipping,
            paymentMethod: 'wallet',
            payer: payer instanceof Function ? payer(q) : payer,
          },
          { 'idempotency-key': `f-${++keyN}` },
        );
      };
      // The whale's address, signed by the attacker's key.
      const borrowed = await attempt((q: QuoteResponse) => ({
        ...proofOf(attacker, q.reference),
        address: whale.publicKey.toBase58(),
      }));
      // The whale's real signature, but for another order's reference (seen elsewhere, replayed).
      const replayed = await attempt(proofOf(whale, q0.reference));
      // Bytes that are no signature at all.
      const garbage = await attempt({
        address: whale.publicKey.toBase58(),
        signature: `${'A'.repeat(86)}==`,
      });
      for (const r of [borrowed, replayed, garbage]) {
        expect(r.statusCode, r.body).toBe(400);
        expect(r.json()).toEqual({
          error: 'invalid_payer_proof',
          message:
            "The wallet's signature does not match this order. Please click Buy Now again and approve the message in your wallet.",
          field: 'payer.signature',
        });
      }
      // Not a signature's shape: the request's own validation.
      const malformed = await attempt({ address: whale.publicKey.toBase58(), signature: 'x' });
      expect(malformed.statusCode).toBe(400);
      expect(malformed.json()).toMatchObject({ error: 'invalid_order_request' });
      expect(await orders()).toBe(before);
      expect(await line(LILAC)).toEqual({ productId: LILAC, available: 1 });
      // The whale itself holds.
      expect((await buyNow(whale, { productId: LILAC })).json<OrderCreated>().held).toBe(true);
    });

    it('moving the tokens away releases the holds at the next check; a wallet that keeps them keeps its hold', async () => {
      const q = await quote(BATH);
      const amount = BigInt(q.amountBaseUnits);
      const mover = await funded(amount * 2n);
      const keeper = await funded(amount);
      const m1 = await buyNow(mover, BATH, '192.0.2.31');
      const m2 = await buyNow(mover, BATH, '192.0.2.32');
      const k1 = await buyNow(keeper, BATH, '192.0.2.33');
      for (const r of [m1, m2, k1]) expect(r.json<OrderCreated>().held).toBe(true);
      expect(await line(BATH.productId, BATH.variantId)).toMatchObject({ available: 22, held: 3 });
      // The mover sends all but half an order's worth to another wallet of theirs.
      const elsewhere = Keypair.generate();
      const from = getAssociatedTokenAddressSync(mint, mover.publicKey, true);
      await faucet(net, elsewhere.publicKey, 0, 1); // opens its token account
      const to = getAssociatedTokenAddressSync(mint, elsewhere.publicKey, true);
      await send(
        connection,
        [
          createTransferCheckedInstruction(
            from,
            mint,
            to,
            mover.publicKey,
            amount * 2n - amount / 2n,
            DECIMALS,
          ),
        ],
        [mover],
      );
      expect(await claimOf(mover.publicKey)).toBe(amount / 2n);
      // Within the balance cache (10 s) nothing is re-read; the next check after it releases both.
      clock.advance(11_000);
      price.set('0.5');
      await server.orders.expireOrders();
      expect(await heldSumOf(mover.publicKey)).toBe(0n);
      expect(await heldSumOf(keeper.publicKey)).toBe(amount);
      expect(await line(BATH.productId, BATH.variantId)).toMatchObject({ available: 24, held: 1 });
      const log = await server.stock.recentChanges([BATH.productId], 5);
      expect(log.filter((c) => c.kind === 'release' && c.actor === 'no-funds')).toHaveLength(2);
      // The orders stay payable: a payment still sells the unit while it is free.
      const o = m1.json<OrderCreated>();
      const paid = await server.orders.recordPayment(
        { orderId: o.orderId },
        { signature: fakeSignature(), receivedBaseUnits: amount, finalized: true, blockTime: null },
      );
      expect(paid).toMatchObject({ ok: true, status: 'final' });
    });
  });
});
