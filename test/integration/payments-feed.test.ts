import { afterAll, describe, expect, it } from 'vitest';
import { Connection, Keypair } from '@solana/web3.js';
import { startLocalnet, type Localnet } from '../support/localnet.js';
import { WsLogsFeed } from '../../src/server/payments/feed.js';
import { faucet, pay, waitFor } from './payments-support.js';

describe('WsLogsFeed', () => {
  const nets: Localnet[] = [];
  const feeds: WsLogsFeed[] = [];
  afterAll(async () => {
    for (const f of feeds) await f.close();
    for (const n of nets) await n.close();
  });

  it('notifies transactions mentioning a watched address, and resubscribes after the node restarts', async () => {
    const first = await startLocalnet({ port: 0, slotMs: 40 });
    nets.push(first);
    const reference = Keypair.generate().publicKey;
    const seen: string[] = [];
    const feed = new WsLogsFeed(first.wsUrl, { reconnectMs: 50, maxReconnectMs: 200 });
    feeds.push(feed);
    feed.watch(reference.toBase58(), (signature) => seen.push(signature));
    await waitFor('subscribed', () => (feed.healthy() ? true : undefined));

    const buyer = Keypair.generate();
    const keys = first.keys!;
    await faucet(first, buyer.publicKey, 1, 100);
    const c1 = new Connection(first.rpcUrl, 'confirmed');
    const sig1 = await pay(c1, {
      from: buyer,
      recipientOwner: keys.recipients.coopersglass,
      mint: keys.mint,
      amount: 1n,
      references: [reference],
    });
    await waitFor('first notification', () => (seen.includes(sig1) ? true : undefined));

    // The node goes away: the feed reports unhealthy (the watcher polls meanwhile), then comes back on the same port.
    await first.close();
    nets.splice(nets.indexOf(first), 1);
    await waitFor('unhealthy', () => (!feed.healthy() ? true : undefined));
    const second = await startLocalnet({ port: first.port, slotMs: 40 });
    nets.push(second);
    await waitFor('resubscribed', () => (feed.healthy() ? true : undefined));
    await faucet(second, buyer.publicKey, 1, 100);
    const c2 = new Connection(second.rpcUrl, 'confirmed');
    const sig2 = await pay(c2, {
      from: buyer,
      recipientOwner: keys.recipients.coopersglass,
      mint: keys.mint,
      amount: 2n,
      references: [reference],
    });
    await waitFor('notification after reconnect', () => (seen.includes(sig2) ? true : undefined));

    // Unwatched: no more notifications.
    feed.unwatch(reference.toBase58());
    const sig3 = await pay(c2, {
      from: buyer,
      recipientOwner: keys.recipients.coopersglass,
      mint: keys.mint,
      amount: 3n,
      references: [reference],
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(seen).not.toContain(sig3);
    expect(seen.filter((s) => s === sig1)).toHaveLength(1);
  });
});
