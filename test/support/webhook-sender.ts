/**
 * A webhook sender in a process of its own, for the kill -9 test: it claims the due deliveries of the store and
 * sends them (to a receiver that never answers); the test kills it with SIGKILL mid-request.
 *
 *   node --import tsx test/support/webhook-sender.ts <sqlite file> <CA pem file> <instance id>
 */
import { readFileSync } from 'node:fs';
import { catalog } from '../../catalog';
import { createSealer, parseDataKeys } from '../../src/server/privacy/seal';
import { openStore } from '../../src/server/store/store';
import { createWebhookWorker } from '../../src/server/webhooks/worker';
import { TEST_DATA_KEYS } from './fixtures';
import { testResolver } from './webhook-resolver';

const [file, caFile, instanceId] = process.argv.slice(2);
if (!file || !caFile || !instanceId)
  throw new Error('usage: webhook-sender.ts <sqlite> <ca.pem> <instance id>');
const store = await openStore({ kind: 'sqlite', file });
const worker = createWebhookWorker({
  store,
  sealer: createSealer(parseDataKeys(TEST_DATA_KEYS).keys),
  settings: {
    webhooks: { allowPrivate: true, timeoutMs: 60_000, concurrency: 4, maxResponseBytes: 65_536 },
    mail: { transport: 'file', dir: '.', from: 'shop@shop.test', sellerEmail: 'seller@shop.test' },
  },
  catalog,
  resolve: testResolver(),
  extraCa: [readFileSync(caFile, 'utf8')],
  instanceId,
});
process.stdout.write('sending\n');
await worker.runOnce();
