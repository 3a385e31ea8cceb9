/**
 * npm run keys:rotate [-- --batch N --batch-delay-ms MS]
 *
 * Re-seals every personal value of the store of DATABASE_URL under the first key of DATA_KEYS (the current
 * one), in batches of N (default 200), each batch one transaction; `--batch-delay-ms` pauses between batches to
 * spare a live store. Resumable and safe to run twice: what is left is read from the data (values not under the
 * current key), so a run stopped half-way (Ctrl-C, a crash, a restart) is finished by running it again, and a
 * second run finds nothing to do. Ends by counting the values per key: when every value is under the current
 * key, the other keys can be dropped from DATA_KEYS.
 *
 * Rotating a key: put the new key first in DATA_KEYS (keep the old one after it), restart the servers (they
 * seal new values with it and still open old ones), run this, then remove the old key and restart.
 */
import { catalog } from '../catalog';
import { demoDefaults } from '../src/server/demo-defaults';
import { createOrderService } from '../src/server/orders/service';
import { redactError } from '../src/server/redact';
import { isDemoEnv, loadSettings, SettingsError } from '../src/server/settings';
import { openStore } from '../src/server/store/store';

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i === -1) return fallback;
  const v = process.argv[i + 1];
  if (v === undefined || !/^\d+$/.test(v)) {
    console.error(`--${name} needs a whole number`);
    process.exit(2);
  }
  return Number(v);
}

async function main(): Promise<void> {
  const batchSize = Math.max(1, option('batch', 200));
  const delayMs = option('batch-delay-ms', 0);
  const settings = loadSettings(process.env, isDemoEnv(process.env) ? demoDefaults() : undefined);
  const current = settings.privacy.dataKeys[0]?.id ?? '';
  const store = await openStore(settings.database);
  try {
    const orders = createOrderService({ store, catalog, settings, now: () => new Date() });
    console.log(`keys:rotate: sealing every personal value under key '${current}'`);
    let batches = 0;
    const result = await orders.sealStoredData({
      batchSize,
      onBatch: async ({ column, resealed }) => {
        batches++;
        console.log(`batch ${batches}: ${column}, ${resealed} re-sealed`);
        if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
      },
    });
    const byKey = await orders.sealedValuesByKey();
    console.log(
      `keys:rotate: ${result.resealed} values re-sealed; ${result.unreadable} unreadable (left as they are)`,
    );
    console.log(
      `values per key: ${
        Object.entries(byKey)
          .map(([k, n]) => `${k} ${n}`)
          .join(', ') || 'none'
      }`,
    );
    const others = Object.keys(byKey).filter((k) => k !== current);
    if (others.length === 0)
      console.log(`Every value is under '${current}': the other keys can be dropped from DATA_KEYS.`);
    else {
      console.log(`Still under other keys (or plain): ${others.join(', ')}. Keep those keys.`);
      process.exitCode = 1;
    }
  } finally {
    await store.close();
  }
}

try {
  await main();
} catch (err) {
  console.error(err instanceof SettingsError ? err.message : `keys:rotate stopped: ${redactError(err)}`);
  process.exit(1);
}
