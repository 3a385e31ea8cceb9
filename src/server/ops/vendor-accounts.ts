/**
 * The vendors' $CLAIM token accounts. A payment goes to the vendor wallet's associated token account
 * for the $CLAIM mint; while it does not exist, the first buyer has to create it (an extra wallet approval and
 * ~0.002 SOL of rent). `npm run vendor:setup` creates every missing one up front, paid by the operator's key
 * (idempotent: existing accounts are left alone, and the instruction itself is the idempotent form); the server
 * warns at start-up while one is missing.
 */
import {
  createAssociatedTokenAccountIdempotentInstruction,
  getAssociatedTokenAddressSync,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
} from '@solana/spl-token';
import {
  PublicKey,
  sendAndConfirmTransaction,
  Transaction,
  type Connection,
  type Keypair,
} from '@solana/web3.js';

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
export async function tokenProgramOf(connection: Connection, mint: PublicKey): Promise<PublicKey> {
  const info = await connection.getAccountInfo(mint, 'confirmed');
  if (!info) throw new Error(`the $CLAIM mint ${mint.toBase58()} does not exist on this network`);
  if (info.owner.equals(TOKEN_PROGRAM_ID) || info.owner.equals(TOKEN_2022_PROGRAM_ID)) return info.owner;
  throw new Error(`${mint.toBase58()} is not a token mint (owner ${info.owner.toBase58()})`);
}

/**
 * Each payout group's token account and whether it exists (one RPC read for all of them, plus one for the mint's
 * token program unless `program` is given).
 */
export async function vendorAccounts(
  connection: Connection,
  mint: string,
  recipients: Record<string, string>,
  tokenProgram?: PublicKey,
): Promise<VendorAccount[]> {
  const mintKey = new PublicKey(mint);
  const program = tokenProgram ?? (await tokenProgramOf(connection, mintKey));
  const rows = Object.entries(recipients).map(([group, owner]) => ({
    group,
    owner,
    ata: getAssociatedTokenAddressSync(mintKey, new PublicKey(owner), true, program).toBase58(),
  }));
  const infos = await connection.getMultipleAccountsInfo(
    rows.map((r) => new PublicKey(r.ata)),
    'confirmed',
  );
  return rows.map((r, i) => ({ ...r, exists: infos[i] != null }));
}

/**
 * Creates every missing vendor token account, one transaction each, paid by `operator`; existing ones are left
 * alone. Safe to run again and again (and concurrently with a buyer creating one: the instruction is idempotent).
 */
export async function setupVendorAccounts(
  connection: Connection,
  operator: Keypair,
  mint: string,
  recipients: Record<string, string>,
): Promise<VendorAccountResult[]> {
  const mintKey = new PublicKey(mint);
  const program = await tokenProgramOf(connection, mintKey);
  const results: VendorAccountResult[] = [];
  const done = new Map<string, VendorAccountResult>(); // two groups may share a wallet
  for (const account of await vendorAccounts(connection, mint, recipients)) {
    const earlier = done.get(account.ata);
    if (account.exists || earlier) {
      results.push({ ...account, exists: true, created: false });
      continue;
    }
    const tx = new Transaction().add(
      createAssociatedTokenAccountIdempotentInstruction(
        operator.publicKey,
        new PublicKey(account.ata),
        new PublicKey(account.owner),
        mintKey,
        program,
      ),
    );
    const signature = await sendAndConfirmTransaction(connection, tx, [operator], {
      commitment: 'confirmed',
    });
    const row = { ...account, exists: true, created: true, signature };
    done.set(account.ata, row);
    results.push(row);
  }
  return results;
}

/** The start-up warning for a missing vendor token account. */
export function missingAccountWarning(a: VendorAccount): string {
  return `Vendor ${a.group}: the $CLAIM token account ${a.ata} of payout wallet ${a.owner} does not exist yet, so its QR pages show no QR code (buyers read that the vendor is not set up for QR payments yet) and a wallet buyer must create it (an extra wallet approval and its rent). Run \`npm run vendor:setup\`.`;
}

/** Checks the vendors' token accounts and warns (through `warn`) for each missing one; returns the missing ones. */
export async function warnMissingVendorAccounts(
  connection: Connection,
  settings: { claimMint: string; recipients: Record<string, string> },
  warn: (line: string) => void = (line) => console.warn(line),
): Promise<VendorAccount[]> {
  const missing = (await vendorAccounts(connection, settings.claimMint, settings.recipients)).filter(
    (a) => !a.exists,
  );
  for (const a of missing) warn(missingAccountWarning(a));
  return missing;
}
