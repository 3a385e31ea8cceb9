import { getAssociatedTokenAddressSync, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { Keypair, type PublicKey } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { address } from '../lib/wallet-tx';
import { MEMO_PROGRAM_ADDRESS, parseClaimInput, refundInstructions, refundMemo } from './refund-tx';

const mint = Keypair.generate().publicKey;
const vendor = Keypair.generate().publicKey;
const payer = Keypair.generate().publicKey;
const kit = (k: PublicKey) => address(k.toBase58());
const bytes = (d: ArrayLike<number> | undefined) => Buffer.from(Uint8Array.from(d ?? []));

// Built with kit, checked against spl-token (kept in the tests as an independent second implementation).
describe('refund transaction', () => {
  it('creates the payer’s token account if missing, transfers from the vendor’s, and names the order in a memo', async () => {
    const ixs = await refundInstructions({
      mint: kit(mint),
      vendor: kit(vendor),
      payerOwner: kit(payer),
      payerTokenAccount: kit(Keypair.generate().publicKey),
      amountBaseUnits: 5_000_000n,
      orderNumber: 'AB12CD34',
    });
    expect(ixs).toHaveLength(3);
    const payerAta = getAssociatedTokenAddressSync(mint, payer, true).toBase58();
    // Idempotent create: payer of the rent = the vendor, account = the payer's ATA, owner = the payer.
    const [create, transfer, memo] = ixs;
    expect(create?.accounts?.[0]?.address).toBe(vendor.toBase58());
    expect(create?.accounts?.[1]?.address).toBe(payerAta);
    expect(create?.accounts?.[2]?.address).toBe(payer.toBase58());
    expect(bytes(create?.data)[0]).toBe(1); // CreateIdempotent
    expect(transfer?.programAddress).toBe(TOKEN_PROGRAM_ID.toBase58());
    const data = bytes(transfer?.data);
    expect(data[0]).toBe(12); // TransferChecked
    expect(data.readBigUInt64LE(1)).toBe(5_000_000n);
    expect(data[9]).toBe(6);
    expect(transfer?.accounts?.[0]?.address).toBe(
      getAssociatedTokenAddressSync(mint, vendor, true).toBase58(),
    );
    expect(transfer?.accounts?.[2]?.address).toBe(payerAta);
    expect(transfer?.accounts?.[3]?.address).toBe(vendor.toBase58());
    expect(memo?.programAddress).toBe(MEMO_PROGRAM_ADDRESS);
    expect(MEMO_PROGRAM_ADDRESS).toBe('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
    expect(bytes(memo?.data).toString('utf8')).toBe(refundMemo('AB12CD34'));
    // The vendor signs the memo too (as before: the memo names who refunds).
    expect(memo?.accounts).toEqual([{ address: vendor.toBase58(), role: 2, signer: expect.anything() }]);
    expect(refundMemo('AB12CD34')).toBe('Refund for order AB12CD34');
  });

  it('sends to the paying token account itself when its owner is unknown; refuses nothing to send', async () => {
    const account = Keypair.generate().publicKey;
    const ixs = await refundInstructions({
      mint: kit(mint),
      vendor: kit(vendor),
      payerOwner: null,
      payerTokenAccount: kit(account),
      amountBaseUnits: 1n,
      orderNumber: 'X',
    });
    expect(ixs).toHaveLength(2);
    expect(ixs[0]?.accounts?.[2]?.address).toBe(account.toBase58());
    await expect(
      refundInstructions({
        mint: kit(mint),
        vendor: kit(vendor),
        payerOwner: kit(payer),
        payerTokenAccount: kit(account),
        amountBaseUnits: 0n,
        orderNumber: 'X',
      }),
    ).rejects.toThrow();
  });

  it('reads amounts as people type them, exactly (no floats)', () => {
    expect(parseClaimInput('5')).toBe(5_000_000n);
    expect(parseClaimInput(' 1,234.5 ')).toBe(1_234_500_000n);
    expect(parseClaimInput('0.000001')).toBe(1n);
    expect(parseClaimInput('24781.610816')).toBe(24_781_610_816n);
    expect(parseClaimInput('1.')).toBe(1_000_000n);
    for (const bad of ['', 'abc', '-1', '1.0000001', '1e6', '.5']) expect(parseClaimInput(bad)).toBeNull();
  });
});
