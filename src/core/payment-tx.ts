/**
 * The buyer's payment transaction, built with @solana/kit 8 and the program clients, for both sides that build
 * one: the browser's wallet checkout and the server's Solana Pay transaction request (POST /api/pay/:token).
 * Pure: no RPC, no key, no signature. The caller supplies what the chain says (a recent blockhash, whether the
 * seller's token account exists, the priority price); the result is what the buyer's wallet signs.
 *
 * What it holds, in order (docs/decisions/transaction-requests.md):
 *   1. ComputeBudget SetComputeUnitLimit: TRANSFER_COMPUTE_UNITS, plus CREATE_ACCOUNT_COMPUTE_UNITS when the
 *      seller's account is created in the same transaction;
 *   2. ComputeBudget SetComputeUnitPrice: the priority price (src/core/priority-fee.ts, the wallet checkout's rule);
 *   3. only when the seller's token account does not exist: the associated-token program's CreateIdempotent,
 *      paid by the buyer (a concurrent creation by someone else cannot fail the payment);
 *   4. the token program's TransferChecked of exactly `amountBaseUnits` at `decimals`, from the buyer's associated
 *      token account to the seller's, authority the buyer, with the order's reference appended as a read-only
 *      non-signer key (how the watcher finds the payment, as for a Solana Pay transfer request).
 * The fee payer is the buyer. No memo (the wallet checkout has none; the reference identifies the order).
 */
import {
  AccountRole,
  address,
  appendTransactionMessageInstructions,
  assertIsAddress,
  blockhash as toBlockhash,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
  type Instruction,
  type Transaction,
} from '@solana/kit';
import {
  getSetComputeUnitLimitInstruction,
  getSetComputeUnitPriceInstruction,
} from '@solana-program/compute-budget';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import { CREATE_ACCOUNT_COMPUTE_UNITS, PRIORITY_FEE_CAP, TRANSFER_COMPUTE_UNITS } from './priority-fee';

/** Version 0: what wallets take today (transaction-versions.md); 'legacy' for a wallet that lists only that. */
export type PaymentTxVersion = 0 | 'legacy';

/**
 * The zero blockhash the Solana Pay spec allows in a transaction request ("the wallet must replace it"); used
 * only when no recent blockhash is known. Its lastValidBlockHeight is 0.
 */
export const ZERO_BLOCKHASH = '11111111111111111111111111111111';

export interface PaymentTxInput {
  /** The buyer's wallet: fee payer, owner of the source token account, sole signer. */
  payer: string;
  /** The token's mint ($CLAIM). */
  mint: string;
  /** The seller's payout wallet (the owner of the destination token account, as a Solana Pay `recipient`). */
  sellerOwner: string;
  /** Exact amount in the token's base units. */
  amountBaseUnits: bigint;
  /** The mint's decimals (6 for $CLAIM); TransferChecked fails on chain if they differ. */
  decimals: number;
  /** The order's reference (read-only, non-signer key on the transfer). */
  reference: string;
  /** Compute-unit price in micro-lamports (priorityPriceFrom's answer). */
  priorityMicroLamports: number;
  /** Whether the seller's associated token account exists; false adds its idempotent creation. */
  sellerAccountExists: boolean;
  /** A recent blockhash and the last block height it is valid at (ZERO_BLOCKHASH and 0n when unknown). */
  lifetime: { blockhash: string; lastValidBlockHeight: bigint };
  /** Default 0. */
  version?: PaymentTxVersion;
  /** The mint's token program (default: SPL Token). */
  tokenProgram?: string;
}

/** Raised for input no transaction can be built from (a bad address, a zero amount…); the message says which. */
export class PaymentTxError extends Error {
  override name = 'PaymentTxError';
}

function addressOf(name: string, value: string): Address {
  try {
    assertIsAddress(value);
    return value;
  } catch {
    throw new PaymentTxError(`${name} is not a Solana address: '${value}'`);
  }
}

const U64_MAX = (1n << 64n) - 1n;

/** The compute-unit limit of a payment: the transfer, plus the account creation when it is in the transaction. */
export function paymentComputeUnits(sellerAccountExists: boolean): number {
  return TRANSFER_COMPUTE_UNITS + (sellerAccountExists ? 0 : CREATE_ACCOUNT_COMPUTE_UNITS);
}

/** The associated token account of `owner` for `mint` (async: the address is a SHA-256 derivation). */
export async function associatedTokenAddress(
  owner: string,
  mint: string,
  tokenProgram: string = TOKEN_PROGRAM_ADDRESS,
): Promise<Address> {
  const [ata] = await findAssociatedTokenPda({
    owner: addressOf('owner', owner),
    mint: addressOf('mint', mint),
    tokenProgram: addressOf('tokenProgram', tokenProgram),
  });
  return ata;
}

/** The instructions of the payment, in order (see the file's comment). */
export async function paymentInstructions(
  input: Omit<PaymentTxInput, 'lifetime' | 'version'>,
): Promise<Instruction[]> {
  const payer = addressOf('payer', input.payer);
  const mint = addressOf('mint', input.mint);
  const sellerOwner = addressOf('seller', input.sellerOwner);
  const reference = addressOf('reference', input.reference);
  const tokenProgram = addressOf('tokenProgram', input.tokenProgram ?? TOKEN_PROGRAM_ADDRESS);
  if (input.amountBaseUnits <= 0n || input.amountBaseUnits > U64_MAX)
    throw new PaymentTxError(`the amount must be between 1 and ${U64_MAX} base units`);
  if (!Number.isInteger(input.decimals) || input.decimals < 0 || input.decimals > 255)
    throw new PaymentTxError('decimals must be an integer from 0 to 255');
  const price = input.priorityMicroLamports;
  if (!Number.isSafeInteger(price) || price < 0 || price > PRIORITY_FEE_CAP)
    throw new PaymentTxError(
      `the priority price must be an integer from 0 to ${PRIORITY_FEE_CAP} micro-lamports`,
    );
  if (reference === payer || reference === sellerOwner || reference === mint)
    throw new PaymentTxError('the reference must be a key of its own');
  if (payer === sellerOwner) throw new PaymentTxError("the payer is the seller's own wallet");

  const [source, destination] = await Promise.all([
    findAssociatedTokenPda({ owner: payer, mint, tokenProgram }).then(([a]) => a),
    findAssociatedTokenPda({ owner: sellerOwner, mint, tokenProgram }).then(([a]) => a),
  ]);
  const out: Instruction[] = [
    getSetComputeUnitLimitInstruction({ units: paymentComputeUnits(input.sellerAccountExists) }),
    getSetComputeUnitPriceInstruction({ microLamports: BigInt(price) }),
  ];
  if (!input.sellerAccountExists)
    out.push(
      getCreateAssociatedTokenIdempotentInstruction({
        // The buyer pays the rent; a no-op signer marks the role without any key (the buyer's wallet signs).
        payer: createNoopSigner(payer),
        ata: destination,
        owner: sellerOwner,
        mint,
        tokenProgram,
      }),
    );
  const transfer = getTransferCheckedInstruction(
    { source, mint, destination, authority: payer, amount: input.amountBaseUnits, decimals: input.decimals },
    { programAddress: tokenProgram },
  );
  out.push({
    ...transfer,
    accounts: [...transfer.accounts, { address: reference, role: AccountRole.READONLY }],
  });
  return out;
}

/** The payment as a kit transaction message: fee payer the buyer, the given lifetime, the instructions. */
export async function paymentTransactionMessage(input: PaymentTxInput) {
  const instructions = await paymentInstructions(input);
  const payer = address(input.payer);
  let hash;
  try {
    hash = toBlockhash(input.lifetime.blockhash);
  } catch {
    throw new PaymentTxError(`not a blockhash: '${input.lifetime.blockhash}'`);
  }
  return pipe(
    createTransactionMessage({ version: input.version ?? 0 }),
    (m) => setTransactionMessageFeePayer(payer, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: hash, lastValidBlockHeight: input.lifetime.lastValidBlockHeight },
        m,
      ),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
}

export interface CompiledPayment {
  /** The compiled transaction: message bytes and one empty signature slot (the buyer's). */
  transaction: Transaction;
  /** Its wire bytes (signature count, a zeroed signature, the message), as a wallet deserializes them. */
  wireBytes: Uint8Array;
  /** The same, base64: the `transaction` field of a Solana Pay transaction request's answer. */
  base64: string;
}

/** The payment compiled, unsigned: what the buyer's wallet signs (and, for a transaction request, sends). */
export async function compilePaymentTransaction(input: PaymentTxInput): Promise<CompiledPayment> {
  const transaction = compileTransaction(await paymentTransactionMessage(input));
  const wireBytes = new Uint8Array(getTransactionEncoder().encode(transaction));
  return { transaction, wireBytes, base64: getBase64EncodedWireTransaction(transaction) };
}
