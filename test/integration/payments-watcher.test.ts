import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Connection, Keypair, PublicKey } from '@solana/web3.js';
import { startLocalnet, type Localnet } from '../../src/localnet/index.js';
import { WsLogsFeed } from '../../src/server/payments/feed.js';
import { connectionPaymentRpc, type PaymentRpc } from '../../src/server/payments/rpc.js';
import { PaymentWatcher, type PaymentWatcherOptions, type WatcherEvent } from '../../src/server/payments/watcher.js';
import { faucet, MemoryOrders, pay, waitFor } from './payments-support.js';

// The watcher against real transactions on the localnet and an order port applying the real status rules.

describe('PaymentWatcher against the localnet', () => {
  let net: Localnet;
  let connection: Connection;
  let rpc: PaymentRpc;
  let mint: PublicKey;
  let coopers: PublicKey;
  const buyer = Keypair.generate();
  const PRICE = 5_000_000n;
  const running: { watcher: PaymentWatcher; feed?: WsLogsFeed }[] = [];
  let clock = Date.now();

  beforeAll(async () => {
    net = await startLocalnet({ port: 0, slotMs: 40, finalizeLag: 6 });
    if (!net.keys) throw new Error('localnet not seeded');
    mint = net.keys.mint;
    coopers = net.keys.recipients.coopersglass;
    connection = new Connection(net.rpcUrl, 'confirmed');
    rpc = connectionPaymentRpc(connection, { timeoutMs: 5000 });
    await faucet(net, buyer.publicKey, 10, 10_000);
  });
  afterEach(async () => {
    for (const r of running.splice(0)) {
      await r.watcher.stop();
      await r.feed?.close();
    }
    clock = Date.now();
  });
  afterAll(async () => {
    await net.close();
  });

  let n = 0;
  function newOrder(orders: MemoryOrders, over: { expiresInMs?: number; status?: 'awaiting_payment' | 'expired' } = {}) {
    const ref = Keypair.generate().publicKey;
    const order = orders.add({
      id: `order-${++n}`,
      reference: ref.toBase58(),
      recipient: coopers.toBase58(),
      mint: mint.toBase58(),
      amountBaseUnits: PRICE,
      expiresAt: new Date(clock + (over.expiresInMs ?? 15 * 60_000)),
      status: over.status,
    });
    return { ...order, ref };
  }

  function watcher(orders: MemoryOrders, opts: Partial<PaymentWatcherOptions> & { ws?: boolean | string } = {}) {
    const events: WatcherEvent[] = [];
    const feed = opts.ws === false ? undefined : new WsLogsFeed(typeof opts.ws === 'string' ? opts.ws : net.wsUrl, { reconnectMs: 100 });
    const w = new PaymentWatcher({
      rpc,
      orders,
      feed,
      recipients: [coopers.toBase58(), net.keys!.recipients.gorilla.toBase58()],
      mint: mint.toBase58(),
      now: () => new Date(clock),
      refreshIntervalMs: 100,
      pollIntervalMs: 300,
      safetyPollIntervalMs: 60_000,
      sweepIntervalMs: 60_000,
      finalityIntervalMs: 100,
      onEvent: (e) => events.push(e),
      ...opts,
    });
    running.push({ watcher: w, feed });
    return { watcher: w, events, feed };
  }

  const errors = (events: WatcherEvent[]) => events.filter((e) => e.type === 'error');

  it('marks an order paid from the WebSocket notification, then final once finalized', async () => {
    const orders = new MemoryOrders();
    const o = newOrder(orders);
    const { watcher: w, events, feed } = watcher(orders, { pollIntervalMs: 60_000 });
    await w.start();
    await waitFor('feed healthy', () => (feed?.healthy() ? true : undefined));
    const signature = await pay(connection, { from: buyer, recipientOwner: coopers, mint, amount: PRICE, references: [o.ref] });
    await waitFor('paid', () => (orders.status(o.id) === 'paid' || orders.status(o.id) === 'final' ? true : undefined));
    expect(events.find((e) => e.type === 'recorded')).toMatchObject({ orderId: o.id, via: 'feed', outcome: { kind: 'Paid', signature } });
    await waitFor('final', () => (orders.status(o.id) === 'final' ? true : undefined));
    expect(events.some((e) => e.type === 'final' && e.orderId === o.id)).toBe(true);
    expect(errors(events)).toEqual([]);
  });

  it('matches a payment made while the watcher was stopped, on restart', async () => {
    const orders = new MemoryOrders();
    const o = newOrder(orders);
    const first = watcher(orders);
    await first.watcher.start();
    await first.watcher.stop();
    await first.feed?.close();
    const signature = await pay(connection, { from: buyer, recipientOwner: coopers, mint, amount: PRICE, references: [o.ref] });
    expect(orders.status(o.id)).toBe('awaiting_payment');
    const second = watcher(orders, { pollIntervalMs: 60_000 });
    await second.watcher.start();
    expect(orders.status(o.id)).toBe('paid');
    expect(second.events.find((e) => e.type === 'recorded')).toMatchObject({ via: 'start', outcome: { signature } });
  });

  it('reconciles from the vendor token account sweep when no notification arrives', async () => {
    const orders = new MemoryOrders();
    const o = newOrder(orders);
    // No feed, no polling: only the sweep of the vendors' token accounts can find it.
    const { watcher: w, events } = watcher(orders, { ws: false, pollIntervalMs: 60_000, sweepIntervalMs: 150 });
    await w.start();
    const signature = await pay(connection, { from: buyer, recipientOwner: coopers, mint, amount: PRICE, references: [o.ref] });
    await waitFor('paid by sweep', () => (orders.status(o.id) === 'paid' || orders.status(o.id) === 'final' ? true : undefined));
    expect(events.find((e) => e.type === 'recorded')).toMatchObject({ via: 'sweep', outcome: { signature } });
  });

  it('falls back to polling while the WebSocket is down', async () => {
    const orders = new MemoryOrders();
    const o = newOrder(orders);
    const { watcher: w, events, feed } = watcher(orders, { ws: 'ws://127.0.0.1:9' });
    await w.start();
    expect(feed?.healthy()).toBe(false);
    await pay(connection, { from: buyer, recipientOwner: coopers, mint, amount: PRICE, references: [o.ref] });
    await waitFor('paid by polling', () => (orders.status(o.id) === 'paid' || orders.status(o.id) === 'final' ? true : undefined));
    expect(events.find((e) => e.type === 'recorded')).toMatchObject({ via: 'poll' });
  });

  it('records a late payment to an expired quote as paid_late', async () => {
    const orders = new MemoryOrders();
    const o = newOrder(orders, { expiresInMs: -60_000, status: 'expired' });
    const { watcher: w } = watcher(orders);
    await w.start();
    await pay(connection, { from: buyer, recipientOwner: coopers, mint, amount: PRICE, references: [o.ref] });
    await waitFor('paid_late', () => (orders.status(o.id) === 'paid_late' ? true : undefined));
    expect(orders.recorded).toHaveLength(1);
  });

  it('stops watching a reference 24 h after its quote expired', async () => {
    const orders = new MemoryOrders();
    const o = newOrder(orders, { expiresInMs: -24 * 60 * 60_000 - 1000, status: 'expired' });
    await pay(connection, { from: buyer, recipientOwner: coopers, mint, amount: PRICE, references: [o.ref] });
    const { watcher: w } = watcher(orders, { pollIntervalMs: 60_000 });
    await w.start();
    expect(orders.status(o.id)).toBe('expired');
    expect(orders.recorded).toHaveLength(0);
  });

  it('records an underpayment as underpaid once the quote expires, not before (dust cannot block the real payment)', async () => {
    const orders = new MemoryOrders();
    const short = newOrder(orders);
    const dusted = newOrder(orders);
    const { watcher: w, events } = watcher(orders);
    await w.start();
    await pay(connection, { from: buyer, recipientOwner: coopers, mint, amount: PRICE - 1n, references: [short.ref] });
    await pay(connection, { from: buyer, recipientOwner: coopers, mint, amount: 1n, references: [dusted.ref] });
    await waitFor('partial seen', () => (events.some((e) => e.type === 'partial' && e.orderId === short.id) ? true : undefined));
    expect(orders.status(short.id)).toBe('awaiting_payment');
    const real = await pay(connection, { from: buyer, recipientOwner: coopers, mint, amount: PRICE, references: [dusted.ref] });
    await waitFor('dusted order paid', () => (orders.orders.get(dusted.id)?.signature === real ? true : undefined));
    clock += 16 * 60_000; // the quote expires
    await waitFor('underpaid', () => (orders.status(short.id) === 'underpaid' ? true : undefined));
    expect(orders.orders.get(short.id)?.receivedBaseUnits).toBe(PRICE - 1n);
    expect(['paid', 'final']).toContain(orders.status(dusted.id));
  });

  it('never lets one transaction or a second payment mark a second order', async () => {
    const orders = new MemoryOrders();
    const a = newOrder(orders);
    const b = newOrder(orders);
    const { watcher: w, events } = watcher(orders);
    await w.start();
    // One transfer carrying both references: only one order may take it.
    const both = await pay(connection, { from: buyer, recipientOwner: coopers, mint, amount: PRICE, references: [a.ref, b.ref] });
    await waitFor('one paid', () => (orders.recorded.length > 0 ? true : undefined));
    // A second payment to the first order's reference.
    const winner = orders.recorded[0]!.orderId === a.id ? a : b;
    const loser = winner === a ? b : a;
    await pay(connection, { from: buyer, recipientOwner: coopers, mint, amount: PRICE, references: [winner.ref] });
    await new Promise((r) => setTimeout(r, 1000));
    expect(orders.recorded).toHaveLength(1);
    expect(orders.orders.get(winner.id)?.signature).toBe(both);
    expect(orders.status(loser.id)).toBe('awaiting_payment');
    expect(events.some((e) => e.type === 'rejected' && e.orderId === loser.id && e.outcome.kind === 'AlreadyUsed')).toBe(true);
    expect(errors(events)).toEqual([]);
  });

  it('confirms the wallet page hint by re-reading the chain', async () => {
    const orders = new MemoryOrders();
    const o = newOrder(orders);
    const other = newOrder(orders);
    const { watcher: w } = watcher(orders, { ws: false, pollIntervalMs: 60_000 });
    await w.start();
    const signature = await pay(connection, { from: buyer, recipientOwner: coopers, mint, amount: PRICE, references: [o.ref] });
    // Reported for the wrong order: rejected, nothing recorded.
    expect(await w.onPaymentHint(orders.orders.get(other.id)!, signature)).toEqual({ kind: 'NotFound', reason: 'reference_missing' });
    expect(orders.status(other.id)).toBe('awaiting_payment');
    expect(await w.onPaymentHint(orders.orders.get(o.id)!, signature)).toMatchObject({ kind: 'Paid', signature });
    expect(orders.status(o.id)).toBe('paid');
  });
});
