import { resolve } from 'node:path';
import { paymentsService } from './payments/index';
import { startServer } from './server';
import { catalog } from '../../catalog';
import { demoBanner } from './demo-banner';
import { demoDefaults } from './demo-defaults';
import { warnMissingVendorAccounts } from './ops/vendor-accounts';
import { isDemoEnv, loadSettings, SettingsError, type DemoDefaults } from './settings';
import { redactError } from './redact';
import { MigrationsPendingError } from './store/store';

/**
 * `npm start`: the whole store. With no SOLANA_RPC_URL it runs in demo mode: the localnet starts in-process
 * (RPC on LOCALNET_PORT, WebSocket on the next port) and the store points at its deterministic demo keys.
 */
async function main(): Promise<void> {
  const env = process.env;
  let settings;
  try {
    // Demo mode: the localnet's keys are deterministic, so settings are validated before anything starts.
    const demo: DemoDefaults | undefined = isDemoEnv(env) ? demoDefaults() : undefined;
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

  // Signals are handled from here on (a SIGTERM while starting is acted on once started).
  const shutdown = installShutdown({ drainMs: settings.drainMs, deadlineMs: settings.shutdownDeadlineMs });

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
  // server's budgeted RPC client, so it shares the process's RPC budget with the watcher.
  warnMissingVendorAccounts(server.chain, settings).catch((err: unknown) =>
    console.warn(`Could not check the vendors' token accounts: ${redactError(err)}`),
  );

  shutdown.attach({
    drain: () => server.drain(),
    close: async () => {
      await server.close();
      await closeLocalnet?.();
    },
  });
}

/**
 * How the process stops (docs/decisions/deploy.md "Drain on SIGTERM"):
 *
 * - SIGTERM: readiness answers 503 at once (the load balancer stops sending traffic) while the store keeps serving
 *   for `drainMs`; then it closes in order — the background services (the payment watcher stops and releases its
 *   lease, so another instance takes the watch at once; the outbox finishes the e-mail it is sending and hands
 *   back the rows it claimed), the HTTP server (in-flight requests are answered, idle keep-alive connections
 *   closed, a request still arriving on an open one answered with `Connection: close`), the store — and exits 0.
 * - SIGINT (Ctrl-C in a terminal): the same close without the drain's wait.
 * - A second SIGTERM or SIGINT, or `deadlineMs` after the first: exit 1 at once. Nothing is lost: every order,
 *   payment and e-mail is a committed row or nothing (a request cut before its commit changed nothing and its
 *   client retries with the same Idempotency-Key); outbox rows stay queued and their claims expire within the
 *   outbox lease (10 s), the watcher's lease within its own, and another instance (or this one restarted, which
 *   releases its own leases at start) picks them up; payments are on chain and the watcher's cursors resume.
 *
 * Installed before anything starts: a signal while the store is still starting (it may already answer) is acted
 * on once it has started (`attach`), within the same deadline.
 */
function installShutdown(opts: { drainMs: number; deadlineMs: number }): {
  attach(target: { drain: () => void; close: () => Promise<void> }): void;
} {
  let signalled: { signal: NodeJS.Signals; at: number } | undefined;
  let target: { drain: () => void; close: () => Promise<void> } | undefined;
  let running = false;
  const run = () => {
    if (!signalled || !target || running) return;
    running = true;
    const { signal, at } = signalled;
    const t = target;
    t.drain();
    const drainMs = signal === 'SIGTERM' ? opts.drainMs : 0;
    if (drainMs > 0) console.log(`${signal}: draining for ${drainMs} ms (readiness 503), then closing`);
    setTimeout(
      () => {
        void t
          .close()
          .then(() => {
            console.log(`${signal}: closed in ${Date.now() - at} ms`);
            process.exit(0);
          })
          .catch((err: unknown) => {
            console.error(`shutdown: ${redactError(err)}`);
            process.exit(1);
          });
      },
      Math.max(0, at + drainMs - Date.now()),
    );
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) {
      console.log(
        `${signal} again: exiting now (queued e-mails and leases are picked up by the next instance)`,
      );
      process.exit(1);
    }
    signalled = { signal, at: Date.now() };
    setTimeout(() => {
      console.error(
        `shutdown: not closed within SHUTDOWN_DEADLINE_MS (${opts.deadlineMs} ms): exiting now (queued e-mails and leases are picked up by the next instance)`,
      );
      process.exit(1);
    }, opts.deadlineMs).unref();
    run();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return {
    attach(t) {
      target = t;
      run();
    },
  };
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
  // One redacted line (no credentials, no addresses), not a stack with the settings in it. A database behind
  // this release (MIGRATE_ON_START off) gets its own plain sentence naming `npm run migrate`.
  console.error(
    err instanceof MigrationsPendingError ? err.message : `The store stopped: ${redactError(err)}`,
  );
  process.exit(1);
}
