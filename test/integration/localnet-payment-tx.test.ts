/**
 * The kit-built payment transaction (src/core/payment-tx.ts) executes on the localnet (LiteSVM's real SPL Token
 * and associated-token programs): signed by the buyer only, to a vendor with a token account, and to a vendor
 * without one (created in the same transaction), the reference listed read-only, the exact amount moved.
 */
import { Connection, Keypair, PublicKey, VersionedTransaction } from '@solana/web3.js';
import { getAccount, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalnet, type Localnet } from '../support/localnet.js';
import { compilePaymentTransaction, paymentComputeUnits } from '../../src/core/payment-tx.js';
import { faucet, waitFor } from './payments-support.js';

let net: Localnet;
let connection: Connection;
const buyer = Keypair.generate();

beforeAll(async () => {
  net = await startLocalnet({ port: 0, slotMs: 40, finalizeLag: 3, withoutTokenAccount: ['gorilla'] });
  connection = new Connection(net.rpcUrl, 'confirmed');
  await faucet(net, buyer.publicKey, 1, 100);
}, 60_000);
afterAll(async () => {
  await net?.close();
});

async function payWithKitTx(seller: PublicKey, amount: bigint, sellerAccountExists: boolean) {
  const keys = net.keys!;
  const reference = Keypair.generate().publicKey;
  const latest = await connection.getLatestBlockhash('confirmed');
  const { wireBytes } = await compilePaymentTransaction({
    payer: buyer.publicKey.toBase58(),
    mint: keys.mint.toBase58(),
    sellerOwner: seller.toBase58(),
    amountBaseUnits: amount,
    decimals: 6,
    reference: reference.toBase58(),
    priorityMicroLamports: 2_000,
    sellerAccountExists,
    lifetime: { blockhash: latest.blockhash, lastValidBlockHeight: BigInt(latest.lastValidBlockHeight) },
  });
  // What the buyer's wallet does with it: deserialize, sign, send.
  const tx = VersionedTransaction.deserialize(wireBytes);
  tx.sign([buyer]);
  const signature = await connection.sendRawTransaction(tx.serialize());
  await waitFor('the payment to be confirmed', async () => {
    const s = (await connection.getSignatureStatuses([signature])).value[0];
    return s?.confirmationStatus === 'confirmed' || s?.confirmationStatus === 'finalized' ? s : undefined;
  });
  const landed = await connection.getTransaction(signature, {
    commitment: 'confirmed',
    maxSupportedTransactionVersion: 0,
  });
  return { landed, reference };
}

describe('kit payment transaction on the localnet', () => {
  it('pays a vendor that has a token account: exact amount, reference read-only, within its compute limit', async () => {
    const seller = net.keys!.recipients.coopersglass;
    const ata = getAssociatedTokenAddressSync(net.keys!.mint, seller);
    const before = (await getAccount(connection, ata)).amount;
    const { landed, reference } = await payWithKitTx(seller, 1_234_567n, true);
    expect(landed?.meta?.err).toBeNull();
    expect((await getAccount(connection, ata)).amount - before).toBe(1_234_567n);
    const msg = landed!.transaction.message;
    const keys = msg.staticAccountKeys.map((k) => k.toBase58());
    const at = keys.indexOf(reference.toBase58());
    expect(at).toBeGreaterThan(0);
    expect(msg.isAccountSigner(at)).toBe(false);
    expect(msg.isAccountWritable(at)).toBe(false);
    expect(landed!.meta!.computeUnitsConsumed).toBeLessThanOrEqual(paymentComputeUnits(true));
  });

  it('pays a vendor without a token account: the account is created in the same transaction', async () => {
    const seller = net.keys!.recipients.gorilla;
    const ata = getAssociatedTokenAddressSync(net.keys!.mint, seller);
    expect(await connection.getAccountInfo(ata)).toBeNull();
    const { landed } = await payWithKitTx(seller, 2_000_000n, false);
    expect(landed?.meta?.err).toBeNull();
    expect((await getAccount(connection, ata)).amount).toBe(2_000_000n);
    expect(landed!.meta!.computeUnitsConsumed).toBeLessThanOrEqual(paymentComputeUnits(false));
    // Built again as if the account were still missing: the idempotent creation does not fail the payment.
    const again = await payWithKitTx(seller, 1n, false);
    expect(again.landed?.meta?.err).toBeNull();
    expect((await getAccount(connection, ata)).amount).toBe(2_000_001n);
  });
});
