/**
 * The vendors' $CLAIM token accounts. A payment goes to the vendor wallet's associated token account
 * for the $CLAIM mint; while it does not exist, the first buyer has to create it (an extra wallet approval and
 * ~0.002 SOL of rent). `npm run vendor:setup` creates every missing one up front, paid by the operator's key
 * (idempotent: existing accounts are left alone, and the instruction itself is the idempotent form); the server
 * warns at start-up while one is missing.
 */
import { getCreateAssociatedTokenIdempotentInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import {
  address,
  appendTransactionMessageInstruction,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type KeyPairSigner,
  type Signature,
} from '@solana/kit';
import { associatedTokenAddress, TOKEN_2022_PROGRAM_ADDRESS } from '../payments/ata';
import type { ChainRpc } from '../payments/connection';

export interface VendorAccount {
  /** Payout group (catalogue `payoutGroup`). */
  group: string;
  /** The vendor's payout wallet. */
  owner: string;
  /** Its associated token account for the mint. */
  ata: string;
  exists: boolean;
}

export interface VendorAccountResult extends VendorAccount {
  /** Created by this run (false: it already existed). */
  created: boolean;
  signature?: string;
}

/** The token program that owns `mint` (SPL Token or Token-2022). Throws when the mint does not exist. */
export async function tokenProgramOf(chain: ChainRpc, mint: string): Promise<Address> {
  const { value: info } = await chain.api
    .getAccountInfo(address(mint), { commitment: 'confirmed', encoding: 'base64', dataSlice: DATA_NONE })
    .send();
  if (!info) throw new Error(`the $CLAIM mint ${mint} does not exist on this network`);
  if (info.owner === TOKEN_PROGRAM_ADDRESS || info.owner === TOKEN_2022_PROGRAM_ADDRESS) return info.owner;
  throw new Error(`${mint} is not a token mint (owner ${info.owner})`);
}

/** Only whether an account exists and who owns it is read: no data. */
const DATA_NONE = { offset: 0, length: 0 };

/**
 * Each payout group's token account and whether it exists (one RPC read for all of them, plus one for the mint's
 * token program unless `program` is given).
 */
export async function vendorAccounts(
  chain: ChainRpc,
  mint: string,
  recipients: Record<string, string>,
  tokenProgram?: Address,
): Promise<VendorAccount[]> {
  const program = tokenProgram ?? (await tokenProgramOf(chain, mint));
  const rows = Object.entries(recipients).map(([group, owner]) => ({
    group,
    owner,
    ata: associatedTokenAddress(mint, owner, program) as string,
  }));
  const { value: infos } = await chain.api
    .getMultipleAccounts(
      rows.map((r) => address(r.ata)),
      { commitment: 'confirmed', encoding: 'base64', dataSlice: DATA_NONE },
    )
    .send();
  return rows.map((r, i) => ({ ...r, exists: infos[i] != null }));
}

/**
 * Creates every missing vendor token account, one transaction each, paid by `operator`; existing ones are left
 * alone. Safe to run again and again (and concurrently with a buyer creating one: the instruction is idempotent).
 */
export async function setupVendorAccounts(
  chain: ChainRpc,
  operator: KeyPairSigner,
  mint: string,
  recipients: Record<string, string>,
): Promise<VendorAccountResult[]> {
  const program = await tokenProgramOf(chain, mint);
  const results: VendorAccountResult[] = [];
  const done = new Map<string, VendorAccountResult>(); // two groups may share a wallet
  for (const account of await vendorAccounts(chain, mint, recipients, program)) {
    const earlier = done.get(account.ata);
    if (account.exists || earlier) {
      results.push({ ...account, exists: true, created: false });
      continue;
    }
    const { value: latest } = await chain.api.getLatestBlockhash({ commitment: 'confirmed' }).send();
    const message = pipe(
      createTransactionMessage({ version: 'legacy' }),
      (m) => setTransactionMessageFeePayerSigner(operator, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
      (m) =>
        appendTransactionMessageInstruction(
          getCreateAssociatedTokenIdempotentInstruction({
            payer: operator,
            ata: address(account.ata),
            owner: address(account.owner),
            mint: address(mint),
            tokenProgram: program,
          }),
          m,
        ),
    );
    const signed = await signTransactionMessageWithSigners(message);
    const signature = getSignatureFromTransaction(signed);
    await chain.api
      .sendTransaction(getBase64EncodedWireTransaction(signed), {
        encoding: 'base64',
        preflightCommitment: 'confirmed',
      })
      .send();
    await confirmed(chain, signature, latest.lastValidBlockHeight);
    const row = { ...account, exists: true, created: true, signature };
    done.set(account.ata, row);
    results.push(row);
  }
  return results;
}

/** Waits until `signature` is confirmed (polling its status every 500 ms); throws when it failed or expired. */
async function confirmed(chain: ChainRpc, signature: Signature, lastValidBlockHeight: bigint): Promise<void> {
  for (;;) {
    const {
      value: [status],
    } = await chain.api.getSignatureStatuses([signature]).send();
    if (status?.err)
      throw new Error(`transaction ${signature} failed: ${JSON.stringify(status.err, jsonBigInt)}`);
    if (status?.confirmationStatus === 'confirmed' || status?.confirmationStatus === 'finalized') return;
    const height = await chain.api.getBlockHeight({ commitment: 'confirmed' }).send();
    if (height > lastValidBlockHeight)
      throw new Error(`transaction ${signature} expired before it was confirmed`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

const jsonBigInt = (_key: string, value: unknown) => (typeof value === 'bigint' ? value.toString() : value);

/** The start-up warning for a missing vendor token account. */
export function missingAccountWarning(a: VendorAccount): string {
  return `Vendor ${a.group}: the $CLAIM token account ${a.ata} of payout wallet ${a.owner} does not exist yet, so its QR pages show no QR code (buyers read that the vendor is not set up for QR payments yet) and a wallet buyer must create it (an extra wallet approval and its rent). Run \`npm run vendor:setup\`.`;
}

/** Checks the vendors' token accounts and warns (through `warn`) for each missing one; returns the missing ones. */
export async function warnMissingVendorAccounts(
  chain: ChainRpc,
  settings: { claimMint: string; recipients: Record<string, string> },
  warn: (line: string) => void = (line) => console.warn(line),
): Promise<VendorAccount[]> {
  const missing = (await vendorAccounts(chain, settings.claimMint, settings.recipients)).filter(
    (a) => !a.exists,
  );
  for (const a of missing) warn(missingAccountWarning(a));
  return missing;
}
