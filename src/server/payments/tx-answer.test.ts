import { Keypair } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { PaymentRpcError, UnreadableTransactionError } from './rpc';
import { readGetTransactionBody, readTransactionAnswer } from './tx-answer';
import { classifyTransaction } from './verify';

const key = () => Keypair.generate().publicKey.toBase58();
const payer = key();
const payerAta = key();
const vendorAta = key();
const vendor = key();
const reference = key();
const tokenProgram = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const mint = key();
const lookedUp = key();

/**
 * One CLAIM transfer of 2.5 (2,500,000 base units) from the payer to the vendor with the order's reference, as
 * a node answers getTransaction (encoding json) for each version: legacy and v1 carry every key in the message;
 * v0 loads the reference from a lookup table (meta.loadedAddresses); v1 adds its compute budget
 * (message.transactionConfig).
 */
function answer(version: 'legacy' | 0 | 1 | 2 | undefined) {
  const v0 = version === 0;
  const staticKeys = v0
    ? [payer, payerAta, vendorAta, tokenProgram]
    : [payer, payerAta, vendorAta, reference, tokenProgram];
  const all = v0 ? [...staticKeys, lookedUp, reference] : staticKeys;
  const at = (k: string) => all.indexOf(k);
  const balance = (index: number, owner: string, amount: string) => ({
    accountIndex: index,
    mint,
    owner,
    programId: tokenProgram,
    uiTokenAmount: { amount, decimals: 6, uiAmount: Number(amount) / 1e6, uiAmountString: '' },
  });
  const message: Record<string, unknown> = {
    header: {
      numRequiredSignatures: 1,
      numReadonlySignedAccounts: 0,
      numReadonlyUnsignedAccounts: v0 ? 1 : 2,
    },
    accountKeys: staticKeys,
    recentBlockhash: key(),
    instructions: [
      { programIdIndex: at(tokenProgram), accounts: [1, 2, 0, at(reference)], data: '3Bxs4Bc3VYuGVB19' },
    ],
  };
  if (v0) message.addressTableLookups = [{ accountKey: key(), writableIndexes: [], readonlyIndexes: [0, 1] }];
  if (version === 1)
    message.transactionConfig = {
      computeUnitLimit: 200_000,
      heapSize: null,
      loadedAccountsDataSizeLimit: 1_000_000,
      priorityFee: null,
    };
  return {
    slot: 42,
    blockTime: 1_790_000_000,
    ...(version === undefined ? {} : { version }),
    transaction: { signatures: ['sig'], message },
    meta: {
      err: null,
      fee: 5000,
      loadedAddresses: v0
        ? { writable: [], readonly: [lookedUp, reference] }
        : { writable: [], readonly: [] },
      preTokenBalances: [balance(1, payer, '10000000'), balance(2, vendor, '1000000')],
      postTokenBalances: [balance(1, payer, '7500000'), balance(2, vendor, '3500000')],
      preBalances: [],
      postBalances: [],
    },
  };
}

describe('reading getTransaction answers of every version', () => {
  it.each([['legacy'], [0], [1], [undefined]] as const)(
    'version %s: keys, references and the transfer',
    (v) => {
      const tx = readTransactionAnswer('sig', answer(v));
      expect(tx).not.toBeNull();
      expect(tx!.slot).toBe(42);
      expect(tx!.blockTime).toBe(1_790_000_000);
      expect(tx!.accountKeys).toContain(reference);
      expect(tx!.referenceKeys).toContain(reference);
      // Signers and writable keys are never references.
      expect(tx!.referenceKeys).not.toContain(payer);
      expect(tx!.referenceKeys).not.toContain(vendorAta);
      expect(classifyTransaction(tx!, { recipientOwner: vendor, mint })).toEqual({
        kind: 'Transfer',
        receivedBaseUnits: 2_500_000n,
      });
    },
  );

  it('null: the node does not have it', () => {
    expect(readTransactionAnswer('sig', null)).toBeNull();
  });

  it('a failed transaction keeps its err; no meta counts as failed', () => {
    const failed = answer(1);
    (failed.meta as { err: unknown }).err = { InstructionError: [0, { Custom: 1 }] };
    expect(readTransactionAnswer('sig', failed)!.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    const { meta: _meta, ...noMeta } = answer(1);
    expect(readTransactionAnswer('sig', noMeta)!.err).toEqual({ missingMeta: true });
  });

  it('a version above ours is unreadable (unsupported_version), with the keys it names', () => {
    const err = catchIt(() => readTransactionAnswer('sig', answer(2)));
    expect(err).toBeInstanceOf(UnreadableTransactionError);
    expect((err as UnreadableTransactionError).reason).toBe('unsupported_version');
    expect((err as UnreadableTransactionError).keys).toContain(reference);
  });

  it.each([
    ['not an object', 'garbage'],
    ['no message', { slot: 1, blockTime: null, version: 1, transaction: {}, meta: null }],
    [
      'keys not addresses',
      { ...answer(1), transaction: { message: { ...answer(1).transaction.message, accountKeys: [1, 2] } } },
    ],
    ['unknown version', { ...answer(1), version: 'v9' }],
    [
      'amount not raw',
      (() => {
        const a = answer(1);
        a.meta.postTokenBalances[1]!.uiTokenAmount.amount = '3.5';
        return a;
      })(),
    ],
    [
      'index outside',
      (() => {
        const a = answer(1);
        a.meta.postTokenBalances[1]!.accountIndex = 99;
        return a;
      })(),
    ],
  ])('malformed (%s): unreadable, never a payment', (_what, body) => {
    const err = catchIt(() => readTransactionAnswer('sig', body));
    expect(err).toBeInstanceOf(UnreadableTransactionError);
    expect((err as UnreadableTransactionError).reason).toBe('malformed');
  });

  it('a malformed answer keeps the keys it could read (to tell which order it may concern)', () => {
    const a = answer(1);
    a.meta.postTokenBalances[1]!.uiTokenAmount.amount = 'lots';
    const err = catchIt(() => readTransactionAnswer('sig', a)) as UnreadableTransactionError;
    expect(err.keys).toContain(reference);
  });

  it('-32015 from the node: unsupported_version; another node error: a plain RPC error with its code', () => {
    const e1 = catchIt(() =>
      readGetTransactionBody('sig', {
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: -32015,
          message: 'Transaction version (2) is not supported by the requesting client.',
        },
      }),
    );
    expect(e1).toBeInstanceOf(UnreadableTransactionError);
    expect((e1 as UnreadableTransactionError).reason).toBe('unsupported_version');
    const e2 = catchIt(() =>
      readGetTransactionBody('sig', {
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32005, message: 'Node is behind' },
      }),
    );
    expect(e2).toBeInstanceOf(PaymentRpcError);
    expect(e2).not.toBeInstanceOf(UnreadableTransactionError);
    expect((e2 as PaymentRpcError).code).toBe(-32005);
    expect(readGetTransactionBody('sig', { jsonrpc: '2.0', id: 1, result: null })).toBeNull();
    expect(catchIt(() => readGetTransactionBody('sig', [1, 2]))).toBeInstanceOf(UnreadableTransactionError);
  });
});

function catchIt(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error('no error thrown');
}
