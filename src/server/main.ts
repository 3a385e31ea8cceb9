import { resolve } from 'node:path';
import { paymentsService } from './payments/index';
import { startServer } from './server';
import { demoKeys } from '../localnet/demo-keys';
import { catalog } from '../../catalog';
import { demoBanner } from './demo-banner';
import { demoDefaults } from './demo-defaults';
import { warnMissingVendorAccounts } from './ops/vendor-accounts';
import { isDemoEnv, loadSettings, SettingsError, type DemoDefaults } from './settings';
import { redactError } from './redact';

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

  if (settings.privacy.demoKey)
    console.log(
      'personal data: sealed with a demo key derived in demo mode (anyone can derive it); set DATA_KEYS for real buyers',
    );
  else console.log(`personal data: sealed with data key '${settings.privacy.dataKeys[0]?.id ?? ''}'`);

  let closeLocalnet: (() => Promise<void>) | undefined;
  let localnetRpcUrl = '';
  if (settings.demo) {
    const { startLocalnet } = await import('../localnet/index');
    const localnet = await startLocalnet({
      port: settings.localnetPort,
      host: '127.0.0.1',
      // Every vendor can receive by QR, unless DEMO_VENDORS_WITHOUT_TOKEN_ACCOUNT leaves one out (two-approval demo).
      withoutTokenAccount: settings.demoVendorsWithoutTokenAccount,
    }).catch((err: unknown) =>
      exitIfPortBusy(
        err,
        `The local Solana network cannot listen on 127.0.0.1:${settings.localnetPort} or :${settings.localnetPort + 1} (in use): set LOCALNET_PORT to a free port.`,
      ),
    );
    closeLocalnet = () => localnet.close();
    localnetRpcUrl = localnet.rpcUrl;
    console.log(`localnet: ${localnet.rpcUrl} (ws ${localnet.wsUrl}), $CLAIM mint ${settings.claimMint}`);
  }

  const server = await startServer(settings, {
    webDir: resolve('dist/web'),
    logger: !settings.demo,
    // The payment watcher (src/server/payments): verifies transfers by reference and records them on the orders.
    services: [paymentsService()],
  }).catch(async (err: unknown) => {
    await closeLocalnet?.();
    return exitIfPortBusy(
      err,
      `Port ${settings.port} on ${settings.host} is in use: set PORT to a free port (or stop the other process).`,
    );
  });
  console.log(
    `$CLAIM store on ${server.url}${settings.demo ? ' (demo mode)' : ''}; store: ${settings.database.kind === 'sqlite' ? settings.database.file : 'postgres'}`,
  );
  if (settings.demo)
    for (const line of demoBanner({ storeUrl: server.url, localnetRpcUrl, catalog })) console.log(line);

  // Start-up warning: a vendor without a $CLAIM token account makes its first buyer create it. Read through the
  // server's budgeted Connection, so it shares the process's RPC budget with the watcher.
  warnMissingVendorAccounts(server.connection, settings).catch((err: unknown) =>
    console.warn(`Could not check the vendors' token accounts: ${redactError(err)}`),
  );

  const stop = async () => {
    await server.close();
    await closeLocalnet?.();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

/** A busy port ends the process with one line naming the port and the setting to change; anything else rethrows. */
function exitIfPortBusy(err: unknown, message: string): never {
  if ((err as { code?: unknown } | undefined)?.code === 'EADDRINUSE') {
    console.error(message);
    process.exit(1);
  }
  throw err;
}

try {
  await main();
} catch (err) {
  // One redacted line (no credentials, no addresses), not a stack with the settings in it.
  console.error(`The store stopped: ${redactError(err)}`);
  process.exit(1);
}
