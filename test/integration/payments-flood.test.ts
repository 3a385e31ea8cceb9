/**
 * Payments under a sustained flood (issue 18), on the local network with the public endpoint's limits (100
 * requests / 10 s per IP, 40 per method, 429 above), the watcher composed as main.ts runs it (startPayments with the
 * store, the default budget of 60 per 10 s): 2 dust transfers a second for 3 minutes to the vendor's token account,
 * and a real payment every 20 s meanwhile, each seen within 20 s. The burst and the hint drain are in
 * payments-attack.test.ts; both files run in the `alone` project (vitest.config.ts), each on its own local network.
 * Attackers and buyers name themselves to the localnet (`x-localnet-client`: other IPs on the real network), so only
 * the server's own requests count against it.
 */
import { describe, expect, it } from 'vitest';
import { Transaction } from '@solana/web3.js';
import { startPayments } from '../../src/server/payments/index.js';
import { again, attackStage, namedClient, pay, transferIx, waitFor } from './payments-support.js';

describe('payments under a sustained flood, within the public endpoint limits', () => {
  const stage = attackStage();
  const { attacker, buyer, coopers } = stage;

  it('a sustained flood of 2 transfers a second for 3 minutes: every payment seen within 20 s', async () => {
    stage.payments = await startPayments({
      settings: stage.orders.settings,
      orders: stage.orders.service,
      lanes: stage.orders.lanes,
      store: stage.orders.store,
    });
    await waitFor('feed healthy', () => (stage.payments?.feed.healthy() ? true : undefined));
    const senders = Array.from({ length: 20 }, (_, i) => namedClient(stage.net, `flooder-${i}`));
    let flooding = true;
    let sent = 0;
    const floodLoop = (async () => {
      let latest = await again(() => senders[0]!.getLatestBlockhash('confirmed'));
      let at = Date.now();
      while (flooding) {
        if (sent % 20 === 0) latest = await again(() => senders[sent % 20]!.getLatestBlockhash('confirmed'));
        const tx = new Transaction({ feePayer: attacker.publicKey, ...latest }).add(
          transferIx({
            from: attacker,
            recipientOwner: coopers(),
            mint: stage.net.keys!.mint,
            amount: BigInt(1_000_000 + ++sent),
            references: [],
          }),
        );
        tx.sign(attacker);
        void senders[sent % 20]!.sendRawTransaction(tx.serialize(), { skipPreflight: true }).catch(
          () => undefined,
        );
        at += 500;
        await new Promise((r) => setTimeout(r, Math.max(0, at - Date.now())));
      }
    })();
    const seen: number[] = [];
    try {
      const t0 = Date.now();
      while (Date.now() - t0 < 180_000) {
        const next = Date.now() + 20_000;
        const order = await stage.orders.place();
        await pay(stage.buyerConnection, {
          from: buyer,
          recipientOwner: coopers(),
          mint: stage.net.keys!.mint,
          amount: order.amountBaseUnits,
          references: [order.ref],
        });
        const paidAt = Date.now();
        // The order's page polls it every second, as the QR and wallet pages do.
        await waitFor(
          'the payment to be seen',
          async () => {
            const o = await stage.orders.service.getOrder(order.orderId, {
              pageToken: order.pageToken,
              client: 'buyer',
            });
            return o && ['paid', 'final'].includes(o.status) ? true : undefined;
          },
          20_000,
          1000,
        );
        seen.push(Date.now() - paidAt);
        await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
      }
    } finally {
      flooding = false;
      await floodLoop;
    }
    console.info(
      `flood ${sent} transfers; payments seen after ${seen.map((ms) => (ms / 1000).toFixed(1)).join(', ')} s; ` +
        `${stage.payments!.watcher.backlog(20_000).transfers} dust transfers still to judge`,
    );
    expect(sent).toBeGreaterThanOrEqual(350);
    expect(seen.length).toBeGreaterThanOrEqual(8);
    expect(Math.max(...seen)).toBeLessThan(20_000);
  }, 300_000);
});
