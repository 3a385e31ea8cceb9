import { resolve } from 'node:path';
import { startPayments } from './payments/index';
import { startServer } from './server';
import { loadSettings, SettingsError, type DemoDefaults } from './settings';

/**
 * `npm start`: the whole store. With no SOLANA_RPC_URL it runs in demo mode: the localnet starts in-process
 * (RPC on LOCALNET_PORT, WebSocket on the next port) and the store points at its deterministic demo keys.
 */
async function main(): Promise<void> {
  const env = process.env;
  let demo: DemoDefaults | undefined;
  let closeLocalnet: (() => Promise<void>) | undefined;
  if (!env.SOLANA_RPC_URL?.trim()) {
    const { startLocalnet, demoKeys } = await import('../localnet/index');
    const port = Number(env.LOCALNET_PORT ?? 8899);
    const localnet = await startLocalnet({ port: Number.isInteger(port) ? port : 8899 });
    closeLocalnet = () => localnet.close();
    const keys = localnet.keys ?? demoKeys();
    demo = {
      claimMint: keys.mint.toBase58(),
      recipients: {
        coopersglass: keys.recipients.coopersglass.toBase58(),
        gorilla: keys.recipients.gorilla.toBase58(),
      },
    };
    console.log(`localnet: ${localnet.rpcUrl} (ws ${localnet.wsUrl}), $CLAIM mint ${demo.claimMint}`);
  }

  let settings;
  try {
    settings = loadSettings(env, demo);
  } catch (err) {
    if (err instanceof SettingsError) {
      console.error(err.message);
      await closeLocalnet?.();
      process.exit(1);
    }
    throw err;
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
