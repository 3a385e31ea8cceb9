/**
 * Webhook deliveries on PostgreSQL with several senders (issue 35): two instances' workers run at once over one
 * store; each delivery reaches the receiver exactly once (the claim), one endpoint's deliveries one at a time and
 * oldest first, each verified with `standardwebhooks`. Runs when TEST_DATABASE_URL is set (CI sets it).
 */
import { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../catalog';
import { createSealer, parseDataKeys } from '../../src/server/privacy/seal';
import { openStore, type Store } from '../../src/server/store/store';
import { createEndpoint } from '../../src/server/webhooks/endpoints';
import { insertDelivery } from '../../src/server/webhooks/queue';
import { createWebhookWorker } from '../../src/server/webhooks/worker';
import { TEST_DATA_KEYS } from '../support/fixtures';
import { sellerSettings } from '../support/seller-session';
import { startReceiver, type Receiver } from '../support/webhook-receiver';
import { testResolver } from '../support/webhook-resolver';
import { postgresBackend } from './orders-support';

const backend = postgresBackend();

describe.runIf(backend.enabled)('webhook senders sharing PostgreSQL', () => {
  let store: Store;
  let receiver: Receiver;
  const sealer = createSealer(parseDataKeys(TEST_DATA_KEYS).keys);

  beforeAll(async () => {
    receiver = await startReceiver();
    store = await openStore(await backend.fresh());
  });
  afterAll(async () => {
    await store?.close();
    await receiver?.close();
    await backend.cleanup();
  });

  it('two instances deliver each event once, one endpoint at a time, oldest first', async () => {
    const deps = {
      db: store.db,
      sealer,
      policy: { allowPrivate: true, resolve: testResolver() },
      now: () => new Date(),
    };
    const paths = ['/pg-a', '/pg-b'];
    const endpoints = [];
    for (const path of paths) {
      const { endpoint, secret } = await createEndpoint(deps, ['coopersglass'], {
        url: `${receiver.origin}${path}`,
      });
      receiver.secrets(path, secret);
      endpoints.push(endpoint);
    }
    const base = Date.now() - 60_000;
    const ids: Record<string, string[]> = { '/pg-a': [], '/pg-b': [] };
    for (let i = 0; i < 6; i++)
      for (const [n, ep] of endpoints.entries()) {
        const at = new Date(base + i * 1000).toISOString();
        ids[paths[n]!]!.push(
          await insertDelivery(store.db, sealer, {
            endpointId: ep.id,
            vendorId: 'coopersglass',
            orderId: null,
            type: 'webhook.test',
            body: JSON.stringify({
              type: 'webhook.test',
              version: 1,
              timestamp: at,
              data: { message: `#${i}` },
            }),
            at,
          }),
        );
      }
    const settings = sellerSettings(
      Keypair.generate(),
      Keypair.generate(),
      Keypair.generate().publicKey.toBase58(),
    );
    const worker = (instanceId: string) =>
      createWebhookWorker({
        store,
        sealer,
        settings: { ...settings, webhooks: { ...settings.webhooks, allowPrivate: true } },
        catalog,
        resolve: testResolver(),
        extraCa: [receiver.ca],
        instanceId,
      });
    // Each answer takes a moment: two requests to one endpoint at once would overlap at the receiver.
    for (const path of paths) receiver.slow(path, 50);
    const [a, b] = [worker('pg-one:3000'), worker('pg-two:3000')];
    const results = await Promise.all([a.runOnce(), b.runOnce(), a.runOnce(), b.runOnce()]);
    // Whatever a worker found held by the other is left to a later pass: run until nothing is left.
    for (let i = 0; i < 20 && receiver.received().filter((r) => paths.includes(r.path)).length < 12; i++)
      await Promise.all([a.runOnce(), b.runOnce()]);
    expect(results.reduce((n, r) => n + r.failed, 0)).toBe(0);
    for (const path of paths) {
      const got = receiver.received(path);
      expect(got.map((r) => r.id)).toEqual(ids[path]); // each once, oldest first
      expect(got.every((r) => r.verified)).toBe(true);
    }
    for (const path of paths) expect(receiver.maxInFlight(path)).toBe(1);
    const states = await store.db.selectFrom('webhook_deliveries').select('state').execute();
    expect(states.every((s) => s.state === 'delivered')).toBe(true);
  });
});
