/**
 * Payments under attack, on the local network with the public endpoint's limits (100 requests / 10 s per IP, 40
 * per method, 429 above), the watcher composed as main.ts runs it (startPayments with the store, the default
 * budget of 60 per 10 s): a dust flood on the vendor's token account neither delays a real payment past its
 * expiry nor makes it late nor releases its piece; hints naming unrelated signatures drain only their own lane.
 * (The sustained flood: payments-flood.test.ts, on its own local network beside this file in the `alone` project.
 * Wide transactions and the unmatched table: payments-wide.test.ts, which measures no time-to-paid.) Attackers and
 * buyers name themselves to the localnet (`x-localnet-client`: other IPs on the real network), so only the server's
 * own requests count against it.
 */
import { describe, expect, it } from 'vitest';
import { PublicKey, Transaction } from '@solana/web3.js';
import { startPayments } from '../../src/server/payments/index.js';
import { again, attackStage, namedClient, pay, transferIx, waitFor } from './payments-support.js';

describe('payments under attack, within the public endpoint limits', () => {
  const stage = attackStage();
  const { attacker, buyer, coopers } = stage;

  const start = async () => {
    stage.payments = await startPayments({
      settings: stage.orders.settings,
      orders: stage.orders.service,
      lanes: stage.orders.lanes,
      store: stage.orders.store,
    });
    await waitFor('feed healthy', () => (stage.payments?.feed.healthy() ? true : undefined));
    return stage.payments;
  };

  /**
   * `n` transfers of 1…n base units to the vendor from many attacker addresses, sent without waiting (as fast as
   * the endpoint takes them), then waited for until confirmed. `keys` extra read-only keys each (wide).
   */
  async function flood(n: number): Promise<string[]> {
    const senders = Array.from({ length: Math.ceil(n / 15) }, (_, i) =>
      namedClient(stage.net, `attacker-${i}`),
    );
    const signatures: string[] = [];
    // Batches with a fresh blockhash each (a slow node must not see the last ones expire: 150 slots of 40 ms).
    for (let from = 0; from < n; from += 50) {
      const latest = await again(() => senders[0]!.getLatestBlockhash('confirmed'));
      const batch = await Promise.all(
        Array.from({ length: Math.min(50, n - from) }, (_, j) => {
          const i = from + j;
          const tx = new Transaction({ feePayer: attacker.publicKey, ...latest }).add(
            transferIx({
              from: attacker,
              recipientOwner: coopers(),
              mint: stage.net.keys!.mint,
              amount: BigInt(i + 1),
              references: [],
            }),
          );
          tx.sign(attacker);
          return again(() =>
            senders[i % senders.length]!.sendRawTransaction(tx.serialize(), { skipPreflight: true }),
          );
        }),
      );
      signatures.push(...batch);
    }
    const status = namedClient(stage.net, 'attacker-status');
    await waitFor(
      'the flood to be confirmed',
      async () => {
        for (let i = 0; i < signatures.length; i += 256) {
          const st = await again(() =>
            status.getSignatureStatuses(signatures.slice(i, i + 256), { searchTransactionHistory: true }),
          );
          if (
            st.value.some(
              (s) => s?.confirmationStatus !== 'confirmed' && s?.confirmationStatus !== 'finalized',
            )
          )
            return undefined;
        }
        return true;
      },
      60_000,
      1000,
    );
    return signatures;
  }

  const payFor = (o: { ref: PublicKey; amountBaseUnits: bigint }) =>
    pay(stage.buyerConnection, {
      from: buyer,
      recipientOwner: coopers(),
      mint: stage.net.keys!.mint,
      amount: o.amountBaseUnits,
      references: [o.ref],
    });

  it('100 orders hinting unrelated signatures: another payment is seen within 5 s', async () => {
    await start();
    // Unrelated confirmed signatures (someone's own transfers, naming no order).
    const own = namedClient(stage.net, 'bystander');
    const unrelated: string[] = [];
    for (let i = 0; i < 5; i++)
      unrelated.push(
        await pay(own, {
          from: attacker,
          recipientOwner: attacker.publicKey,
          mint: stage.net.keys!.mint,
          amount: BigInt(i + 1),
          references: [],
        }),
      );
    const hinted = [];
    for (let i = 0; i < 100; i++) hinted.push(await stage.orders.place());
    const fetchedBefore = stage.net.rpcStats().byMethod.getTransaction ?? 0;
    // Each order hints an unrelated signature (free for the attacker); the hints queue in their own lane.
    // As the hint route does: the order service checks the hint, the watcher's hint lane gets it (unawaited; kept
    // here only to know when the lane has worked through them all).
    const hints: Promise<void>[] = [];
    for (const [i, o] of hinted.entries()) {
      const signature = unrelated[i % unrelated.length]!;
      const { watched } = await stage.orders.service.paymentHint(o.orderId, signature);
      hints.push(Promise.resolve(stage.orders.lanes.hint(watched, signature)));
    }
    const victim = await stage.orders.place();
    const t0 = Date.now();
    await payFor(victim);
    await waitFor(
      'the payment to be seen',
      async () => (['paid', 'final'].includes(await stage.orders.status(victim.orderId)) ? true : undefined),
      5_000,
      50,
    );
    expect(Date.now() - t0).toBeLessThan(5_000);
    // Let the hint lane work through the hundred hints (every hint judged or refused: its reads are done, about
    // 5 s after they were sent; a fixed 20 s wait before): five distinct signatures, each fetched once.
    await Promise.all(hints);
    const fetched = (stage.net.rpcStats().byMethod.getTransaction ?? 0) - fetchedBefore;
    // The five hinted and the victim's payment (feed, sweep); this runs before any flood, so nothing else is judged.
    expect(fetched).toBeLessThanOrEqual(5 + 2);
    expect(stage.payments!.rpcStats().throttled).toBe(0);
  }, 60_000);
  it('300 dust transfers in 5 s, then a payment 40 s before expiry: paid within 20 s, never late, its piece kept', async () => {
    await start();
    const order = await stage.orders.place();
    const expiresAtMs = order.expiresAt.getTime();
    expect(expiresAtMs - Date.now()).toBeGreaterThan(85_000);
    const t0 = Date.now();
    await flood(300);
    // The scenario sends them in 5 s; this node under a shared machine's load takes longer to accept 300
    // transactions, which only shortens the time the watcher has to judge them before the payment.
    const floodMs = Date.now() - t0;
    console.info(`300 dust transfers sent and confirmed in ${floodMs} ms`);
    expect(floodMs).toBeLessThan(45_000);

    // The buyer's page polls the order every second (as the QR and wallet pages do) and the server's expiry
    // sweep runs every second too; every status and reservation state seen is kept.
    const statuses = new Set<string>();
    const reservationStates = new Set<string>();
    let polling = true;
    const poller = (async () => {
      while (polling) {
        await stage.orders.service.expireOrders();
        const seen = await stage.orders.service.getOrder(order.orderId, {
          pageToken: order.pageToken,
          client: 'buyer',
        });
        if (seen) statuses.add(seen.status);
        for (const r of await stage.orders.store.db
          .selectFrom('reservations')
          .select('state')
          .where('order_id', '=', order.orderId)
          .execute())
          reservationStates.add(r.state);
        await new Promise((r) => setTimeout(r, 1000));
      }
    })();
    try {
      // 40 s before the quote expires, the buyer pays.
      await new Promise((r) => setTimeout(r, Math.max(0, expiresAtMs - 40_000 - Date.now())));
      const paidAt = Date.now();
      await payFor(order);
      await waitFor(
        'the payment to be seen',
        async () => (['paid', 'final'].includes(await stage.orders.status(order.orderId)) ? true : undefined),
        20_000,
        100,
      );
      const seenAfterMs = Date.now() - paidAt;
      const behind = stage.payments!.watcher.backlog(20_000).transfers;
      console.info(
        `payment seen ${seenAfterMs} ms after it was sent, ${behind} dust transfers still to judge`,
      );
      // The flood is still being judged: the payment was seen ahead of it.
      expect(behind).toBeGreaterThan(0);
      expect(seenAfterMs).toBeLessThan(20_000);
      // Past the expiry, with the feed still behind: the order stays paid, never expired or paid_late.
      await new Promise((r) => setTimeout(r, Math.max(0, expiresAtMs + 3_000 - Date.now())));
    } finally {
      polling = false;
      await poller;
    }
    expect([...statuses].filter((s) => s !== 'awaiting_payment' && s !== 'paid' && s !== 'final')).toEqual(
      [],
    );
    expect(['paid', 'final']).toContain(await stage.orders.status(order.orderId));
    expect(reservationStates.has('released')).toBe(false);
    expect([...reservationStates].pop()).toBe('sold');
    expect(stage.payments!.rpcStats().throttled).toBe(0);
  }, 150_000);
});
