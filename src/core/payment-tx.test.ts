import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from '@solana/spl-token';
import { ComputeBudgetProgram, Keypair, PublicKey, VersionedTransaction } from '@solana/web3.js';
import { getTransactionDecoder } from '@solana/kit';
import { describe, expect, it } from 'vitest';
import {
  associatedTokenAddress,
  compilePaymentTransaction,
  paymentComputeUnits,
  PaymentTxError,
  ZERO_BLOCKHASH,
  type PaymentTxInput,
} from './payment-tx';
import { CREATE_ACCOUNT_COMPUTE_UNITS, TRANSFER_COMPUTE_UNITS } from './priority-fee';

const buyer = Keypair.generate().publicKey;
const mint = Keypair.generate().publicKey;
const seller = Keypair.generate().publicKey;
const reference = Keypair.generate().publicKey;
const recentBlockhash = Keypair.generate().publicKey.toBase58();

function input(over: Partial<PaymentTxInput> = {}): PaymentTxInput {
  return {
    payer: buyer.toBase58(),
    mint: mint.toBase58(),
    sellerOwner: seller.toBase58(),
    amountBaseUnits: 12_345_678n,
    decimals: 6,
    reference: reference.toBase58(),
    priorityMicroLamports: 4_321,
    sellerAccountExists: true,
    lifetime: { blockhash: recentBlockhash, lastValidBlockHeight: 1_000n },
    ...over,
  };
}

/** The instructions as web3.js reads the wire bytes back (what a wallet built on web3.js sees). */
function decoded(wire: Uint8Array) {
  const tx = VersionedTransaction.deserialize(wire);
  const keys = tx.message.staticAccountKeys;
  const ixs = tx.message.compiledInstructions.map((ix) => ({
    programId: keys[ix.programIdIndex]!.toBase58(),
    keys: ix.accountKeyIndexes.map((i) => ({
      pubkey: keys[i]!.toBase58(),
      isSigner: tx.message.isAccountSigner(i),
      isWritable: tx.message.isAccountWritable(i),
    })),
    data: Buffer.from(ix.data).toString('hex'),
  }));
  return { tx, ixs };
}

/** The same instruction built by spl-token / web3.js (the wallet checkout's builders until now). */
function web3Ix(ix: {
  programId: PublicKey;
  keys: { pubkey: PublicKey; isSigner: boolean; isWritable: boolean }[];
  data: Buffer;
}) {
  return {
    programId: ix.programId.toBase58(),
    keys: ix.keys.map((k) => ({
      pubkey: k.pubkey.toBase58(),
      isSigner: k.isSigner,
      isWritable: k.isWritable,
    })),
    data: ix.data.toString('hex'),
  };
}

describe('payment transaction (kit)', () => {
  it('a seller with a token account: compute budget, then TransferChecked with the reference read-only', async () => {
    const { wireBytes, base64, transaction } = await compilePaymentTransaction(input());
    expect(Buffer.from(wireBytes).toString('base64')).toBe(base64);
    const { tx, ixs } = decoded(wireBytes);
    expect(tx.version).toBe(0);
    expect(tx.message.staticAccountKeys[0]!.toBase58()).toBe(buyer.toBase58()); // fee payer
    expect(tx.message.header.numRequiredSignatures).toBe(1); // the buyer alone signs
    expect(tx.signatures).toHaveLength(1);
    expect(tx.signatures[0]!.every((b) => b === 0)).toBe(true); // unsigned
    expect(Object.values(transaction.signatures)).toEqual([null]);
    expect(tx.message.recentBlockhash).toBe(recentBlockhash);
    expect(tx.message.addressTableLookups).toHaveLength(0);

    const transfer = createTransferCheckedInstruction(
      getAssociatedTokenAddressSync(mint, buyer),
      mint,
      getAssociatedTokenAddressSync(mint, seller),
      buyer,
      12_345_678n,
      6,
    );
    transfer.keys.push({ pubkey: reference, isSigner: false, isWritable: false });
    // The buyer is the fee payer, so it is writable in the transaction (web3.js merges roles the same way).
    const expectedTransfer = web3Ix(transfer);
    expectedTransfer.keys[3] = { pubkey: buyer.toBase58(), isSigner: true, isWritable: true };
    expect(ixs).toEqual([
      web3Ix(ComputeBudgetProgram.setComputeUnitLimit({ units: TRANSFER_COMPUTE_UNITS })),
      web3Ix(ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 4_321 })),
      expectedTransfer,
    ]);
    expect(ixs[2]!.keys[4]).toEqual({ pubkey: reference.toBase58(), isSigner: false, isWritable: false });
  });

  it('a seller without one: the idempotent creation (paid by the buyer) comes before the transfer', async () => {
    const { wireBytes } = await compilePaymentTransaction(input({ sellerAccountExists: false }));
    const { ixs } = decoded(wireBytes);
    const sellerAta = getAssociatedTokenAddressSync(mint, seller);
    expect(ixs.map((i) => i.programId)).toEqual([
      'ComputeBudget111111111111111111111111111111',
      'ComputeBudget111111111111111111111111111111',
      'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL',
      'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
    ]);
    expect(ixs[0]).toEqual(
      web3Ix(
        ComputeBudgetProgram.setComputeUnitLimit({
          units: TRANSFER_COMPUTE_UNITS + CREATE_ACCOUNT_COMPUTE_UNITS,
        }),
      ),
    );
    expect(ixs[2]).toEqual(
      web3Ix(createAssociatedTokenAccountIdempotentInstruction(buyer, sellerAta, seller, mint)),
    );
    expect(ixs[3]!.keys[2]!.pubkey).toBe(sellerAta.toBase58());
    expect(paymentComputeUnits(false)).toBe(90_000);
  });

  it('legacy on request, and the zero blockhash the Solana Pay spec allows', async () => {
    const { wireBytes } = await compilePaymentTransaction(
      input({ version: 'legacy', lifetime: { blockhash: ZERO_BLOCKHASH, lastValidBlockHeight: 0n } }),
    );
    const { tx } = decoded(wireBytes);
    expect(tx.version).toBe('legacy');
    expect(tx.message.recentBlockhash).toBe(ZERO_BLOCKHASH);
    // kit reads its own bytes back too.
    const back = getTransactionDecoder().decode(wireBytes);
    expect(Object.keys(back.signatures)).toEqual([buyer.toBase58()]);
  });

  it('derives associated token addresses as spl-token does', async () => {
    expect(await associatedTokenAddress(seller.toBase58(), mint.toBase58())).toBe(
      getAssociatedTokenAddressSync(mint, seller).toBase58(),
    );
  });

  it('refuses input no payment can be built from, saying which', async () => {
    const bad: [Partial<PaymentTxInput>, RegExp][] = [
      [{ payer: 'not-an-address' }, /payer is not a Solana address/],
      [{ mint: '0OIl' }, /mint is not a Solana address/],
      [{ sellerOwner: '' }, /seller is not a Solana address/],
      [{ reference: 'x'.repeat(44) }, /reference is not a Solana address/],
      [{ reference: buyer.toBase58() }, /reference must be a key of its own/],
      [{ amountBaseUnits: 0n }, /amount/],
      [{ amountBaseUnits: 1n << 64n }, /amount/],
      [{ decimals: 1.5 }, /decimals/],
      [{ priorityMicroLamports: -1 }, /priority price/],
      [{ priorityMicroLamports: 1_000_001 }, /priority price/],
      [{ lifetime: { blockhash: 'nope', lastValidBlockHeight: 0n } }, /not a blockhash/],
    ];
    for (const [over, message] of bad) {
      const err = await compilePaymentTransaction(input(over)).catch((e: unknown) => e);
      expect(
        err,
        JSON.stringify(over, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}` : v)),
      ).toBeInstanceOf(PaymentTxError);
      expect((err as Error).message).toMatch(message);
    }
  });
});
