/**
 * `npm run vendor:setup`: creates each vendor's $CLAIM token account (the associated token account of every payout
 * wallet in the settings, for CLAIM_MINT) that does not exist yet, paid by the operator's key
 * (OPERATOR_KEYPAIR_FILE, a `solana-keygen` JSON file). Idempotent: existing accounts are reported and left alone.
 * In demo mode (no SOLANA_RPC_URL) it runs against the localnet on LOCALNET_PORT (start it with `npm start`) and,
 * without OPERATOR_KEYPAIR_FILE, pays with a demo operator key funded from the localnet's faucet.
 * Exit status: 0 done, 1 a failure, 2 bad settings.
 */
import { readFileSync } from 'node:fs';
import {
  createKeyPairSignerFromBytes,
  createKeyPairSignerFromPrivateKeyBytes,
  type KeyPairSigner,
} from '@solana/kit';
import { demoDefaults } from '../src/server/demo-defaults';
import { demoSeed } from '../src/server/demo-keys';
import { setupVendorAccounts } from '../src/server/ops/vendor-accounts';
import { chainRpc } from '../src/server/payments/connection';
import { redactError } from '../src/server/redact';
import { isDemoEnv, loadSettings, SettingsError, type Settings } from '../src/server/settings';

function fail(message: string, code: number): never {
  console.error(message);
  process.exit(code);
}

async function readKeypair(file: string): Promise<KeyPairSigner> {
  let bytes: unknown;
  try {
    bytes = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    fail(`OPERATOR_KEYPAIR_FILE: cannot read ${file} as JSON (${redactError(err)})`, 2);
  }
  if (
    !Array.isArray(bytes) ||
    bytes.length !== 64 ||
    !bytes.every((b) => Number.isInteger(b) && (b as number) >= 0 && (b as number) <= 255)
  )
    fail(`OPERATOR_KEYPAIR_FILE: ${file} is not a keypair file (a JSON array of 64 bytes)`, 2);
  try {
    // Checks that the public half (the last 32 bytes) is the private half's.
    return await createKeyPairSignerFromBytes(Uint8Array.from(bytes as number[]));
  } catch {
    return fail(`OPERATOR_KEYPAIR_FILE: ${file} does not hold a valid keypair`, 2);
  }
}

async function demoOperator(settings: Settings): Promise<KeyPairSigner> {
  // The localnet's deterministic demo operator (src/localnet/demo-keys.ts's demoKeypair('operator')).
  const operator = await createKeyPairSignerFromPrivateKeyBytes(demoSeed('operator'));
  const res = await fetch(`${settings.solana.rpcUrl}/faucet`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ address: operator.address, sol: 1 }),
  }).catch((err: unknown) =>
    fail(
      `The localnet at ${settings.solana.rpcUrl} is not reachable (${redactError(err)}): start it with npm start.`,
      1,
    ),
  );
  if (!res.ok) fail(`faucet: ${res.status} ${await res.text()}`, 1);
  return operator;
}

let settings: Settings;
try {
  settings = loadSettings(process.env, isDemoEnv(process.env) ? demoDefaults() : undefined);
} catch (err) {
  if (err instanceof SettingsError) fail(err.message, 2);
  throw err;
}

let operator: KeyPairSigner;
if (settings.operatorKeypairFile) operator = await readKeypair(settings.operatorKeypairFile);
else if (settings.demo) operator = await demoOperator(settings);
else
  fail('OPERATOR_KEYPAIR_FILE: required (the key that pays for the accounts; a solana-keygen JSON file)', 2);

const chain = chainRpc(settings.solana.rpcUrl);
try {
  console.log(`operator ${operator.address}, mint ${settings.claimMint}`);
  const results = await setupVendorAccounts(chain, operator, settings.claimMint, settings.recipients);
  for (const r of results)
    console.log(
      r.created
        ? `${r.group}: created ${r.ata} (owner ${r.owner}), signature ${r.signature}`
        : `${r.group}: exists ${r.ata} (owner ${r.owner})`,
    );
  const created = results.filter((r) => r.created).length;
  console.log(created ? `created ${created} account(s)` : 'nothing to do: every vendor account exists');
} catch (err) {
  fail(`vendor:setup failed: ${redactError(err)}`, 1);
}
process.exit(0); // a kept-alive socket must not hold the script
