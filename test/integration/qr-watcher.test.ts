/**
 * QR checkout, server side: what the payments suites (payments-watcher/-verify, orders-api) do not cover
 * already. A QR buyer may scan and pay BEFORE pressing "Send Order Confirmation": the transfer carries the
 * quote's reference, and the order with that reference is recorded only afterwards. The watcher must find the
 * earlier payment as soon as it sees the new order (the WebSocket feed only reports new transactions and the
 * safety poll is slow), and the order service then tells the seller ("payment received").
 */
import { Connection, Keypair, PublicKey } from '@solana/web3.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../catalog/index.js';
import { startLocalnet, type Localnet } from '../support/localnet.js';
import { createQuote } from '../../src/server/orders/quotes.js';
import { WsLogsFeed } from '../../src/server/payments/feed.js';
import { chainRpc } from '../../src/server/payments/connection.js';
import { chainPaymentRpc } from '../../src/server/payments/rpc-adapter.js';
import { kyselyScanStore } from '../../src/server/payments/scan-store.js';
import { PaymentWatcher, type WatcherEvent } from '../../src/server/payments/watcher.js';
import { faucet, pay, serviceOrders, waitFor, type ServiceOrders } from './payments-support.js';
import { payloadOfRow } from '../support/sealed';

describe('QR: paid before the order is recorded', () => {
  let net: Localnet;
  let connection: Connection;
  let orders: ServiceOrders;
  const buyer = Keypair.generate();
  const stops: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    net = await startLocalnet({ port: 0, slotMs: 40, finalizeLag: 6 });
    connection = new Connection(net.rpcUrl, 'confirmed');
    orders = await serviceOrders(net, () => new Date());
    await faucet(net, buyer.publicKey, 10, 1_000_000);
  });
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
  });
  afterAll(async () => {
    await orders?.close();
    await net?.close();
  });

  function qrQuote(quantity: number) {
    const priceSource = { current: () => ({ priceUsd: '0.5', fetchedAt: new Date() }) };
    return createQuote(
      { catalog, settings: orders.settings, priceSource, now: () => new Date() },
      { items: [{ productId: 'honey-dew-papaya-live-rosin', quantity }] },
    );
  }

  async function recordQrOrder(token: string, key: string) {
    const res = await orders.service.createOrder(
      {
        quote: token,
        paymentMethod: 'qr',
        shipping: {
          kind: 'us',
          fullName: 'Early Payer',
          email: 'early@example.test',
          address1: '1 Main St',
          city: 'Austin',
          usState: 'TX',
          zip: '78701',
        },
      },
      key,
    );
    return res.body.orderId;
  }

  it('matches the earlier payment as soon as the order appears (feed healthy, no fast polling, no sweep)', async () => {
    const events: WatcherEvent[] = [];
    const feed = new WsLogsFeed(net.wsUrl, { reconnectMs: 100 });
    const watcher = new PaymentWatcher({
      rpc: chainPaymentRpc(chainRpc(net.rpcUrl), { timeoutMs: 5000 }),
      orders: orders.service,
      feed,
      recipients: [net.keys!.recipients.coopersglass.toBase58(), net.keys!.recipients.gorilla.toBase58()],
      mint: net.keys!.mint.toBase58(),
      refreshIntervalMs: 100,
      pollIntervalMs: 60_000,
      sweepIntervalMs: 60_000,
      finalityIntervalMs: 100,
      scanStore: kyselyScanStore(orders.store.db),
      onEvent: (e) => events.push(e),
    });
    stops.push(async () => {
      await watcher.stop();
      await feed.close();
    });
    await watcher.start();
    await waitFor('feed healthy', () => (feed.healthy() ? true : undefined));

    // The buyer scans the QR of quote 2 (quantity 2: 100 USD at 0.5 = 200 $CLAIM) and pays it at once.
    const { response: quote } = qrQuote(2);
    expect(quote.amount).toBe('200.000000');
    const signature = await pay(connection, {
      from: buyer,
      recipientOwner: new PublicKey(quote.recipient),
      mint: new PublicKey(quote.mint),
      amount: BigInt(quote.amountBaseUnits),
      references: [new PublicKey(quote.reference)],
      // Idempotent: the seeded localnet already has the vendor's token account; the payment may create it anyway.
      createRecipientAta: true,
    });
    // The watcher sees it (feed) and, with no order for this reference yet, keeps it by its keys.
    await waitFor('the transfer kept as unmatched', async () =>
      (await orders.store.db
        .selectFrom('payment_scan_unmatched')
        .select('signature')
        .where('signature', '=', signature)
        .where('reference', '=', quote.reference)
        .executeTakeFirst())
        ? true
        : undefined,
    );
    expect(events.filter((e) => e.type === 'recorded')).toEqual([]);

    // Then they press "Send Order Confirmation": the order is recorded with the quote's reference.
    const orderId = await recordQrOrder(quote.quote, `qr-early-${Date.now()}`);
    await waitFor(
      'paid',
      async () => (['paid', 'final'].includes(await orders.status(orderId)) ? true : undefined),
      10_000,
    );
    expect((await orders.get(orderId)).signature).toBe(signature);
    await waitFor('recorded event', () => (events.some((e) => e.type === 'recorded') ? true : undefined));
    // Found by the join of kept transfers with the new order (every 100 ms here), not by a poll or a sweep (60 s).
    expect(events.find((e) => e.type === 'recorded')).toMatchObject({
      orderId,
      outcome: { kind: 'Paid', signature },
      via: 'match',
    });

    // Nothing was e-mailed before the payment: now the confirmation pair goes (seller, then the buyer whose
    // details are on the order), via the outbox.
    const pub = await orders.service.getOrder(orderId);
    expect(pub?.emails.map((e) => [e.kind, e.recipient])).toEqual([
      ['order_confirmation', 'seller'],
      ['order_confirmation', 'buyer'],
    ]);
    await waitFor('final', async () => ((await orders.status(orderId)) === 'final' ? true : undefined));
    expect(events.filter((e) => e.type === 'error')).toEqual([]);
  });

  it('a record paid after its quote expired is paid_late (USD at block time), and dust e-mails nobody', async () => {
    const events: WatcherEvent[] = [];
    const feed = new WsLogsFeed(net.wsUrl, { reconnectMs: 100 });
    const watcher = new PaymentWatcher({
      rpc: chainPaymentRpc(chainRpc(net.rpcUrl), { timeoutMs: 5000 }),
      orders: orders.service,
      feed,
      recipients: [net.keys!.recipients.coopersglass.toBase58(), net.keys!.recipients.gorilla.toBase58()],
      mint: net.keys!.mint.toBase58(),
      refreshIntervalMs: 100,
      pollIntervalMs: 500,
      sweepIntervalMs: 500,
      finalityIntervalMs: 100,
      onEvent: (e) => events.push(e),
    });
    stops.push(async () => {
      await watcher.stop();
      await feed.close();
    });
    await watcher.start();

    // The record the QR page makes before showing the QR (no shipping details): 50 USD at 0.5 = 100 $CLAIM.
    const { response: quote } = qrQuote(1);
    const created = await orders.service.createOrder(
      { quote: quote.quote, paymentMethod: 'qr' },
      `qr-late-${Date.now()}`,
    );
    const orderId = created.body.orderId;
    // Its quote window has passed (as if the buyer came back 20 minutes later) and the server expired it.
    await orders.store.db
      .updateTable('orders')
      .set({ expires_at: new Date(Date.now() - 60_000).toISOString() })
      .where('id', '=', orderId)
      .execute();
    expect(await orders.service.expireOrders()).toBeGreaterThanOrEqual(1);
    expect(await orders.status(orderId)).toBe('expired');
    // The stored price history says $CLAIM was at $0.25 just before the payment.
    await orders.store.db
      .insertInto('price_history')
      .values({ t: new Date(Date.now() - 20_000).toISOString(), price_usd: '0.25' })
      .execute();

    const late = await pay(connection, {
      from: buyer,
      recipientOwner: new PublicKey(quote.recipient),
      mint: new PublicKey(quote.mint),
      amount: BigInt(quote.amountBaseUnits),
      references: [new PublicKey(quote.reference)],
      createRecipientAta: true,
    });
    await waitFor('paid_late', async () =>
      (await orders.status(orderId)) === 'paid_late' ? true : undefined,
    );
    const outbox = () =>
      orders.store.db.selectFrom('outbox').selectAll().where('order_id', '=', orderId).execute();
    const rows = await outbox();
    // No shipping details yet: the seller only, with the USD value at the block time (100 × 0.25) vs $50.00.
    expect(rows.map((r) => [r.kind, r.role])).toEqual([['paid_late', 'seller']]);
    expect(payloadOfRow(orders.settings, rows[0]!)).toMatchObject({
      usdAtPayment: '25.00',
      totalUSD: '50.00',
      receivedCLAIM: '100.000000',
      transactionLinks: expect.stringContaining(late) as string,
    });

    // Dust to the same reference (below min(1 % of the order, $0.50) = 1 $CLAIM): recorded, no e-mail.
    const dust = await pay(connection, {
      from: buyer,
      recipientOwner: new PublicKey(quote.recipient),
      mint: new PublicKey(quote.mint),
      amount: 500_000n,
      references: [new PublicKey(quote.reference)],
    });
    await waitFor('dust recorded', async () =>
      (await orders.get(orderId)).payments.some((p) => p.signature === dust) ? true : undefined,
    );
    expect((await orders.get(orderId)).payments.find((p) => p.signature === dust)?.role).toBe('extra');
    expect(await outbox()).toHaveLength(1);
    expect(events.filter((e) => e.type === 'error')).toEqual([]);
  });
});
