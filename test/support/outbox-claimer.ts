/**
 * A worker that claims outbox rows and then hangs inside the transport, for the lease hand-over test: it
 * prints `claimed <id>` when the transport is called, and the test kills it with SIGKILL there.
 *
 *   node --import tsx test/support/outbox-claimer.ts <sqlite file>
 */
import { createOutboxWorker } from '../../src/server/mail/outbox';
import { openStore } from '../../src/server/store/store';
import { createSealer, parseDataKeys } from '../../src/server/privacy/seal';
import { TEST_DATA_KEYS } from './fixtures';

const file = process.argv[2];
if (!file) throw new Error('usage: outbox-claimer.ts <sqlite file>');
const store = await openStore({ kind: 'sqlite', file });
const worker = createOutboxWorker({
  store,
  instanceId: 'doomed-instance:3000',
  // The keys of testSettings() (test/integration/orders-support.ts), which wrote the rows.
  sealer: createSealer(parseDataKeys(TEST_DATA_KEYS).keys),
  transport: {
    name: 'file',
    send: (m) => {
      process.stdout.write(`claimed ${m.id}\n`);
      return new Promise<void>(() => undefined); // never answers: the process is killed here
    },
  },
});
await worker.runOnce();
