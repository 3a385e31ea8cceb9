/**
 * The localnet speaks today's chain: version 1 transactions (SIMD-0385), built and signed with @solana/kit 8.4,
 * are simulated, sent, executed by LiteSVM and served as mainnet serves them (`version: 1`, the compute budget as
 * `message.transactionConfig`, -32015 to a client that declares a lower version, getBlock failing whole), with the
 * public endpoint's limits on (manual slots).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import bs58 from 'bs58';
import {
  Keypair,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionInstruction,
  VersionedTransaction,
} from '@solana/web3.js';
import { startLocalnet, type Localnet } from '../support/localnet.js';
import { buildV1 } from '../support/v1-tx.js';
import { faucet, transferIx } from './payments-support.js';

/* The JSON answers these tests read, loosely typed. */
interface TxJson {
  slot: number;
  version?: unknown;
  meta: Record<string, unknown>;
  transaction: {
    message: Record<string, unknown> & {
      accountKeys: unknown[];
      transactionConfig?: Record<string, unknown>;
      instructions: { parsed?: { type: string } }[];
    };
    signatures: string[];
  };
}

interface RpcReply {
  result?: unknown;
  error?: { code: number; message: string; data?: { err: unknown; logs: string[] } };
}

const MEMO = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
const unsupported = (v: number) =>
  `Transaction version (${v}) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": ${v}`;

describe('localnet: version 1 transactions (public limits, manual slots)', () => {
  let net: Localnet;
  const payer = Keypair.generate();
  const reference = Keypair.generate().publicKey;

  async function rpc(method: string, params: unknown[] = [], client = 'v1-test'): Promise<RpcReply> {
    const res = await fetch(net.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-localnet-client': client },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    if (res.status === 429) return { error: { code: 429, message: 'HTTP 429' } };
    return (await res.json()) as RpcReply;
  }
  const latest = async () =>
    (
      (await rpc('getLatestBlockhash', [{ commitment: 'processed' }])).result as {
        value: { blockhash: string; lastValidBlockHeight: number };
      }
    ).value;

  beforeAll(async () => {
    net = await startLocalnet({ port: 0, slotMs: 0, finalizeLag: 2, publicLimits: true });
    await faucet(net, payer.publicKey, 5, 1_000);
  });
  afterAll(async () => {
    await net?.close();
  });

  it('simulates, sends and serves a v1 token transfer as mainnet does; -32015 below version 1', async () => {
    const ws = new WebSocket(net.wsUrl);
    await new Promise((r) => ws.once('open', r));
    const notes: { method?: string; params?: { result: { value: { signature?: string } } } }[] = [];
    ws.on('message', (m) => notes.push(JSON.parse(String(m)) as (typeof notes)[number]));
    ws.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'logsSubscribe',
        params: [{ mentions: [reference.toBase58()] }, { commitment: 'confirmed' }],
      }),
    );
    const vendor = net.keys!.recipients.coopersglass;
    const ix = transferIx({
      from: payer,
      recipientOwner: vendor,
      mint: net.keys!.mint,
      amount: 1_234_567n,
      references: [reference],
    });
    const tx = await buildV1(payer, [ix], await latest(), { priorityFeeLamports: 7_000n });
    expect(tx.bytes[0]).toBe(0x81);

    const sim = await rpc('simulateTransaction', [tx.base64, { encoding: 'base64', sigVerify: true }]);
    expect(sim.error).toBeUndefined();
    const simValue = (sim.result as { value: { err: unknown; unitsConsumed: number } }).value;
    expect(simValue.err).toBeNull();
    expect(simValue.unitsConsumed).toBeGreaterThan(0);

    const sent = await rpc('sendTransaction', [tx.base64, { encoding: 'base64' }]);
    const signature = sent.result as string;
    expect(signature).toBe(bs58.encode(VersionedTransaction.deserialize(tx.bytes).signatures[0]!));
    net.advanceSlots(1);

    const got = (await rpc('getTransaction', [
      signature,
      { commitment: 'confirmed', maxSupportedTransactionVersion: 1 },
    ])) as { result: TxJson };
    expect(got.result.version).toBe(1);
    const message = got.result.transaction.message;
    expect(message).not.toHaveProperty('addressTableLookups');
    expect(message.transactionConfig).toEqual({
      computeUnitLimit: 200_000,
      heapSize: null,
      loadedAccountsDataSizeLimit: 64 * 1024 * 1024,
      priorityFee: 7_000,
    });
    expect(message.accountKeys).toContain(reference.toBase58());
    expect(got.result.meta.err).toBeNull();
    expect(got.result.meta.loadedAddresses).toEqual({ writable: [], readonly: [] });
    expect(got.result.meta.fee).toBe(5_000 + 7_000);
    const post = got.result.meta.postTokenBalances as { owner: string; uiTokenAmount: { amount: string } }[];
    const pre = got.result.meta.preTokenBalances as { owner: string; uiTokenAmount: { amount: string } }[];
    const of = (list: typeof post) =>
      BigInt(list.find((b) => b.owner === vendor.toBase58())?.uiTokenAmount.amount ?? '0');
    expect(of(post) - of(pre)).toBe(1_234_567n);

    // The other encodings: base64 gives back the sent bytes; jsonParsed names the transfer.
    const b64 = (await rpc('getTransaction', [
      signature,
      { commitment: 'confirmed', maxSupportedTransactionVersion: 1, encoding: 'base64' },
    ])) as { result: { transaction: [string, string]; version: number } };
    expect(b64.result.transaction).toEqual([tx.base64, 'base64']);
    const parsed = (await rpc('getTransaction', [
      signature,
      { commitment: 'confirmed', maxSupportedTransactionVersion: 1, encoding: 'jsonParsed' },
    ])) as { result: TxJson };
    expect(parsed.result.version).toBe(1);
    expect(parsed.result.transaction.message.instructions[0]?.parsed?.type).toBe('transferChecked');
    expect(parsed.result.transaction.message.transactionConfig?.priorityFee).toBe(7_000);

    // A client that declares 0, or nothing, gets mainnet's -32015.
    for (const cfg of [
      { commitment: 'confirmed', maxSupportedTransactionVersion: 0 },
      { commitment: 'confirmed' },
    ]) {
      const refused = await rpc('getTransaction', [signature, cfg]);
      expect(refused.error).toEqual({ code: -32015, message: unsupported(1) });
    }

    // getBlock: whole-block failure below version 1 with full or accounts details; signatures still served.
    const slot = got.result.slot as number;
    for (const transactionDetails of ['full', 'accounts']) {
      const block = await rpc('getBlock', [
        slot,
        { commitment: 'confirmed', maxSupportedTransactionVersion: 0, transactionDetails },
      ]);
      expect(block.error).toEqual({ code: -32015, message: unsupported(1) });
    }
    const sigs = (await rpc('getBlock', [
      slot,
      { commitment: 'confirmed', maxSupportedTransactionVersion: 0, transactionDetails: 'signatures' },
    ])) as { result: { signatures: string[] } };
    expect(sigs.result.signatures).toContain(signature);
    const block = (await rpc('getBlock', [
      slot,
      { commitment: 'confirmed', maxSupportedTransactionVersion: 1 },
    ])) as { result: { transactions: { version: unknown; transaction: { signatures: string[] } }[] } };
    const inBlock = block.result.transactions.find((t) => t.transaction.signatures[0] === signature);
    expect(inBlock?.version).toBe(1);

    // History by the reference key (read-only non-signer), and the logs subscription fired for it.
    const history = (await rpc('getSignaturesForAddress', [
      reference.toBase58(),
      { commitment: 'confirmed' },
    ])) as { result: { signature: string }[] };
    expect(history.result.map((h) => h.signature)).toEqual([signature]);
    const deadline = Date.now() + 5_000;
    while (!notes.some((n) => n.method === 'logsNotification') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    const note = notes.find((n) => n.method === 'logsNotification');
    expect(note?.params?.result.value.signature).toBe(signature);
    ws.close();
  });

  it('refuses what the node refuses: no loaded-data limit, a bad signature, a legacy transaction over 1,232 bytes', async () => {
    const to = Keypair.generate().publicKey;
    const transfer = SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: 10_000 });
    const noLimit = await buildV1(payer, [transfer], await latest(), { loadedAccountsDataSizeLimit: 0 });
    const refused = await rpc('sendTransaction', [noLimit.base64, { encoding: 'base64' }]);
    expect(refused.error?.code).toBe(-32002);
    expect(refused.error?.data?.err).toBe('MaxLoadedAccountsDataSizeExceeded');
    expect(refused.error?.message).toBe(
      'Transaction simulation failed: Transaction exceeded max loaded accounts data size cap',
    );

    const good = await buildV1(payer, [transfer], await latest());
    const forged = new Uint8Array(good.bytes);
    forged[forged.length - 1] = forged.at(-1)! ^ 1; // the signature sits at the end of a v1 transaction
    const bad = await rpc('sendTransaction', [
      Buffer.from(forged).toString('base64'),
      { encoding: 'base64' },
    ]);
    expect(bad.error).toEqual({ code: -32003, message: 'Transaction signature verification failure' });

    // A 2,000-byte memo: fits a v1 transaction (up to 4,096 bytes), not a legacy one (1,232).
    const memo = new TransactionInstruction({
      programId: MEMO,
      keys: [],
      data: Buffer.from('m'.repeat(2000)),
    });
    const big = await buildV1(payer, [memo], await latest(), { computeUnitLimit: 1_400_000 });
    expect(big.bytes.length).toBeGreaterThan(1232);
    const bigSent = await rpc('sendTransaction', [big.base64, { encoding: 'base64' }]);
    expect(bigSent.error).toBeUndefined();
    const lb = await latest();
    const legacy = new Transaction({ feePayer: payer.publicKey, ...lb }).add(
      new TransactionInstruction({ programId: MEMO, keys: [], data: Buffer.from('m'.repeat(1100)) }),
    );
    // web3.js will not serialize it: one (blank) signature and the message, as the wire has them.
    const legacyBytes = Buffer.concat([
      Buffer.from([1]),
      Buffer.alloc(64),
      legacy.compileMessage().serialize(),
    ]);
    expect(legacyBytes.length).toBeGreaterThan(1232);
    const tooBig = await rpc('sendTransaction', [legacyBytes.toString('base64'), { encoding: 'base64' }]);
    expect(tooBig.error?.code).toBe(-32602);
    expect(tooBig.error?.message).toContain('too large');
    // base58 is not raised for v1 (deprecated): the 2,000-byte v1 transaction is refused there.
    const b58 = await rpc('sendTransaction', [bs58.encode(big.bytes), { encoding: 'base58' }]);
    expect(b58.error?.code).toBe(-32602);
  });

  it('counts v1 sends against the public per-method limit: the 41st in 10 s is refused with 429', async () => {
    const tx = await buildV1(
      payer,
      [SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: payer.publicKey, lamports: 1 })],
      await latest(),
    );
    const before = net.rpcStats().byMethod.sendTransaction ?? 0;
    const replies: RpcReply[] = [];
    for (let i = 0; i < 41; i++)
      replies.push(await rpc('sendTransaction', [tx.base64, { encoding: 'base64' }], 'v1-burst'));
    expect(replies[0]!.result).toBeTypeOf('string');
    expect(replies.slice(1, 40).every((r) => r.error?.code === -32002)).toBe(true); // already processed
    expect(replies[40]!.error?.code).toBe(429);
    expect((net.rpcStats().byMethod.sendTransaction ?? 0) - before).toBe(40);
  });
});
