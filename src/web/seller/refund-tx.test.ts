import { getAssociatedTokenAddressSync, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { Keypair } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { MEMO_PROGRAM_ID, parseClaimInput, refundInstructions, refundMemo } from './refund-tx';

const mint = Keypair.generate().publicKey;
const vendor = Keypair.generate().publicKey;
const payer = Keypair.generate().publicKey;

describe('refund transaction', () => {
  it('creates the payer’s token account if missing, transfers from the vendor’s, and names the order in a memo', () => {
    const ixs = refundInstructions({
      mint,
      vendor,
      payerOwner: payer,
      payerTokenAccount: Keypair.generate().publicKey,
      amountBaseUnits: 5_000_000n,
      orderNumber: 'AB12CD34',
    });
    expect(ixs).toHaveLength(3);
    const payerAta = getAssociatedTokenAddressSync(mint, payer, true);
    // Idempotent create: payer of the rent = the vendor, account = the payer's ATA, owner = the payer.
    expect(ixs[0]!.keys[0]!.pubkey.equals(vendor)).toBe(true);
    expect(ixs[0]!.keys[1]!.pubkey.equals(payerAta)).toBe(true);
    expect(ixs[0]!.data[0]).toBe(1); // CreateIdempotent
    const transfer = ixs[1]!;
    expect(transfer.programId.equals(TOKEN_PROGRAM_ID)).toBe(true);
    expect(transfer.data[0]).toBe(12); // TransferChecked
    expect(transfer.data.readBigUInt64LE(1)).toBe(5_000_000n);
    expect(transfer.data[9]).toBe(6);
    expect(transfer.keys[0]!.pubkey.equals(getAssociatedTokenAddressSync(mint, vendor, true))).toBe(true);
    expect(transfer.keys[2]!.pubkey.equals(payerAta)).toBe(true);
    expect(transfer.keys[3]!.pubkey.equals(vendor)).toBe(true);
    expect(ixs[2]!.programId.equals(MEMO_PROGRAM_ID)).toBe(true);
    expect(ixs[2]!.data.toString('utf8')).toBe(refundMemo('AB12CD34'));
    expect(refundMemo('AB12CD34')).toBe('Refund for order AB12CD34');
  });

  it('sends to the paying token account itself when its owner is unknown; refuses nothing to send', () => {
    const account = Keypair.generate().publicKey;
    const ixs = refundInstructions({
      mint,
      vendor,
      payerOwner: null,
      payerTokenAccount: account,
      amountBaseUnits: 1n,
      orderNumber: 'X',
    });
    expect(ixs).toHaveLength(2);
    expect(ixs[0]!.keys[2]!.pubkey.equals(account)).toBe(true);
    expect(() =>
      refundInstructions({
        mint,
        vendor,
        payerOwner: payer,
        payerTokenAccount: account,
        amountBaseUnits: 0n,
        orderNumber: 'X',
      }),
    ).toThrow();
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
