/**
 * Seeds the demo state: the $CLAIM mint, funded vendor recipients and their $CLAIM token accounts, so every vendor
 * can receive by QR from the start. `withoutTokenAccount` names payout groups whose account is left out, to show
 * the wallet purchase that creates it (two approvals; that vendor's QR pages then say it is not set up yet).
 */
import { createNoopSigner, type Address } from '@solana/kit';
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system';
import {
  TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintSize,
} from '@solana-program/token';
import { SYSTEM_PROGRAM } from './accounts.js';
import type { Chain } from './chain.js';
import { DEMO_MINT_DECIMALS, demoKeys, demoMintSigner, faucetSigner, type DemoKeys } from './demo-keys.js';
import { submitInternal } from './ledger-tx.js';

const LAMPORTS_PER_SOL = 1_000_000_000n;
/** Lamports given to the faucet account at genesis (500 million SOL). */
const FAUCET_LAMPORTS = 500_000_000n * LAMPORTS_PER_SOL;
const RECIPIENT_SOL = 10n;

export interface SeedResult {
  keys: DemoKeys;
  /** Each recipient's associated token account (created unless its group is in `withoutTokenAccount`). */
  recipientTokenAccounts: { coopersglass: string; gorilla: string };
  /** The payout groups whose token account was left out. */
  withoutTokenAccount: string[];
}

export interface SeedOptions {
  /** Payout groups ('coopersglass', 'gorilla') whose $CLAIM token account is not created. Default none. */
  withoutTokenAccount?: readonly string[];
}

/** Gives the faucet its genesis balance (always done, so requestAirdrop works even unseeded). */
export function fundFaucet(chain: Chain): void {
  chain.setAccount(faucetSigner().address, {
    lamports: FAUCET_LAMPORTS,
    data: new Uint8Array(0),
    owner: SYSTEM_PROGRAM,
    executable: false,
  });
}

/** The associated $CLAIM token account of `owner`. */
async function tokenAccountOf(mint: Address, owner: Address): Promise<Address> {
  const [ata] = await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  return ata;
}

export async function seedDemo(chain: Chain, opts: SeedOptions = {}): Promise<SeedResult> {
  const keys = demoKeys();
  const payer = faucetSigner();
  const mint = demoMintSigner();
  const source = createNoopSigner(payer.address);
  submitInternal(
    chain,
    payer,
    [mint],
    [
      getCreateAccountInstruction({
        payer: source,
        newAccount: createNoopSigner(mint.address),
        lamports: BigInt(chain.minimumBalanceForRentExemption(getMintSize())),
        space: getMintSize(),
        programAddress: TOKEN_PROGRAM_ADDRESS,
      }),
      getInitializeMint2Instruction({
        mint: mint.address,
        decimals: DEMO_MINT_DECIMALS,
        mintAuthority: keys.mintAuthority.address,
        freezeAuthority: null,
      }),
    ],
  );
  const amount = RECIPIENT_SOL * LAMPORTS_PER_SOL;
  submitInternal(
    chain,
    payer,
    [],
    [
      getTransferSolInstruction({ source, destination: keys.recipients.coopersglass, amount }),
      getTransferSolInstruction({ source, destination: keys.recipients.gorilla, amount }),
      getTransferSolInstruction({
        source,
        destination: keys.mintAuthority.address,
        amount: LAMPORTS_PER_SOL,
      }),
    ],
  );
  const groups = ['coopersglass', 'gorilla'] as const;
  const skipped = groups.filter((g) => opts.withoutTokenAccount?.includes(g));
  const atas = {
    coopersglass: await tokenAccountOf(keys.mint, keys.recipients.coopersglass),
    gorilla: await tokenAccountOf(keys.mint, keys.recipients.gorilla),
  };
  const created = groups.filter((g) => !skipped.includes(g));
  if (created.length > 0)
    submitInternal(
      chain,
      payer,
      [],
      created.map((g) =>
        getCreateAssociatedTokenIdempotentInstruction({
          payer: source,
          ata: atas[g],
          owner: keys.recipients[g],
          mint: keys.mint,
        }),
      ),
    );
  return {
    keys,
    recipientTokenAccounts: { coopersglass: atas.coopersglass, gorilla: atas.gorilla },
    withoutTokenAccount: [...skipped],
  };
}
