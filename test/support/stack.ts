/**
 * The whole store for end-to-end tests: the localnet (LiteSVM behind JSON-RPC + WebSocket), the real server
 * (SQLite file, orders, outbox, price service on the demo DexScreener feed, payment watcher — unless
 * `server.services` replaces it) serving the built
 * web app, and a real SMTP server on loopback receiving the e-mails. Everything on random loopback ports.
 *
 *   const stack = await startStack();
 *   await stack.fund(buyer.publicKey.toBase58(), { sol: 1, claim: 1_000_000 });
 *   ... drive a browser at stack.url ...
 *   await stack.close();
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ParsedMail } from 'mailparser';
import { startLocalnet, type Localnet } from './localnet';
import { paymentsService } from '../../src/server/payments/index';
import { startServer, type RunningServer, type ServerOverrides } from '../../src/server/server';
import { loadSettings, type Settings } from '../../src/server/settings';
import { WEB_DIR } from './browser';
import { startSmtpSink, type SmtpSink } from './smtp-sink';

export interface StackOptions {
  /** Extra environment settings (validated like production ones). */
  env?: Record<string, string>;
  /** Localnet slot time (ms) and finalization lag (slots). Defaults: 100 ms, 4 slots. */
  slotMs?: number;
  finalizeLag?: number;
  /**
   * Payout groups the localnet starts without a $CLAIM token account (default none: every vendor can receive by
   * QR). Their QR pages show no QR; their wallet purchases create the account (two approvals).
   */
  withoutTokenAccount?: string[];
  /** More server overrides (e.g. a fixed price source). */
  server?: ServerOverrides;
}

export interface FundResult {
  ata: string;
  claimBaseUnits: string;
  lamports: number;
}

export interface Stack {
  url: string;
  settings: Settings;
  localnet: Localnet;
  server: RunningServer;
  mail: SmtpSink & { /** Parsed messages so far, oldest first. */ all(): ParsedMail[] };
  /** Airdrops SOL and mints $CLAIM (decimal string or number of whole tokens) to the owner's token account. */
  fund(address: string, amounts: { sol?: number; claim?: number | string }): Promise<FundResult>;
  /** Stops the server only (the localnet and mailbox stay up) and starts it again on the same database. */
  restartServer(): Promise<void>;
  stopServer(): Promise<void>;
  startServer(): Promise<void>;
  close(): Promise<void>;
}

export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const dir = mkdtempSync(join(tmpdir(), 'claim-stack-'));
  const localnet = await startLocalnet({
    port: 0,
    slotMs: opts.slotMs ?? 100,
    finalizeLag: opts.finalizeLag ?? 4,
    ...(opts.withoutTokenAccount ? { withoutTokenAccount: opts.withoutTokenAccount } : {}),
  });
  const sink = await startSmtpSink();
  const keys = localnet.keys;
  if (!keys) throw new Error('localnet started without demo keys');
  const settings = loadSettings(
    {
      PORT: '0',
      LOCALNET_PORT: String(localnet.port),
      DATABASE_URL: join(dir, 'store.sqlite'),
      MAIL_TRANSPORT: 'smtp',
      SMTP_URL: sink.url,
      SELLER_EMAIL: 'seller@shop.test',
      // Every test buyer shares one address: the per-client cap on holds is off unless a test turns it on.
      HOLD_LIMIT_PER_CLIENT: '0',
      ...opts.env,
    },
    {
      claimMint: keys.mint.toBase58(),
      recipients: {
        coopersglass: keys.recipients.coopersglass.toBase58(),
        gorilla: keys.recipients.gorilla.toBase58(),
      },
    },
  );
  if (settings.solana.rpcUrl !== localnet.rpcUrl.replace(/\/+$/, '')) {
    throw new Error(`stack: settings point at ${settings.solana.rpcUrl}, localnet is ${localnet.rpcUrl}`);
  }

  const overrides: ServerOverrides = {
    webDir: WEB_DIR,
    outbox: { baseDelayMs: 300, maxDelayMs: 2_000, pollMs: 200 },
    expireEveryMs: 1_000,
    // The payment watcher and hint handler, as main.ts runs them in production.
    services: [paymentsService()],
    ...opts.server,
  };
  let server: RunningServer | undefined = await startServer(settings, overrides);
  let url = server.url;

  const stack: Stack = {
    get url() {
      return url;
    },
    settings,
    localnet,
    get server() {
      if (!server) throw new Error('stack: the server is stopped');
      return server;
    },
    mail: Object.assign(sink, { all: () => sink.messages() }),
    async fund(address, amounts) {
      const res = await fetch(`${localnet.rpcUrl}/faucet`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ address, sol: amounts.sol ?? 0, claim: amounts.claim ?? 0 }),
      });
      const body = (await res.json()) as {
        error?: string;
        ata: string;
        claimBaseUnits: string;
        lamports: number;
      };
      if (!res.ok) throw new Error(`faucet: ${res.status} ${body.error ?? ''}`);
      return { ata: body.ata, claimBaseUnits: body.claimBaseUnits, lamports: body.lamports };
    },
    async stopServer() {
      await server?.close();
      server = undefined;
    },
    async startServer() {
      if (server) return;
      // Same port, so pages already open keep working after a restart.
      const port = new URL(url).port;
      server = await startServer({ ...settings, port: Number(port) }, overrides);
      url = server.url;
    },
    async restartServer() {
      await stack.stopServer();
      await stack.startServer();
    },
    async close() {
      await server?.close();
      server = undefined;
      await sink.close();
      await localnet.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return stack;
}
