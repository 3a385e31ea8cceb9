/**
 * Seeds the demo state: the $CLAIM mint, funded vendor recipients and their $CLAIM token accounts, so every vendor
 * can receive by QR from the start. `withoutTokenAccount` names payout groups whose account is left out, to show
 * the wallet purchase that creates it (two approvals; that vendor's QR pages then say it is not set up yet).
 */
import { LAMPORTS_PER_SOL, SystemProgram } from '@solana/web3.js';
import {
  MINT_SIZE,
  TOKEN_PROGRAM_ID,
  createAssociatedTokenAccountIdempotentInstruction,
  createInitializeMint2Instruction,
  getAssociatedTokenAddressSync,
} from '@solana/spl-token';
import { SYSTEM_PROGRAM } from './accounts.js';
import type { Chain } from './chain.js';
import { DEMO_MINT_DECIMALS, demoKeys, demoMintKeypair, faucetKeypair, type DemoKeys } from './demo-keys.js';
import { submitInternal } from './ledger-tx.js';

/** Lamports given to the faucet account at genesis (500 million SOL). */
const FAUCET_LAMPORTS = 500_000_000n * BigInt(LAMPORTS_PER_SOL);
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
  chain.setAccount(faucetKeypair().publicKey.toBase58(), {
    lamports: FAUCET_LAMPORTS,
    data: new Uint8Array(0),
    owner: SYSTEM_PROGRAM,
    executable: false,
  });
}

export function seedDemo(chain: Chain, opts: SeedOptions = {}): SeedResult {
  const keys = demoKeys();
  const payer = faucetKeypair();
  const mint = demoMintKeypair();
  submitInternal(
    chain,
    payer,
    [mint],
    [
      SystemProgram.createAccount({
        fromPubkey: payer.publicKey,
        newAccountPubkey: mint.publicKey,
        lamports: chain.minimumBalanceForRentExemption(MINT_SIZE),
        space: MINT_SIZE,
        programId: TOKEN_PROGRAM_ID,
      }),
      createInitializeMint2Instruction(
        mint.publicKey,
        DEMO_MINT_DECIMALS,
        keys.mintAuthority.publicKey,
        null,
      ),
    ],
  );
  const lamports = RECIPIENT_SOL * BigInt(LAMPORTS_PER_SOL);
  submitInternal(
    chain,
    payer,
    [],
    [
      SystemProgram.transfer({
        fromPubkey: payer.publicKey,
        toPubkey: keys.recipients.coopersglass,
        lamports,
      }),
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: keys.recipients.gorilla, lamports }),
      SystemProgram.transfer({
        fromPubkey: payer.publicKey,
        toPubkey: keys.mintAuthority.publicKey,
        lamports: BigInt(LAMPORTS_PER_SOL),
      }),
    ],
  );
  const groups = ['coopersglass', 'gorilla'] as const;
  const skipped = groups.filter((g) => opts.withoutTokenAccount?.includes(g));
  const atas = {
    coopersglass: getAssociatedTokenAddressSync(keys.mint, keys.recipients.coopersglass),
    gorilla: getAssociatedTokenAddressSync(keys.mint, keys.recipients.gorilla),
  };
  const created = groups.filter((g) => !skipped.includes(g));
  if (created.length > 0)
    submitInternal(
      chain,
      payer,
      [],
      created.map((g) =>
        createAssociatedTokenAccountIdempotentInstruction(
          payer.publicKey,
          atas[g],
          keys.recipients[g],
          keys.mint,
        ),
      ),
    );
  return {
    keys,
    recipientTokenAccounts: {
      coopersglass: atas.coopersglass.toBase58(),
      gorilla: atas.gorilla.toBase58(),
    },
    withoutTokenAccount: [...skipped],
  };
}
