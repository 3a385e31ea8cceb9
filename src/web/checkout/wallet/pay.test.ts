import { Keypair, PublicKey } from '@solana/web3.js';
import { TOKEN_PROGRAM_ID, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { describe, expect, it } from 'vitest';
import { CLAIM_DECIMALS, paymentInstruction, targetOf } from './pay';
import { inputHash } from './open-order';

const key = () => Keypair.generate().publicKey;

describe('paymentInstruction', () => {
  it('is a TransferChecked of exactly the base units, 6 decimals, buyer ATA → seller ATA, reference read-only last', () => {
    const buyer = key();
    const target = {
      orderId: 'o',
      mint: key(),
      recipient: key(),
      reference: key(),
      amountBaseUnits: 190_000_123_456n,
    };
    const ix = paymentInstruction(buyer, target);
    expect(ix.programId.equals(TOKEN_PROGRAM_ID)).toBe(true);
    expect(ix.data[0]).toBe(12); // TransferChecked
    expect(ix.data.readBigUInt64LE(1)).toBe(190_000_123_456n);
    expect(ix.data[9]).toBe(CLAIM_DECIMALS);
    const keys = ix.keys.map((k) => k.pubkey.toBase58());
    expect(keys[0]).toBe(getAssociatedTokenAddressSync(target.mint, buyer).toBase58());
    expect(keys[1]).toBe(target.mint.toBase58());
    expect(keys[2]).toBe(getAssociatedTokenAddressSync(target.mint, target.recipient).toBase58());
    expect(ix.keys[3]).toMatchObject({ isSigner: true });
    expect(ix.keys[3]?.pubkey.equals(buyer)).toBe(true);
    expect(ix.keys.at(-1)).toEqual({ pubkey: target.reference, isSigner: false, isWritable: false });
  });
});

describe('targetOf', () => {
  const order = {
    orderId: 'o',
    mint: key().toBase58(),
    recipient: key().toBase58(),
    reference: key().toBase58(),
  };
  it('parses the amount as a bigint without floats', () => {
    expect(targetOf({ ...order, amountBaseUnits: '9007199254740993' }).amountBaseUnits).toBe(
      9007199254740993n,
    );
    expect(targetOf({ ...order, amountBaseUnits: '1' }).reference).toBeInstanceOf(PublicKey);
  });
  it('refuses malformed amounts and keys', () => {
    for (const bad of ['1.5', '-1', '', '1e6', ' 1'])
      expect(() => targetOf({ ...order, amountBaseUnits: bad })).toThrow();
    expect(() => targetOf({ ...order, mint: 'nope', amountBaseUnits: '1' })).toThrow();
  });
});

describe('inputHash', () => {
  it('is stable and tells different inputs apart', () => {
    expect(inputHash('a')).toBe(inputHash('a'));
    expect(inputHash('a')).toMatch(/^[0-9a-f]{16}$/);
    expect(new Set(['a', 'b', 'ab', 'ba', '', '{"q":1}', '{"q":2}'].map(inputHash)).size).toBe(7);
  });
});
