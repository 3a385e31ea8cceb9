/**
 * `npm run vendor:setup` and the start-up warning, against the localnet: this localnet is seeded without the
 * gorilla vendor's $CLAIM account (`withoutTokenAccount`, as DEMO_VENDORS_WITHOUT_TOKEN_ACCOUNT=gorilla does). The script (a real child process, demo mode
 * on this localnet's port) creates the missing one, a second run changes nothing, and an operator key from
 * OPERATOR_KEYPAIR_FILE pays when given.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Connection, Keypair, LAMPORTS_PER_SOL, PublicKey } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalnet, type Localnet } from '../support/localnet.js';
import { demoKeys } from '../support/demo-keypairs.js';
import { demoDefaults } from '../../src/server/demo-defaults.js';
import { vendorAccounts, warnMissingVendorAccounts } from '../../src/server/ops/vendor-accounts.js';
import { chainRpc } from '../../src/server/payments/connection.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');

let net: Localnet;
let connection: Connection;
let dir: string;
const defaults = demoDefaults();

beforeAll(async () => {
  net = await startLocalnet({ port: 0, slotMs: 40, finalizeLag: 3, withoutTokenAccount: ['gorilla'] });
  connection = new Connection(net.rpcUrl, 'confirmed');
  dir = mkdtempSync(join(tmpdir(), 'vendor-setup-'));
});
afterAll(async () => {
  await net?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The script as an operator runs it: demo mode (no SOLANA_RPC_URL) on this localnet. */
async function vendorSetup(env: Record<string, string> = {}): Promise<string> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^(SOLANA_|RECIPIENT_|CLAIM_MINT|OPERATOR_|DATABASE_URL)/.test(k),
    ),
  );
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/vendor-setup.ts'], {
    cwd: ROOT,
    env: { ...clean, LOCALNET_PORT: String(net.port), ...env },
    timeout: 60_000,
  });
  return stdout;
}

async function signaturesOf(address: string): Promise<string[]> {
  return (await connection.getSignaturesForAddress(new PublicKey(address), {}, 'confirmed')).map(
    (s) => s.signature,
  );
}

describe('vendor token accounts', () => {
  it('warns at start-up for the missing one only', async () => {
    const lines: string[] = [];
    const missing = await warnMissingVendorAccounts(chainRpc(net.rpcUrl), defaults, (l) => lines.push(l));
    expect(missing.map((m) => m.group)).toEqual(['gorilla']);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('Vendor gorilla');
    expect(lines[0]).toContain(missing[0]?.ata);
    expect(lines[0]).toContain('npm run vendor:setup');
  });

  it('vendor:setup creates the missing account, paid by the operator; a second run changes nothing; no warning after', async () => {
    const before = await vendorAccounts(chainRpc(net.rpcUrl), defaults.claimMint, defaults.recipients);
    const gorilla = before.find((a) => a.group === 'gorilla');
    const glass = before.find((a) => a.group === 'coopersglass');
    expect(gorilla?.exists).toBe(false);
    expect(glass?.exists).toBe(true);
    expect(gorilla?.ata).toBe(
      getAssociatedTokenAddressSync(demoKeys().mint, demoKeys().recipients.gorilla).toBase58(),
    );

    const first = await vendorSetup();
    expect(first).toMatch(new RegExp(`gorilla: created ${gorilla?.ata}`));
    expect(first).toContain(`coopersglass: exists ${glass?.ata}`);
    expect(first).toContain('created 1 account(s)');
    const info = await connection.getParsedAccountInfo(new PublicKey(gorilla?.ata ?? ''), 'confirmed');
    const parsed = (info.value?.data as { parsed?: { info?: { owner?: string; mint?: string } } }).parsed;
    expect(parsed?.info).toMatchObject({ owner: gorilla?.owner, mint: defaults.claimMint });
    const sigs = await signaturesOf(gorilla?.ata ?? '');
    expect(sigs).toHaveLength(1);

    const second = await vendorSetup();
    expect(second).toContain('nothing to do: every vendor account exists');
    expect(second).not.toContain('created ');
    expect(await signaturesOf(gorilla?.ata ?? '')).toEqual(sigs); // no transaction touched it
    const lines: string[] = [];
    expect(await warnMissingVendorAccounts(chainRpc(net.rpcUrl), defaults, (l) => lines.push(l))).toEqual([]);
    expect(lines).toEqual([]);
  });

  it('pays with the key in OPERATOR_KEYPAIR_FILE; refuses a file that is not a keypair', async () => {
    const operator = Keypair.generate();
    const airdrop = await connection.requestAirdrop(operator.publicKey, LAMPORTS_PER_SOL);
    await connection.confirmTransaction(airdrop, 'confirmed');
    const file = join(dir, 'operator.json');
    writeFileSync(file, JSON.stringify(Array.from(operator.secretKey)));
    const newVendorWallet = Keypair.generate().publicKey.toBase58();
    const out = await vendorSetup({ OPERATOR_KEYPAIR_FILE: file, RECIPIENT_GORILLA: newVendorWallet });
    expect(out).toContain(`operator ${operator.publicKey.toBase58()}`);
    const sig = /gorilla: created \S+ \(owner (\S+)\), signature (\S+)/.exec(out);
    expect(sig?.[1]).toBe(newVendorWallet);
    const tx = await connection.getTransaction(sig?.[2] ?? '', {
      commitment: 'confirmed',
      maxSupportedTransactionVersion: 0,
    });
    expect(tx?.transaction.message.staticAccountKeys[0]?.toBase58()).toBe(operator.publicKey.toBase58());

    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '[1,2,3]');
    const err = await vendorSetup({ OPERATOR_KEYPAIR_FILE: bad }).then(
      () => null,
      (e: unknown) => e as { code?: number; stderr?: string },
    );
    expect(err?.code).toBe(2);
    expect(err?.stderr).toContain('is not a keypair file');
  });
});
