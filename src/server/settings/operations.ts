import { registerSecrets } from '../redact';
import { section } from './schema';
import type { Settings } from './types';

/** Running the store: metrics access, readiness, the operator key of `npm run vendor:setup`. */
export const operationsSection = section({
  title: 'Operations',
  settings: {
    METRICS_TOKEN: {
      doc: 'GET /metrics needs `Authorization: Bearer <METRICS_TOKEN>` outside demo mode (at least 16 characters); unset, /metrics refuses everybody there.',
      defaultDoc: 'unset (demo mode: /metrics is open)',
    },
    WATCHER_MAX_LAG_S: {
      doc: "GET /api/health/ready fails `watcher` when the payment watcher last caught up with the vendors' token accounts more than this many seconds ago.",
      default: 60,
      int: [2, 86_400],
    },
    OPERATOR_KEYPAIR_FILE: {
      doc: 'npm run vendor:setup: the Solana keypair file (solana-keygen JSON) that pays for missing vendor token accounts; the server never loads it.',
      defaultDoc: 'none (demo mode: a faucet-funded demo key)',
    },
  },
  read(r): Pick<Settings, 'watcherMaxLagS' | 'metricsToken' | 'operatorKeypairFile'> {
    const watcherMaxLagS = r.int('WATCHER_MAX_LAG_S');
    const operatorKeypairFile = r.get('OPERATOR_KEYPAIR_FILE');
    const metricsToken = r.get('METRICS_TOKEN');
    if (metricsToken !== undefined && metricsToken.length < 16)
      r.problem('METRICS_TOKEN: must be at least 16 characters');
    registerSecrets([metricsToken]);
    return {
      watcherMaxLagS,
      ...(metricsToken !== undefined ? { metricsToken } : {}),
      ...(operatorKeypairFile !== undefined ? { operatorKeypairFile } : {}),
    };
  },
});
