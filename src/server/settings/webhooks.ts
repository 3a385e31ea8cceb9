import { section } from './schema';
import type { Settings } from './types';

/** Vendors' webhooks (src/server/webhooks; docs/webhooks.md, docs/decisions/webhooks.md). */
export const webhooksSection = section({
  title: 'Webhooks',
  settings: {
    WEBHOOKS_ALLOW_PRIVATE: {
      doc: 'Lets webhook endpoints on loopback and private addresses (and plain http to them) through, for the demo and tests; link-local and cloud metadata addresses stay refused. Never set it on a shop on the internet.',
      default: 0,
      int: [0, 1],
    },
    WEBHOOKS_TIMEOUT_MS: {
      doc: 'A webhook request must be answered within this many ms (connection, TLS and answer together), or it is retried later.',
      default: 10_000,
      int: [1_000, 60_000],
    },
    WEBHOOKS_CONCURRENCY: {
      doc: 'Webhook requests one instance makes at once (each endpoint gets one at a time).',
      default: 8,
      int: [1, 64],
    },
  },
  read(r): Pick<Settings, 'webhooks'> {
    return {
      webhooks: {
        allowPrivate: r.int('WEBHOOKS_ALLOW_PRIVATE') === 1,
        timeoutMs: r.int('WEBHOOKS_TIMEOUT_MS'),
        concurrency: r.int('WEBHOOKS_CONCURRENCY'),
        maxResponseBytes: 64 * 1024,
      },
    };
  },
});
