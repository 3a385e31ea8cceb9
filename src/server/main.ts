import { resolve } from 'node:path';
import { startPayments } from './payments/index';
import { startServer } from './server';
import { demoKeys, type DemoKeys } from '../localnet/demo-keys';
import { isDemoEnv, loadSettings, SettingsError, type DemoDefaults } from './settings';

function demoDefaults(keys: DemoKeys): DemoDefaults {
  return {
    claimMint: keys.mint.toBase58(),
    recipients: {
      coopersglass: keys.recipients.coopersglass.toBase58(),
      gorilla: keys.recipients.gorilla.toBase58(),
    },
  };
}

/**
 * `npm start`: the whole store. With no SOLANA_RPC_URL it runs in demo mode: the localnet starts in-process
 * (RPC on LOCALNET_PORT, WebSocket on the next port) and the store points at its deterministic demo keys.
 */
async function main(): Promise<void> {
  const env = process.env;
  let settings;
  try {
    // Demo mode: the localnet's keys are deterministic, so settings are validated before anything starts.
    const demo: DemoDefaults | undefined = isDemoEnv(env) ? demoDefaults(demoKeys()) : undefined;
    settings = loadSettings(env, demo);
  } catch (err) {
    if (err instanceof SettingsError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }

  let closeLocalnet: (() => Promise<void>) | undefined;
  if (settings.demo) {
    const { startLocalnet } = await import('../localnet/index');
    const localnet = await startLocalnet({ port: settings.localnetPort, host: '127.0.0.1' });
    closeLocalnet = () => localnet.close();
    console.log(`localnet: ${localnet.rpcUrl} (ws ${localnet.wsUrl}), $CLAIM mint ${settings.claimMint}`);
  }

  const server = await startServer(settings, {
    webDir: resolve('dist/web'),
    logger: !settings.demo,
    // The payment watcher (src/server/payments): verifies transfers by reference and records them on the orders.
    services: [(ctx) => startPayments({ settings: ctx.settings, orders: ctx.orders, now: ctx.now })],
  });
  console.log(
    `$CLAIM store on ${server.url}${settings.demo ? ' (demo mode)' : ''}; store: ${settings.database.kind === 'sqlite' ? settings.database.file : 'postgres'}`,
  );

  const stop = async () => {
    await server.close();
    await closeLocalnet?.();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

await main();
