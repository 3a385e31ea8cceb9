import { Keypair, VersionedTransaction, type PublicKey } from '@solana/web3.js';
import { TOKEN_PROGRAM_ID, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { describe, expect, it } from 'vitest';
import { TRANSFER_COMPUTE_UNITS } from '../../lib/priority-fee';
import { address } from '../../lib/wallet-tx';
import { CLAIM_DECIMALS, paymentTransaction, targetOf } from './pay';
import { inputHash } from './open-order';

const key = () => Keypair.generate().publicKey;
const kit = (k: PublicKey) => address(k.toBase58());

// What the wallet signs, read back with web3.js and spl-token (kept in the tests as an independent implementation).
describe('paymentTransaction (kit)', () => {
  for (const version of [0, 'legacy'] as const)
    it(`${version === 0 ? 'v0' : 'legacy'}: budget first, then TransferChecked of exactly the base units, buyer ATA → seller ATA, reference read-only last; the buyer pays and signs`, async () => {
      const buyer = key();
      const [mint, recipient, reference] = [key(), key(), key()];
      const target = {
        orderId: 'o',
        mint: kit(mint),
        recipient: kit(recipient),
        reference: kit(reference),
        amountBaseUnits: 190_000_123_456n,
      };
      const bytes = await paymentTransaction(
        kit(buyer),
        target,
        { blockhash: key().toBase58(), lastValidBlockHeight: 100n },
        1_000,
        version,
      );
      const tx = VersionedTransaction.deserialize(bytes);
      expect(tx.version).toBe(version);
      const msg = tx.message;
      const keys = msg.staticAccountKeys.map((k) => k.toBase58());
      expect(keys[0]).toBe(buyer.toBase58()); // fee payer
      expect(msg.header.numRequiredSignatures).toBe(1);
      const ixs = msg.compiledInstructions;
      expect(ixs.map((ix) => keys[ix.programIdIndex])).toEqual([
        'ComputeBudget111111111111111111111111111111',
        'ComputeBudget111111111111111111111111111111',
        TOKEN_PROGRAM_ID.toBase58(),
      ]);
      expect(Buffer.from(ixs[0]!.data).readUInt32LE(1)).toBe(TRANSFER_COMPUTE_UNITS);
      expect(Buffer.from(ixs[1]!.data).readBigUInt64LE(1)).toBe(1_000n);
      const transfer = ixs[2]!;
      const data = Buffer.from(transfer.data);
      expect(data[0]).toBe(12); // TransferChecked
      expect(data.readBigUInt64LE(1)).toBe(190_000_123_456n);
      expect(data[9]).toBe(CLAIM_DECIMALS);
      expect(transfer.accountKeyIndexes.map((i) => keys[i])).toEqual([
        getAssociatedTokenAddressSync(mint, buyer).toBase58(),
        mint.toBase58(),
        getAssociatedTokenAddressSync(mint, recipient).toBase58(),
        buyer.toBase58(),
        reference.toBase58(),
      ]);
      const refIndex = keys.indexOf(reference.toBase58());
      expect(msg.isAccountSigner(refIndex)).toBe(false);
      expect(msg.isAccountWritable(refIndex)).toBe(false);
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
    expect(targetOf({ ...order, amountBaseUnits: '1' }).reference).toBe(order.reference);
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
