/**
 * The watcher at scale, as main.ts composes it (startPayments with the store), against the localnet with the
 * public endpoint's limits (100 requests / 10 s per IP, 40 per method, 429 above): thousands of open orders cost
 * nothing, a payment is recorded with the WebSocket up, down and back, reference spam does not delay another
 * order, hints cannot fan out RPC calls, and on PostgreSQL one of two instances watches and the other takes over
 * when it dies. Test traffic (the buyer's wallet) names itself to the localnet so it is not counted against the
 * server's address.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection, Keypair, PublicKey } from '@solana/web3.js';
import { catalog } from '../../catalog/index.js';
import { startLocalnet, type Localnet } from '../support/localnet.js';
import { createOrderService } from '../../src/server/orders/service.js';
import {
  createWatchLanes,
  startPayments,
  type RunningPayments,
  type WatcherEvent,
} from '../../src/server/payments/index.js';
import { openStore, type Store } from '../../src/server/store/store.js';
import { PG_URL } from './orders-support.js';
import {
  faucet,
  pay,
  placeWalletOrder,
  serviceOrders,
  waitFor,
  type ServiceOrders,
} from './payments-support.js';

const spamKey = Keypair.generate();

/** Copies `order` `n` times with fresh ids and references: open orders awaiting payment. */
async function bulkOrders(store: Store, orderId: string, n: number): Promise<void> {
  const row = await store.db
    .selectFrom('orders')
    .selectAll()
    .where('id', '=', orderId)
    .executeTakeFirstOrThrow();
  for (let i = 0; i < n; i += 250) {
    const rows = Array.from({ length: Math.min(250, n - i) }, () => ({
      ...row,
      id: randomUUID(),
      reference: Keypair.generate().publicKey.toBase58(),
      public_token: row.public_token === null ? null : randomBytes(24).toString('base64url'),
    }));
    await store.db.insertInto('orders').values(rows).execute();
  }
}

describe('payment watching at scale, within the public endpoint limits', () => {
  let net: Localnet;
  let buyerConnection: Connection;
  let orders: ServiceOrders;
  let payments: RunningPayments | undefined;
  const events: WatcherEvent[] = [];
  const buyer = spamKey;

  beforeAll(async () => {
    net = await startLocalnet({ port: 0, slotMs: 40, finalizeLag: 6, publicLimits: true });
    buyerConnection = new Connection(net.rpcUrl, {
      commitment: 'confirmed',
      httpHeaders: { 'x-localnet-client': 'buyer' },
    });
    orders = await serviceOrders(net, () => new Date());
    await faucet(net, buyer.publicKey, 10, 1_000_000);
  });
  afterAll(async () => {
    await payments?.stop();
    await orders?.close();
    await net?.close();
  });

  const coopers = () => net.keys!.recipients.coopersglass;
  const payFor = (o: { ref: PublicKey; amountBaseUnits: bigint }, amount = o.amountBaseUnits) =>
    pay(buyerConnection, {
      from: buyer,
      recipientOwner: coopers(),
      mint: net.keys!.mint,
      amount,
      references: [o.ref],
    });
  const paid = (orderId: string) => async () =>
    ['paid', 'final'].includes(await orders.status(orderId)) ? true : undefined;

  it('2,000 open orders: two subscriptions, a payment recorded with the WebSocket up, down and back, no 429', async () => {
    const first = await orders.place();
    await bulkOrders(orders.store, first.orderId, 1999);
    payments = await startPayments({
      settings: orders.settings,
      orders: orders.service,
      lanes: orders.lanes,
      store: orders.store,
      onEvent: (e) => events.push(e),
    });
    await waitFor('feed healthy', () => (payments?.feed.healthy() ? true : undefined));
    // One subscription per vendor token account, not per order.
    expect(net.subscriptionCount()).toBe(2);

    // Idle with 2,000 open orders: a few requests, not thousands.
    const before = net.rpcStats().accepted;
    await new Promise((r) => setTimeout(r, 3_000));
    expect(net.rpcStats().accepted - before).toBeLessThanOrEqual(10);

    await payFor(first);
    await waitFor('paid with the WebSocket up', paid(first.orderId), 10_000);

    // The WebSocket is cut: the sweep of the vendor accounts finds the next payment.
    net.setWebSocketDown(true);
    await waitFor('feed down', () => (payments?.feed.healthy() ? undefined : true));
    const second = await orders.place();
    await payFor(second);
    await waitFor('paid with the WebSocket down', paid(second.orderId), 15_000);

    net.setWebSocketDown(false);
    await waitFor('feed back', () => (payments?.feed.healthy() ? true : undefined), 15_000);
    const third = await orders.place();
    await payFor(third);
    await waitFor('paid with the WebSocket back', paid(third.orderId), 10_000);

    expect(payments.rpcStats().throttled).toBe(0);
    // Only the refused WebSocket was reported (the feed's reconnect attempts), nothing else failed.
    expect(events.filter((e) => e.type === 'error' && e.where !== 'websocket')).toEqual([]);
  });

  it('reference spam (junk transactions naming one order) neither delays another order nor costs fetches', async () => {
    const spammed = await orders.place();
    const other = await orders.place();
    const txBefore = net.rpcStats().byMethod.getTransaction ?? 0;
    // 60 transactions naming the spammed order's reference and paying nobody.
    for (let i = 0; i < 60; i++) {
      // A few base units to the spammer's own token account, naming the reference (the vendor is not involved).
      // Spammers are many addresses (each under the endpoint's per-IP limits).
      const spammer = new Connection(net.rpcUrl, {
        commitment: 'confirmed',
        httpHeaders: { 'x-localnet-client': `spammer-${i}` },
      });
      await pay(spammer, {
        from: buyer,
        recipientOwner: buyer.publicKey,
        mint: net.keys!.mint,
        amount: BigInt(i + 1), // distinct transactions (an identical one would be a duplicate)
        references: [spammed.ref],
      });
    }
    await payFor(other);
    await waitFor('other order paid', paid(other.orderId), 10_000);
    // Nothing stood in its way: the server fetched the payment, not the spam (which never touched a vendor
    // account), so the spam cannot delay it whatever its volume (no elapsed-time bound needed).
    const fetched = (net.rpcStats().byMethod.getTransaction ?? 0) - txBefore;
    expect(fetched).toBeLessThanOrEqual(3);
    expect(await orders.status(spammed.orderId)).toBe('awaiting_payment');
  });

  it('hint flooding: 100 made-up signatures and 20 repeats of a real one cost a bounded number of requests', async () => {
    const o = await orders.place();
    const before = net.rpcStats().accepted;
    const handler = payments!.watcher.hintHandler();
    await Promise.all(Array.from({ length: 100 }, () => handler(o, bs58Signature())));
    // One order, one retry loop of at most 3 signatures: the made-up ones are not retried one loop each.
    await new Promise((r) => setTimeout(r, 2_000));
    const spent = net.rpcStats().accepted - before;
    // Each made-up hint: one getSignatureStatuses; the loop retries at most 3 of them.
    expect(spent).toBeLessThanOrEqual(100 + 3 * 4 + 10);
    const signature = await payFor(o);
    await waitFor('paid', paid(o.orderId), 10_000);
    const afterPaid = net.rpcStats().accepted;
    const fresh = await orders.service.findOrder({ orderId: o.orderId });
    await Promise.all(Array.from({ length: 20 }, () => handler(fresh!, signature)));
    // A signature already judged is not fetched again.
    expect(net.rpcStats().accepted - afterPaid).toBeLessThanOrEqual(3);
    expect(payments!.rpcStats().throttled).toBe(0);
  });
});

function bs58Signature(): string {
  // 64 random bytes in base58: a well-formed signature nobody sent.
  return new PublicKey(randomBytes(32)).toBase58() + new PublicKey(randomBytes(32)).toBase58();
}

describe.runIf(PG_URL)('one watcher across instances on PostgreSQL', () => {
  it('two instances: one watches; when it dies the other takes over within seconds and records the payment', async () => {
    const net = await startLocalnet({ port: 0, slotMs: 40, finalizeLag: 6, publicLimits: true });
    const schema = `t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
    const sqliteOrders = await serviceOrders(net, () => new Date());
    const stores: Store[] = [];
    const running: RunningPayments[] = [];
    try {
      const buyer = Keypair.generate();
      await faucet(net, buyer.publicKey, 10, 100_000);
      const conn = new Connection(net.rpcUrl, {
        commitment: 'confirmed',
        httpHeaders: { 'x-localnet-client': 'buyer' },
      });
      const settings = sqliteOrders.settings;
      const instance = async () => {
        const store = await openStore({ kind: 'postgres', url: PG_URL ?? '', schema });
        stores.push(store);
        const lanes = createWatchLanes();
        const service = createOrderService({ store, catalog, settings, now: () => new Date(), lanes });
        const p = await startPayments({ settings, orders: service, lanes, store, leaseMs: 1_500 });
        running.push(p);
        return { service, payments: p };
      };
      const a = await instance();
      const b = await instance();
      await waitFor('one watcher', () =>
        [a, b].filter((i) => i.payments.isWatching()).length === 1 ? true : undefined,
      );
      await new Promise((r) => setTimeout(r, 1_500));
      expect([a, b].filter((i) => i.payments.isWatching())).toHaveLength(1);
      const leader = a.payments.isWatching() ? a : b;
      const follower = leader === a ? b : a;

      // An order (created through the follower: any instance serves requests). The store's stock is seeded from
      // the catalogue as a server start does (Lilac TipTop: one piece).
      const { createStockRepository } = await import('../../src/server/stock/repository.js');
      const stockStore = stores[0];
      if (!stockStore) throw new Error('no store');
      await createStockRepository(stockStore, catalog).seed(catalog, new Date().toISOString());
      const created = await placeWalletOrder(
        follower.service,
        settings,
        () => new Date(),
        'lilac-tiptop',
        `pg-failover-${Date.now()}`,
      );
      const order = await follower.service.findOrder({ orderId: created.body.orderId });
      if (!order) throw new Error('order not found');

      // The leader dies without releasing its lease.
      await leader.payments.stop({ releaseLease: false });
      const diedAt = Date.now();
      await waitFor('takeover', () => (follower.payments.isWatching() ? true : undefined), 10_000);
      expect(Date.now() - diedAt).toBeLessThan(5_000);

      await pay(conn, {
        from: buyer,
        recipientOwner: new PublicKey(order.recipient),
        mint: new PublicKey(order.mint),
        amount: order.amountBaseUnits,
        references: [new PublicKey(order.reference)],
      });
      await waitFor(
        'paid by the new watcher',
        async () =>
          ['paid', 'final'].includes(
            (await follower.service.findOrder({ orderId: order.orderId }))?.status ?? '',
          )
            ? true
            : undefined,
        10_000,
      );
    } finally {
      for (const p of running) await p.stop();
      for (const s of stores) await s.close();
      await sqliteOrders.close();
      await net.close();
      const pg = await import('pg');
      const client = new pg.default.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`drop schema if exists "${schema}" cascade`);
      await client.end();
    }
  });
});
