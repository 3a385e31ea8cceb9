/**
 * What the shop's wallet transactions are made of, with @solana/kit and the programs' kit clients
 * (@solana-program/token, -memo, -compute-budget): associated token accounts, the idempotent account creation,
 * TransferChecked, and the unsigned wire bytes a wallet signs (a legacy message: every wallet signs those; the
 * fee payer is the wallet, which is the only signer) — for the seller's account creation and the vendor's refund.
 * The buyer's payment itself comes from src/core/payment-tx.ts. Pure: no RPC, no wallet.
 */
import {
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
} from '@solana-program/token';
import {
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
  type Blockhash,
  type Instruction,
} from '@solana/kit';
import { associatedTokenAddress } from '../../core/payment-tx';
import { computeBudgetInstructions } from './priority-fee';

export { address, type Address, type Instruction };

export const CLAIM_DECIMALS = 6;

/** The associated token account of `owner` for `mint` (classic SPL Token). */
export function associatedTokenAccount(mint: Address, owner: Address): Promise<Address> {
  return associatedTokenAddress(owner, mint);
}

/** Creates `owner`'s token account for `mint`, paid by `payer`; nothing happens when it exists (idempotent). */
export function createAccountInstruction(
  payer: Address,
  ata: Address,
  owner: Address,
  mint: Address,
): Instruction {
  return getCreateAssociatedTokenIdempotentInstruction({
    payer: createNoopSigner(payer),
    ata,
    owner,
    mint,
  });
}

/** TransferChecked of exactly `amount` base units (6 decimals), signed by `authority`. */
export function transferCheckedInstruction(t: {
  source: Address;
  mint: Address;
  destination: Address;
  authority: Address;
  amount: bigint;
}): Instruction {
  return getTransferCheckedInstruction({
    source: t.source,
    mint: t.mint,
    destination: t.destination,
    authority: createNoopSigner(t.authority),
    amount: t.amount,
    decimals: CLAIM_DECIMALS,
  });
}

/**
 * The unsigned wire transaction for the wallet: the two ComputeBudget instructions first (limit, price), then
 * `instructions`; `feePayer` pays and signs.
 */
export function walletTransaction(p: {
  feePayer: Address;
  blockhash: { blockhash: string; lastValidBlockHeight: bigint };
  budget: { units: number; microLamports: number };
  instructions: Instruction[];
}): Uint8Array {
  const message = pipe(
    createTransactionMessage({ version: 'legacy' }),
    (m) => setTransactionMessageFeePayer(p.feePayer, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        {
          blockhash: p.blockhash.blockhash as Blockhash,
          lastValidBlockHeight: p.blockhash.lastValidBlockHeight,
        },
        m,
      ),
    (m) =>
      appendTransactionMessageInstructions(
        [...computeBudgetInstructions(p.budget.units, p.budget.microLamports), ...p.instructions],
        m,
      ),
  );
  return new Uint8Array(getTransactionEncoder().encode(compileTransaction(message)));
}
