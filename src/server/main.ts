import { resolve } from 'node:path';
import { catalog } from '../../catalog';
import { buildApp } from './app';
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
    const { startLocalnet } = await import('../localnet/index');
    const port = Number(env.LOCALNET_PORT ?? 8899);
    const localnet = await startLocalnet({ port: Number.isInteger(port) ? port : 8899 });
    closeLocalnet = () => localnet.close();
    demo = {
      claimMint: localnet.keys.mint.toBase58(),
      recipients: {
        coopersglass: localnet.keys.recipients.coopersglass.toBase58(),
        gorilla: localnet.keys.recipients.gorilla.toBase58(),
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

  const app = await buildApp({ settings, catalog, webDir: resolve('dist/web'), logger: !settings.demo });
  await app.listen({ port: settings.port, host: settings.host });
  console.log(`$CLAIM store on http://${settings.host}:${settings.port}${settings.demo ? ' (demo mode)' : ''}`);

  const stop = async () => {
    await app.close();
    await closeLocalnet?.();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

await main();
