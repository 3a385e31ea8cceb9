/**
 * A light server for tests of the HTTP surface (headers, limits, the request log): the real composition on a SQLite
 * file in a temporary directory, the demo keys' mint and payout wallets, no price, no outbox, not listening. Close
 * them with `closeLightServers()` after each test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { demoKeys } from './demo-keypairs';
import { payoutAccountsAssumedToExist } from './payout-accounts';
import { startServer, type RunningServer } from '../../src/server/server';
import type { ServerOverrides } from '../../src/server/server-types';
import { loadSettings } from '../../src/server/settings';

const running: RunningServer[] = [];
const dirs: string[] = [];

export async function lightServer(
  env: Record<string, string> = {},
  opts: Pick<ServerOverrides, 'logger' | 'logStream'> = {},
): Promise<RunningServer> {
  const dir = mkdtempSync(join(tmpdir(), 'claim-light-'));
  dirs.push(dir);
  const k = demoKeys();
  const settings = loadSettings(
    { PORT: '0', DATABASE_URL: join(dir, 'store.sqlite'), MAIL_DIR: join(dir, 'mail'), ...env },
    {
      claimMint: k.mint.toBase58(),
      recipients: {
        coopersglass: k.recipients.coopersglass.toBase58(),
        gorilla: k.recipients.gorilla.toBase58(),
      },
    },
  );
  const s = await startServer(settings, {
    payoutAccounts: payoutAccountsAssumedToExist,
    listen: false,
    startOutbox: false,
    expireEveryMs: 0,
    priceSource: { current: () => undefined },
    ...opts,
  });
  running.push(s);
  return s;
}

export async function closeLightServers(): Promise<void> {
  for (const s of running.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}
