/**
 * Version 1 transactions (SIMD-0385: `0x81`, the compute budget in the message, no lookup tables) built and signed
 * with @solana/kit 8.4 (the store's own kit), the way a kit-based wallet builds them. The limits are
 * set in the message: a v1 transaction that leaves them unset is budgeted zero compute units and zero loaded bytes.
 */
import type { Keypair, TransactionInstruction } from '@solana/web3.js';
import {
  AccountRole,
  address,
  appendTransactionMessageInstructions,
  blockhash,
  compileTransaction,
  createKeyPairFromBytes,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getTransactionEncoder,
  pipe,
  setTransactionMessageConfig,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransaction,
  type Instruction,
} from '@solana/kit';

export interface V1Options {
  computeUnitLimit?: number;
  loadedAccountsDataSizeLimit?: number;
  priorityFeeLamports?: bigint;
}

function kitInstruction(ix: TransactionInstruction): Instruction {
  return {
    programAddress: address(ix.programId.toBase58()),
    accounts: ix.keys.map((k) => ({
      address: address(k.pubkey.toBase58()),
      role: k.isSigner
        ? k.isWritable
          ? AccountRole.WRITABLE_SIGNER
          : AccountRole.READONLY_SIGNER
        : k.isWritable
          ? AccountRole.WRITABLE
          : AccountRole.READONLY,
    })),
    data: new Uint8Array(ix.data),
  };
}

/** A signed v1 transaction: its wire bytes, the same in base64, and its signature (base58). */
export async function buildV1(
  payer: Keypair,
  instructions: TransactionInstruction[],
  latest: { blockhash: string; lastValidBlockHeight: number },
  opts: V1Options = {},
): Promise<{ bytes: Uint8Array; base64: string }> {
  const message = pipe(
    createTransactionMessage({ version: 1 }),
    (m) => setTransactionMessageFeePayer(address(payer.publicKey.toBase58()), m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        {
          blockhash: blockhash(latest.blockhash),
          lastValidBlockHeight: BigInt(latest.lastValidBlockHeight),
        },
        m,
      ),
    (m) => appendTransactionMessageInstructions(instructions.map(kitInstruction), m),
    (m) =>
      setTransactionMessageConfig(
        {
          computeUnitLimit: opts.computeUnitLimit ?? 200_000,
          loadedAccountsDataSizeLimit: opts.loadedAccountsDataSizeLimit ?? 64 * 1024 * 1024,
          ...(opts.priorityFeeLamports === undefined
            ? {}
            : { priorityFeeLamports: opts.priorityFeeLamports }),
        },
        m,
      ),
  );
  const keyPair = await createKeyPairFromBytes(payer.secretKey);
  const signed = await signTransaction([keyPair], compileTransaction(message));
  const bytes = new Uint8Array(getTransactionEncoder().encode(signed));
  return { bytes, base64: getBase64EncodedWireTransaction(signed) };
}
