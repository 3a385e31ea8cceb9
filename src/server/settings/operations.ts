import { registerSecrets } from '../redact';
import { section } from './schema';
import type { Settings } from './types';

/** Running the store: metrics access, the dependency report, the operator key of `npm run vendor:setup`. */
export const operationsSection = section({
  title: 'Operations',
  settings: {
    METRICS_TOKEN: {
      doc: 'GET /metrics needs `Authorization: Bearer <METRICS_TOKEN>` outside demo mode (at least 16 characters); unset, /metrics refuses everybody there.',
      defaultDoc: 'unset (demo mode: /metrics is open)',
    },
    WATCHER_MAX_LAG_S: {
      doc: "GET /api/health/deps reports `watcher` failing when the payment watcher last caught up with the vendors' token accounts more than this many seconds ago (degraded, not failing, while payments are still seen on time or a fresh watcher's catch-up moves); readiness never depends on it.",
      default: 60,
      int: [2, 86_400],
    },
    MAX_EXPIRY_WAIT_MS: {
      doc: "Orders expire once the payment watcher has judged the chain past their expiry, but never more than this many ms late whatever the watcher's lag (a payment judged after that still counts by its block time).",
      default: 5 * 60_000,
      int: [0, 24 * 3600_000],
    },
    OPERATOR_KEYPAIR_FILE: {
      doc: 'npm run vendor:setup: the Solana keypair file (solana-keygen JSON) that pays for missing vendor token accounts; the server never loads it.',
      defaultDoc: 'none (demo mode: a faucet-funded demo key)',
    },
  },
  read(r): Pick<Settings, 'watcherMaxLagS' | 'maxExpiryWaitMs' | 'metricsToken' | 'operatorKeypairFile'> {
    const watcherMaxLagS = r.int('WATCHER_MAX_LAG_S');
    const maxExpiryWaitMs = r.int('MAX_EXPIRY_WAIT_MS');
    const operatorKeypairFile = r.get('OPERATOR_KEYPAIR_FILE');
    const metricsToken = r.get('METRICS_TOKEN');
    if (metricsToken !== undefined && metricsToken.length < 16)
      r.problem('METRICS_TOKEN: must be at least 16 characters');
    registerSecrets([metricsToken]);
    return {
      watcherMaxLagS,
      maxExpiryWaitMs,
      ...(metricsToken !== undefined ? { metricsToken } : {}),
      ...(operatorKeypairFile !== undefined ? { operatorKeypairFile } : {}),
    };
  },
});
