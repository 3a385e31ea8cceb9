import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { payloadOfRow } from '../support/sealed';
import { Connection, Keypair, PublicKey, Transaction, type TransactionInstruction } from '@solana/web3.js';
import { startLocalnet, type Localnet } from '../support/localnet.js';
import { WsLogsFeed } from '../../src/server/payments/feed.js';
import { kyselyScanStore } from '../../src/server/payments/scan-store.js';
import { createWatchLanes } from '../../src/server/payments/lanes.js';
import { chainRpc } from '../../src/server/payments/connection.js';
import { chainPaymentRpc } from '../../src/server/payments/rpc-adapter.js';
import type { PaymentRpc } from '../../src/server/payments/rpc.js';
import {
  PaymentWatcher,
  type PaymentWatcherOptions,
  type WatcherEvent,
} from '../../src/server/payments/watcher.js';
import {
  faucet,
  pay,
  send,
  serviceOrders,
  transferIx,
  waitFor,
  type ServiceOrders,
} from './payments-support.js';

// The watcher against real transactions on the localnet and the server's OrderService on a SQLite file.

describe('PaymentWatcher against the localnet and the order service', () => {
  let net: Localnet;
  let connection: Connection;
  let rpc: PaymentRpc;
  let mint: PublicKey;
  let coopers: PublicKey;
  let orders: ServiceOrders;
  const buyer = Keypair.generate();
  const running: { watcher: PaymentWatcher; feed?: WsLogsFeed }[] = [];
  /** The store's and the watcher's clock: real time shifted by `offset`. */
  let offset = 0;
  const now = () => new Date(Date.now() + offset);

  beforeAll(async () => {
    net = await startLocalnet({ port: 0, slotMs: 40, finalizeLag: 6 });
    if (!net.keys) throw new Error('localnet not seeded');
    mint = net.keys.mint;
    coopers = net.keys.recipients.coopersglass;
    connection = new Connection(net.rpcUrl, 'confirmed');
    rpc = chainPaymentRpc(chainRpc(net.rpcUrl), { timeoutMs: 5000 });
    orders = await serviceOrders(net, now);
    await faucet(net, buyer.publicKey, 10, 100_000);
  });
  afterEach(async () => {
    for (const r of running.splice(0)) {
      await r.watcher.stop();
      await r.feed?.close();
    }
    offset = 0;
  });
  afterAll(async () => {
    await orders?.close();
    await net?.close();
  });

  function watcher(opts: Partial<PaymentWatcherOptions> & { ws?: boolean | string } = {}) {
    const events: WatcherEvent[] = [];
    const feed =
      opts.ws === false
        ? undefined
        : new WsLogsFeed(typeof opts.ws === 'string' ? opts.ws : net.wsUrl, { reconnectMs: 100 });
    const w = new PaymentWatcher({
      rpc,
      orders: orders.service,
      feed,
      recipients: [coopers.toBase58(), net.keys!.recipients.gorilla.toBase58()],
      mint: mint.toBase58(),
      now,
      refreshIntervalMs: 100,
      pollIntervalMs: 300,
      sweepIntervalMs: 60_000,
      finalityIntervalMs: 100,
      scanStore: kyselyScanStore(orders.store.db),
      onEvent: (e) => events.push(e),
      ...opts,
    });
    running.push({ watcher: w, feed });
    return { watcher: w, events, feed };
  }

  const errors = (events: WatcherEvent[]) => events.filter((e) => e.type === 'error');
  /** The order's 'recorded' event. The store shows the new status as soon as the row commits; the event follows
   * once the durable commit (group fsync) resolves, so wait for it rather than read it at once. */
  const recordedEvent = (events: WatcherEvent[], orderId: string) =>
    waitFor(
      `recorded event for ${orderId}`,
      () => events.find((e) => e.type === 'recorded' && e.orderId === orderId),
      5_000,
    );
  const payFor = (
    o: { ref: PublicKey; amountBaseUnits: bigint },
    amount = o.amountBaseUnits,
    references = [o.ref],
  ) => pay(connection, { from: buyer, recipientOwner: coopers, mint, amount, references });
  const ledger = async (orderId: string) => (await orders.service.getOrder(orderId))?.payments ?? [];
  const emails = async (orderId: string) =>
    ((await orders.service.getOrder(orderId))?.emails ?? []).map((e) => [e.kind, e.recipient]);
  const statusIs =
    (orderId: string, ...wanted: string[]) =>
    async () =>
      wanted.includes(await orders.status(orderId)) ? true : undefined;

  it('marks an order paid from the WebSocket notification, then final once finalized', async () => {
    const o = await orders.place();
    const { watcher: w, events, feed } = watcher({ pollIntervalMs: 60_000 });
    await w.start();
    await waitFor('feed healthy', () => (feed?.healthy() ? true : undefined));
    const signature = await payFor(o);
    await waitFor('paid', statusIs(o.orderId, 'paid', 'final'));
    expect(await recordedEvent(events, o.orderId)).toMatchObject({
      orderId: o.orderId,
      via: 'feed',
      outcome: { kind: 'Paid', signature },
    });
    expect((await orders.get(o.orderId)).signature).toBe(signature);
    await waitFor('final', statusIs(o.orderId, 'final'));
    await waitFor(
      'final event',
      () => (events.some((e) => e.type === 'final' && e.orderId === o.orderId) ? true : undefined),
      5_000,
    );
    expect(errors(events)).toEqual([]);
  });

  it('matches a payment made while the watcher was stopped, on restart', async () => {
    const o = await orders.place();
    const first = watcher();
    await first.watcher.start();
    await first.watcher.stop();
    await first.feed?.close();
    const signature = await payFor(o);
    expect(await orders.status(o.orderId)).toBe('awaiting_payment');
    const second = watcher({ pollIntervalMs: 60_000 });
    await second.watcher.start();
    expect(['paid', 'final']).toContain(await orders.status(o.orderId));
    expect(await recordedEvent(second.events, o.orderId)).toMatchObject({
      via: 'start',
      outcome: { signature },
    });
  });

  it('reconciles from the vendor token account sweep when no notification arrives', async () => {
    const o = await orders.place();
    // No feed, no polling: only the sweep of the vendors' token accounts can find it.
    const { watcher: w, events } = watcher({ ws: false, pollIntervalMs: 60_000, sweepIntervalMs: 150 });
    await w.start();
    const signature = await payFor(o);
    await waitFor('paid by sweep', statusIs(o.orderId, 'paid', 'final'));
    expect(await recordedEvent(events, o.orderId)).toMatchObject({ via: 'sweep', outcome: { signature } });
  });

  it('falls back to polling while the WebSocket is down', async () => {
    const o = await orders.place();
    const { watcher: w, events, feed } = watcher({ ws: 'ws://127.0.0.1:9' });
    await w.start();
    expect(feed?.healthy()).toBe(false);
    await payFor(o);
    await waitFor('paid by polling', statusIs(o.orderId, 'paid', 'final'));
    expect(await recordedEvent(events, o.orderId)).toMatchObject({ via: 'poll' });
  });

  it('notices a WebSocket that drops at the next poll, not at the next safety-net sweep (60 s here)', async () => {
    const { watcher: w, events, feed } = watcher({ sweepIntervalMs: 60_000 });
    await w.start();
    await waitFor('feed healthy', () => feed?.healthy() || undefined);
    net.setWebSocketDown(true);
    try {
      await waitFor('feed down', () => (feed?.healthy() ? undefined : true));
      const o = await orders.place();
      await payFor(o);
      // waitFor gives up long before the 60 s sweep: only the poll loop can record it in time.
      await waitFor('paid by polling', statusIs(o.orderId, 'paid', 'final'));
      expect(await recordedEvent(events, o.orderId)).toMatchObject({ via: 'poll' });
    } finally {
      net.setWebSocketDown(false);
    }
  });

  it('records a late payment to an expired quote as paid_late', async () => {
    offset = -20 * 60_000; // the quote was issued 20 minutes ago: it expired 5 minutes ago
    const o = await orders.place();
    offset = 0;
    expect(await orders.service.expireOrders()).toBeGreaterThanOrEqual(1);
    expect(await orders.status(o.orderId)).toBe('expired');
    const { watcher: w, events } = watcher();
    await w.start();
    const signature = await payFor(o);
    await waitFor('paid_late', statusIs(o.orderId, 'paid_late'));
    expect((await orders.get(o.orderId)).signature).toBe(signature);
    expect(errors(events)).toEqual([]);
  });

  it('a late on-chain payment for a piece sold meanwhile: recorded, the order becomes oversold, the seller is told', async () => {
    const piece = 'pivot-cropal-top'; // one of a kind
    offset = -20 * 60_000; // A's quote expired 5 minutes ago: its reservation lapses
    const a = await orders.place({ productId: piece });
    offset = 0;
    expect(await orders.service.expireOrders()).toBeGreaterThanOrEqual(1);
    expect(await orders.status(a.orderId)).toBe('expired');
    const b = await orders.place({ productId: piece });
    // Exactly one piece in the shop, reserved by B.
    await orders.stock.set({ productId: piece }, 1, 'test:one-piece', new Date().toISOString());
    const { watcher: w, events } = watcher();
    await w.start();
    await payFor(b);
    await waitFor('B paid', statusIs(b.orderId, 'paid', 'final'));
    // A pays late, with a real transfer: the watcher records it; the piece is gone.
    const late = await payFor(a);
    await waitFor('A oversold', statusIs(a.orderId, 'oversold'));
    expect(await ledger(a.orderId)).toEqual([expect.objectContaining({ signature: late, role: 'payment' })]);
    // The oversold buyer is told at once too, not only the seller.
    expect(await emails(a.orderId)).toEqual([
      ['payment_oversold', 'seller'],
      ['payment_oversold', 'buyer'],
    ]);
    const level = (await orders.stock.levels()).find((l) => l.productId === piece && !l.variantId);
    expect(level).toMatchObject({ onHand: 0, reserved: 0 });
    expect(errors(events)).toEqual([]);
  });

  it('stops watching a reference 24 h after its quote expired', async () => {
    offset = -25 * 60 * 60_000;
    const o = await orders.place();
    offset = 0;
    await orders.service.expireOrders();
    await payFor(o);
    const { watcher: w, events } = watcher({ pollIntervalMs: 60_000 });
    await w.start();
    expect(await orders.status(o.orderId)).toBe('expired');
    expect(events.filter((e) => e.type === 'recorded')).toEqual([]);
  });

  it('records a partial payment at once but keeps the order payable until its quote expires (dust cannot block the real payment)', async () => {
    const short = await orders.place();
    const dusted = await orders.place();
    const { watcher: w, events } = watcher();
    await w.start();
    const shortSig = await payFor(short, short.amountBaseUnits - 1n);
    const dust = await payFor(dusted, 1n);
    await waitFor('partial seen', () =>
      events.some((e) => e.type === 'partial' && e.orderId === short.orderId) ? true : undefined,
    );
    expect(await orders.status(short.orderId)).toBe('awaiting_payment');
    expect((await ledger(short.orderId)).map((p) => [p.signature, p.role])).toEqual([[shortSig, 'partial']]);
    const real = await payFor(dusted);
    await waitFor('dusted order paid', async () =>
      (await orders.get(dusted.orderId)).signature === real ? true : undefined,
    );
    // The dust is in the ledger too, and visible.
    expect((await ledger(dusted.orderId)).map((p) => [p.signature, p.receivedBaseUnits, p.role])).toEqual([
      [dust, '1', 'partial'],
      [real, dusted.amountBaseUnits.toString(), 'payment'],
    ]);
    offset = 16 * 60_000; // the quotes expire: the service's expiry turns the partial sum into underpaid
    await orders.service.expireOrders();
    expect(await orders.status(short.orderId)).toBe('underpaid');
    expect((await orders.service.getOrder(short.orderId))?.receivedBaseUnits).toBe(
      (short.amountBaseUnits - 1n).toString(),
    );
    expect(['paid', 'final']).toContain(await orders.status(dusted.orderId));
    expect(errors(events)).toEqual([]);
  });

  it('never lets one transaction or a second payment mark a second order', async () => {
    const a = await orders.place();
    const b = await orders.place();
    expect(b.amountBaseUnits).toBe(a.amountBaseUnits);
    const { watcher: w, events } = watcher();
    await w.start();
    // One transfer carrying both references: only one order may take it.
    const both = await payFor(a, a.amountBaseUnits, [a.ref, b.ref]);
    await waitFor('one paid', () => (events.some((e) => e.type === 'recorded') ? true : undefined));
    const first = events.find((e) => e.type === 'recorded');
    const winner = first?.orderId === a.orderId ? a : b;
    const loser = winner === a ? b : a;
    // A second payment to the winner's reference: recorded as an extra payment on the winner, never on the loser.
    const again = await payFor(winner);
    await waitFor('extra recorded', () =>
      events.some((e) => e.type === 'recorded' && e.role === 'extra') ? true : undefined,
    );
    await new Promise((r) => setTimeout(r, 500));
    expect(
      events
        .filter((e) => e.type === 'recorded')
        .map((e) => e.type === 'recorded' && [e.orderId, e.outcome.signature, e.role]),
    ).toEqual([
      [winner.orderId, both, 'payment'],
      [winner.orderId, again, 'extra'],
    ]);
    expect((await orders.get(winner.orderId)).signature).toBe(both);
    expect(await ledger(loser.orderId)).toEqual([]);
    expect(await orders.status(loser.orderId)).toBe('awaiting_payment');
    expect(
      events.some(
        (e) => e.type === 'rejected' && e.orderId === loser.orderId && e.outcome.kind === 'AlreadyUsed',
      ),
    ).toBe(true);
    expect(errors(events)).toEqual([]);
  });

  it('confirms the wallet page hint (POST /api/orders/:id/payment) by re-reading the chain', async () => {
    const o = await orders.place();
    const other = await orders.place();
    const { watcher: w } = watcher({ ws: false, pollIntervalMs: 60_000 });
    await w.start();
    const signature = await payFor(o);
    // Reported for the wrong order: rejected, nothing recorded.
    expect(await w.onPaymentHint(await orders.get(other.orderId), signature)).toEqual({
      kind: 'NotFound',
      reason: 'reference_missing',
    });
    expect(await orders.status(other.orderId)).toBe('awaiting_payment');
    // As the HTTP route does it: the order service checks the hint, the watcher's hint lane (served) verifies it.
    const lanes = createWatchLanes();
    const unserve = lanes.serve({ hint: w.hintHandler() });
    const { watched } = await orders.service.paymentHint(o.orderId, signature);
    await lanes.hint(watched, signature);
    await waitFor('paid by hint', statusIs(o.orderId, 'paid', 'final'));
    unserve();
  });
  describe('payment ledger', () => {
    it('pay twice: the second transfer is recorded as extra, the order stays paid then final, the seller is told', async () => {
      const o = await orders.place();
      const { watcher: w, events } = watcher();
      await w.start();
      const first = await payFor(o);
      await waitFor('paid', statusIs(o.orderId, 'paid', 'final'));
      const second = await payFor(o);
      await waitFor('extra recorded', async () =>
        (await ledger(o.orderId)).length === 2 ? true : undefined,
      );
      expect((await ledger(o.orderId)).map((p) => [p.signature, p.role])).toEqual([
        [first, 'payment'],
        [second, 'extra'],
      ]);
      expect(['paid', 'final']).toContain(await orders.status(o.orderId));
      await waitFor('final', statusIs(o.orderId, 'final'));
      const pub = await orders.service.getOrder(o.orderId);
      expect(pub).toMatchObject({
        status: 'final',
        signature: first,
        receivedBaseUnits: (2n * o.amountBaseUnits).toString(),
      });
      expect(await emails(o.orderId)).toEqual([
        ['order_confirmation', 'seller'],
        ['order_confirmation', 'buyer'],
        ['payment_received', 'seller'],
      ]);
      const note = await orders.store.db
        .selectFrom('outbox')
        .selectAll()
        .where('order_id', '=', o.orderId)
        .where('kind', '=', 'payment_received')
        .executeTakeFirstOrThrow();
      expect(note.payment_signature).toBe(second);
      expect(payloadOfRow(orders.settings, note)).toMatchObject({
        paymentSignature: second,
        receivedCLAIM: '95.000000',
      });
      expect(errors(events)).toEqual([]);
    });

    it('pay half then half: the ledger sum pays the order', async () => {
      const o = await orders.place();
      const { watcher: w, events } = watcher();
      await w.start();
      const half = o.amountBaseUnits / 2n;
      const a = await payFor(o, half);
      await waitFor('first half recorded', async () =>
        (await ledger(o.orderId)).length === 1 ? true : undefined,
      );
      expect(await orders.status(o.orderId)).toBe('awaiting_payment');
      const b = await payFor(o, o.amountBaseUnits - half);
      await waitFor('paid', statusIs(o.orderId, 'paid', 'final'));
      expect((await ledger(o.orderId)).map((p) => [p.signature, p.role])).toEqual([
        [a, 'partial'],
        [b, 'payment'],
      ]);
      expect(await emails(o.orderId)).toEqual([
        ['order_confirmation', 'seller'],
        ['order_confirmation', 'buyer'],
      ]);
      // Final once both transfers are finalized.
      await waitFor('final', statusIs(o.orderId, 'final'));
      expect(
        (
          await orders.store.db
            .selectFrom('payments')
            .select('confirmation')
            .where('order_id', '=', o.orderId)
            .execute()
        ).map((r) => r.confirmation),
      ).toEqual(['finalized', 'finalized']);
      expect(errors(events)).toEqual([]);
    });

    it('pay half, expire → underpaid; a top-up within 24 h → paid_late, with the e-mails', async () => {
      offset = -(15 * 60_000 - 4000); // the quote expires 4 s from now
      const o = await orders.place();
      offset = 0;
      const { watcher: w, events } = watcher();
      await w.start();
      const half = o.amountBaseUnits / 2n;
      const a = await payFor(o, half);
      await waitFor('half recorded', async () => ((await ledger(o.orderId)).length === 1 ? true : undefined));
      expect(await orders.status(o.orderId)).toBe('awaiting_payment');
      await waitFor('quote expired', () => (Date.now() > o.expiresAt.getTime() + 1100 ? true : undefined));
      expect(await orders.service.expireOrders()).toBeGreaterThanOrEqual(1);
      expect(await orders.status(o.orderId)).toBe('underpaid');
      // The buyer gets the underpaid note too (with the missing amount's link), not only the seller.
      expect(await emails(o.orderId)).toEqual([
        ['payment_underpaid', 'seller'],
        ['payment_underpaid', 'buyer'],
      ]);
      const b = await payFor(o, o.amountBaseUnits - half);
      await waitFor('paid_late', statusIs(o.orderId, 'paid_late'));
      const pub = await orders.service.getOrder(o.orderId);
      expect(pub?.payments.map((p) => [p.signature, p.role])).toEqual([
        [a, 'partial'],
        [b, 'top_up'],
      ]);
      expect(pub?.history.map((h) => h.status)).toEqual(['awaiting_payment', 'underpaid', 'paid_late']);
      // Completed after the expiry: the distinct 'paid after the quote expired — review' notes.
      expect(await emails(o.orderId)).toEqual([
        ['payment_underpaid', 'seller'],
        ['payment_underpaid', 'buyer'],
        ['paid_late', 'seller'],
        ['paid_late', 'buyer'],
      ]);
      expect(errors(events)).toEqual([]);
    });

    it('the same signature seen by feed, poll, sweep and hint is recorded once', async () => {
      const o = await orders.place();
      const { watcher: w, events, feed } = watcher({ pollIntervalMs: 50, sweepIntervalMs: 50 });
      await w.start();
      await waitFor('feed healthy', () => (feed?.healthy() ? true : undefined));
      const signature = await payFor(o);
      // Every path at once: the hint, the feed's notification, the 50 ms polls and sweeps.
      await Promise.all([
        w.onPaymentHint(o, signature),
        w.onPaymentHint(o, signature),
        w.reconcile(),
        w.reconcile(),
      ]);
      await waitFor('paid', statusIs(o.orderId, 'paid', 'final'));
      await new Promise((r) => setTimeout(r, 600)); // more polls and sweeps pass over it
      await w.reconcile();
      await w.onPaymentHint(await orders.get(o.orderId), signature);
      expect(await ledger(o.orderId)).toHaveLength(1);
      expect(
        await orders.store.db
          .selectFrom('payments')
          .select('signature')
          .where('signature', '=', signature)
          .execute(),
      ).toHaveLength(1);
      expect(events.filter((e) => e.type === 'recorded' && e.outcome.signature === signature)).toHaveLength(
        1,
      );
      expect(await emails(o.orderId)).toHaveLength(2);
      expect(errors(events)).toEqual([]);
    });
  });

  // The ledger's invariants on the chain: each test fails when the code enforcing it is removed.
  describe('ledger invariants on the chain', () => {
    const judgedRow = (signature: string) =>
      orders.store.db
        .selectFrom('payment_scan_judged')
        .selectAll()
        .where('signature', '=', signature)
        .executeTakeFirst();
    const cursorOf = async (account: string) =>
      (
        await orders.store.db
          .selectFrom('payment_scan_cursors')
          .select('signature')
          .where('account', '=', account)
          .executeTakeFirst()
      )?.signature;
    const recordedFor = (events: WatcherEvent[], orderId: string) =>
      events.filter((e) => e.type === 'recorded' && e.orderId === orderId);

    it('a processed-only payment is neither recorded nor counted until it is confirmed, then recorded once', async () => {
      const o = await orders.place();
      const { watcher: w, events, feed } = watcher({ pollIntervalMs: 100, sweepIntervalMs: 100 });
      await w.start();
      await waitFor('feed healthy', () => (feed?.healthy() ? true : undefined));
      const lanes = createWatchLanes();
      const unserve = lanes.serve({ hint: w.hintHandler() });
      net.pause(); // no slot passes: what lands now stays processed
      let signature = '';
      try {
        const latest = await connection.getLatestBlockhash('processed');
        const tx = new Transaction({ feePayer: buyer.publicKey, ...latest }).add(
          transferIx({
            from: buyer,
            recipientOwner: coopers,
            mint,
            amount: o.amountBaseUnits,
            references: [o.ref],
          }),
        );
        tx.sign(buyer);
        signature = await connection.sendRawTransaction(tx.serialize(), { preflightCommitment: 'processed' });
        // The premise: the chain has it, at processed only.
        const [status] = (
          await connection.getSignatureStatuses([signature], { searchTransactionHistory: true })
        ).value;
        expect(status?.confirmationStatus).toBe('processed');
        // Every path looks at it: the hint (as the route calls it), sweeps, the feed.
        expect(await w.onPaymentHint(await orders.get(o.orderId), signature)).toEqual({
          kind: 'NotFound',
          reason: 'not_confirmed',
        });
        const { watched } = await orders.service.paymentHint(o.orderId, signature);
        await lanes.hint(watched, signature);
        await w.reconcile();
        await w.reconcile();
        expect(await ledger(o.orderId)).toEqual([]);
        expect(await orders.status(o.orderId)).toBe('awaiting_payment');
        expect((await orders.service.getOrder(o.orderId))?.receivedBaseUnits ?? '0').toBe('0');
        // Not remembered as judged: it will be judged once confirmed.
        expect(await judgedRow(signature)).toBeUndefined();
        expect(recordedFor(events, o.orderId)).toEqual([]);
      } finally {
        net.resume();
      }
      await waitFor('paid once confirmed', statusIs(o.orderId, 'paid', 'final'));
      await recordedEvent(events, o.orderId);
      await w.reconcile();
      expect((await ledger(o.orderId)).map((p) => [p.signature, p.role])).toEqual([[signature, 'payment']]);
      expect(recordedFor(events, o.orderId)).toHaveLength(1);
      expect(errors(events)).toEqual([]);
      unserve();
    });

    it('getTransaction returning null for a listed signature: not recorded, not judged, the cursor waits; recorded once served', async () => {
      const o = await orders.place();
      const hidden = new Set<string>();
      const fetched: string[] = [];
      const lagging: PaymentRpc = {
        getSignaturesForAddress: (address, q) => rpc.getSignaturesForAddress(address, q),
        getSignatureStatuses: (signatures) => rpc.getSignatureStatuses(signatures),
        async getTransaction(signature) {
          fetched.push(signature);
          return hidden.has(signature) ? null : rpc.getTransaction(signature);
        },
      };
      // No feed, no timed sweeps: only the sweeps this test runs.
      const { watcher: w, events } = watcher({
        rpc: lagging,
        ws: false,
        pollIntervalMs: 60_000,
        sweepIntervalMs: 60_000,
      });
      await w.start();
      const account = w.tokenAccounts[0] as string;
      const before = await cursorOf(account);
      const signature = await payFor(o);
      hidden.add(signature);
      await w.reconcile();
      await w.reconcile();
      // Asked each time (never remembered as judged), nothing recorded, the cursor does not pass it.
      expect(fetched.filter((s) => s === signature)).toHaveLength(2);
      expect(await ledger(o.orderId)).toEqual([]);
      expect(await orders.status(o.orderId)).toBe('awaiting_payment');
      expect(await judgedRow(signature)).toBeUndefined();
      expect(await cursorOf(account)).toBe(before);
      // The node serves it now: recorded once, judged, the cursor moves past it.
      hidden.delete(signature);
      await w.reconcile();
      await w.reconcile();
      expect(['paid', 'final']).toContain(await orders.status(o.orderId));
      expect((await ledger(o.orderId)).map((p) => [p.signature, p.role])).toEqual([[signature, 'payment']]);
      expect(await judgedRow(signature)).toMatchObject({ verdict: 'recorded' });
      expect(await cursorOf(account)).toBe(signature);
      expect(fetched.filter((s) => s === signature)).toHaveLength(3);
      expect(recordedFor(events, o.orderId)).toHaveLength(1);
      // The only errors were the sweeps saying the transaction was not available yet.
      for (const e of errors(events))
        expect(String(e.type === 'error' && (e.error as Error).message)).toMatch(/not available yet/);
    });

    it('several transfers to the vendor in one transaction add up to one ledger row; paying two orders at once pays one (with the sum), the other is refused', async () => {
      const { watcher: w, events } = watcher();
      await w.start();
      // Two transfers, the reference on the first only: one row, the sum, the order paid.
      const o = await orders.place();
      const half = o.amountBaseUnits / 2n;
      const split: TransactionInstruction[] = [
        transferIx({ from: buyer, recipientOwner: coopers, mint, amount: half, references: [o.ref] }),
        transferIx({
          from: buyer,
          recipientOwner: coopers,
          mint,
          amount: o.amountBaseUnits - half,
          references: [],
        }),
      ];
      const splitSig = await send(connection, split, [buyer]);
      await waitFor('paid by the sum', statusIs(o.orderId, 'paid', 'final'));
      await recordedEvent(events, o.orderId);
      expect((await ledger(o.orderId)).map((p) => [p.signature, p.receivedBaseUnits, p.role])).toEqual([
        [splitSig, o.amountBaseUnits.toString(), 'payment'],
      ]);

      // One transaction paying two orders of the same vendor, each transfer with its own reference: one signature
      // pays at most one order, so one order takes the whole balance change (overpaid) and the other nothing.
      const a = await orders.place();
      const b = await orders.place();
      const both = await send(
        connection,
        [
          transferIx({
            from: buyer,
            recipientOwner: coopers,
            mint,
            amount: a.amountBaseUnits,
            references: [a.ref],
          }),
          transferIx({
            from: buyer,
            recipientOwner: coopers,
            mint,
            amount: b.amountBaseUnits,
            references: [b.ref],
          }),
        ],
        [buyer],
      );
      await waitFor('one of them recorded', () =>
        events.some((e) => e.type === 'recorded' && (e.orderId === a.orderId || e.orderId === b.orderId))
          ? true
          : undefined,
      );
      await waitFor('the other refused', () =>
        events.some(
          (e) =>
            e.type === 'rejected' &&
            (e.orderId === a.orderId || e.orderId === b.orderId) &&
            e.outcome.kind === 'AlreadyUsed',
        )
          ? true
          : undefined,
      );
      const winner = recordedFor(events, a.orderId).length ? a : b;
      const loser = winner === a ? b : a;
      const recorded = recordedFor(events, winner.orderId)[0];
      expect(recorded).toMatchObject({ role: 'payment', outcome: { kind: 'Paid', overpaid: true } });
      expect((await ledger(winner.orderId)).map((p) => [p.signature, p.receivedBaseUnits])).toEqual([
        [both, (a.amountBaseUnits + b.amountBaseUnits).toString()],
      ]);
      expect(['paid', 'final']).toContain(await orders.status(winner.orderId));
      expect(await ledger(loser.orderId)).toEqual([]);
      expect(await orders.status(loser.orderId)).toBe('awaiting_payment');
      expect(errors(events)).toEqual([]);
    });
  });
});
