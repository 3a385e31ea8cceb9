/**
 * `npm run demo:pay` follows the store's ports (issue 33, item 10): it pays on the local network of LOCALNET_PORT,
 * or, without it, on the one the running store names (its /api/config), never on a fixed 8899. Real parts: the
 * LiteSVM localnet on a random port, the store in demo mode on a random port, the script as `npm run` runs it.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Connection, Keypair, PublicKey } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalnet, type Localnet } from '../support/localnet';
import { demoDefaults } from '../../src/server/demo-defaults';
import { startServer, type RunningServer } from '../../src/server/server';
import { loadSettings } from '../../src/server/settings';

const ROOT = resolve(import.meta.dirname, '../..');
let net: Localnet;
let mint: PublicKey;
let store: RunningServer;
let dir: string;

beforeAll(async () => {
  net = await startLocalnet({ port: 0, slotMs: 50 });
  mint = net.keys!.mint;
  dir = mkdtempSync(join(tmpdir(), 'demo-pay-'));
  // The store in demo mode, its localnet moved to the random port.
  const settings = loadSettings(
    {
      PORT: '0',
      LOCALNET_PORT: String(net.port),
      DATABASE_URL: join(dir, 'store.sqlite'),
      MAIL_DIR: join(dir, 'mail'),
    },
    demoDefaults(),
  );
  store = await startServer(settings, { startOutbox: false, expireEveryMs: 0 });
}, 60_000);
afterAll(async () => {
  await store?.close();
  await net?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Runs `npm run demo:pay -- <link>` with only the given demo variables set. */
function demoPay(link: string, env: Record<string, string>) {
  const clean = { ...process.env };
  for (const k of ['LOCALNET_PORT', 'PORT', 'STORE_URL']) delete clean[k];
  return new Promise<{ code: number; out: string }>((done) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'scripts/demo-pay.ts', link],
      { cwd: ROOT, env: { ...clean, ...env }, timeout: 90_000 },
      (err, stdout, stderr) => done({ code: err ? Number(err.code ?? 1) : 0, out: `${stdout}${stderr}` }),
    );
  });
}

const linkTo = (recipient: PublicKey, amount: string, token = mint) =>
  `solana:${recipient.toBase58()}?amount=${amount}&spl-token=${token.toBase58()}&reference=${Keypair.generate().publicKey.toBase58()}`;

async function received(recipient: PublicKey): Promise<bigint> {
  const c = new Connection(net.rpcUrl, 'confirmed');
  const ata = getAssociatedTokenAddressSync(mint, recipient);
  const info = await c.getTokenAccountBalance(ata).catch(() => undefined);
  return BigInt(info?.value.amount ?? '0');
}

describe('npm run demo:pay', () => {
  it('pays on the local network of LOCALNET_PORT (a random port, not 8899)', async () => {
    const to = Keypair.generate().publicKey;
    const r = await demoPay(linkTo(to, '1.500000'), { LOCALNET_PORT: String(net.port) });
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain(`local network: http://127.0.0.1:${net.port} (LOCALNET_PORT=${net.port})`);
    expect(await received(to)).toBe(1_500_000n);
  }, 120_000);

  it('without LOCALNET_PORT, pays on the network the running store names; refuses another token than its own', async () => {
    const port = new URL(store.url).port;
    const to = Keypair.generate().publicKey;
    const r = await demoPay(linkTo(to, '2.000001'), { PORT: port });
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain(`(the store at http://127.0.0.1:${port})`);
    expect(await received(to)).toBe(2_000_001n);

    const other = await demoPay(linkTo(to, '1.000000', Keypair.generate().publicKey), { PORT: port });
    expect(other.code).toBe(1);
    expect(other.out).toContain('another token than');
    expect(await received(to)).toBe(2_000_001n);
  }, 120_000);

  it('with no store and no LOCALNET_PORT, says so in words and pays nothing', async () => {
    const to = Keypair.generate().publicKey;
    const r = await demoPay(linkTo(to, '1.000000'), { STORE_URL: 'http://127.0.0.1:9' });
    expect(r.code).toBe(1);
    expect(r.out).toContain('No store answers at http://127.0.0.1:9');
    expect(await received(to)).toBe(0n);
  }, 120_000);
});
