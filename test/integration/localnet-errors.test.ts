import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  SendTransactionError,
  SystemProgram,
  Transaction,
} from '@solana/web3.js';
import {
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
  createAssociatedTokenAccountInstruction,
} from '@solana/spl-token';
import { startLocalnet, type Localnet } from '../support/localnet.js';

interface RpcReply {
  jsonrpc: string;
  id: number | string | null;
  result?: unknown;
  error?: { code: number; message: string; data?: { err: unknown; logs: string[] } };
}

async function post(url: string, body: string): Promise<{ status: number; json: unknown }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const text = await res.text();
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {
    // keep text
  }
  return { status: res.status, json };
}

async function rpc(net: Localnet, method: string, params: unknown[] = []): Promise<RpcReply> {
  return (await post(net.rpcUrl, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }))).json as RpcReply;
}

describe('localnet: blockhash expiry, failed transactions, malformed requests (manual slots)', () => {
  let net: Localnet;
  let connection: Connection;
  const payer = Keypair.generate();
  beforeAll(async () => {
    net = await startLocalnet({ port: 0, slotMs: 0, finalizeLag: 3 });
    connection = new Connection(net.rpcUrl, 'processed');
    await connection.requestAirdrop(payer.publicKey, 5 * LAMPORTS_PER_SOL);
  });
  afterAll(async () => {
    await net.close();
  });

  function transfer(blockhash: string, lamports = 1_000_000): Transaction {
    const tx = new Transaction({ feePayer: payer.publicKey, blockhash, lastValidBlockHeight: 0 }).add(
      SystemProgram.transfer({
        fromPubkey: payer.publicKey,
        toPubkey: Keypair.generate().publicKey,
        lamports,
      }),
    );
    tx.sign(payer);
    return tx;
  }

  it('expires blockhashes after 150 blocks with BlockhashNotFound in the real shape', async () => {
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash('processed');
    expect(lastValidBlockHeight).toBe((await connection.getBlockHeight('processed')) + 150);
    net.advanceSlots(150);
    expect((await connection.isBlockhashValid(blockhash)).value).toBe(true);
    const okSig = await connection.sendRawTransaction(transfer(blockhash).serialize());
    expect((await connection.getSignatureStatus(okSig)).value?.err).toBeNull();
    net.advanceSlots(1);
    expect((await connection.isBlockhashValid(blockhash)).value).toBe(false);
    const stale = transfer(blockhash, 2_000_000);
    const reply = await rpc(net, 'sendTransaction', [
      stale.serialize().toString('base64'),
      { encoding: 'base64' },
    ]);
    expect(reply.error?.code).toBe(-32002);
    expect(reply.error?.message).toBe('Transaction simulation failed: Blockhash not found');
    expect(reply.error?.data?.err).toBe('BlockhashNotFound');
    expect(reply.error?.data?.logs).toEqual([]);
    await expect(connection.sendRawTransaction(stale.serialize())).rejects.toThrow(SendTransactionError);
    // skipPreflight: the node answers the signature, but the transaction never lands.
    const sig = await connection.sendRawTransaction(stale.serialize(), { skipPreflight: true });
    net.advanceSlots(5);
    expect(
      (await connection.getSignatureStatuses([sig], { searchTransactionHistory: true })).value[0],
    ).toBeNull();
  });

  it('rejects an SPL transfer with insufficient funds in preflight, and records it when preflight is skipped', async () => {
    const keys = net.keys;
    if (!keys) throw new Error('seeded keys missing');
    const owner = Keypair.generate();
    const ownerAta = getAssociatedTokenAddressSync(keys.mint, payer.publicKey);
    const destAta = getAssociatedTokenAddressSync(keys.mint, owner.publicKey);
    const { blockhash } = await connection.getLatestBlockhash('processed');
    const setup = new Transaction({ feePayer: payer.publicKey, blockhash, lastValidBlockHeight: 0 }).add(
      createAssociatedTokenAccountInstruction(payer.publicKey, ownerAta, payer.publicKey, keys.mint),
      createAssociatedTokenAccountInstruction(payer.publicKey, destAta, owner.publicKey, keys.mint),
    );
    setup.sign(payer);
    await connection.sendRawTransaction(setup.serialize());

    const reference = Keypair.generate().publicKey;
    const ix = createTransferCheckedInstruction(ownerAta, keys.mint, destAta, payer.publicKey, 1_000_000n, 6);
    ix.keys.push({ pubkey: reference, isSigner: false, isWritable: false });
    const tx = new Transaction({ feePayer: payer.publicKey, blockhash, lastValidBlockHeight: 0 }).add(ix);
    tx.sign(payer);
    const reply = await rpc(net, 'sendTransaction', [
      tx.serialize().toString('base64'),
      { encoding: 'base64' },
    ]);
    expect(reply.error?.code).toBe(-32002);
    expect(reply.error?.message).toBe(
      'Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1',
    );
    expect(reply.error?.data?.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(reply.error?.data?.logs.join('\n')).toContain('insufficient funds');
    const web3Error = await connection.sendRawTransaction(tx.serialize()).catch((e: unknown) => e);
    expect(web3Error).toBeInstanceOf(SendTransactionError);
    expect((web3Error as SendTransactionError).logs?.join('\n')).toContain('insufficient funds');

    const sig = await connection.sendRawTransaction(tx.serialize(), { skipPreflight: true });
    net.advanceSlots(1);
    const status = (await connection.getSignatureStatuses([sig])).value[0];
    expect(status?.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(status?.confirmationStatus).toBe('confirmed');
    const got = await connection.getTransaction(sig, {
      commitment: 'confirmed',
      maxSupportedTransactionVersion: 0,
    });
    expect(got?.meta?.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(got?.meta?.fee).toBe(5000);
    const listed = await connection.getSignaturesForAddress(reference, {}, 'confirmed');
    expect(listed.map((s) => [s.signature, s.err])).toEqual([
      [sig, { InstructionError: [0, { Custom: 1 }] }],
    ]);
    // Not finalized yet, so invisible at the finalized commitment; then visible.
    expect(await connection.getSignaturesForAddress(reference, {}, 'finalized')).toEqual([]);
    net.advanceSlots(3);
    expect(
      (await connection.getSignaturesForAddress(reference, {}, 'finalized'))[0]?.confirmationStatus,
    ).toBe('finalized');
  });

  it('pages getSignaturesForAddress newest first with before/until/limit', async () => {
    const { blockhash } = await connection.getLatestBlockhash('processed');
    const shared = Keypair.generate().publicKey;
    const sigs: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      const tx = new Transaction({ feePayer: payer.publicKey, blockhash, lastValidBlockHeight: 0 }).add(
        SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: shared, lamports: 1_000_000 + i }),
      );
      tx.sign(payer);
      sigs.push(await connection.sendRawTransaction(tx.serialize()));
      net.advanceSlots(1);
    }
    net.advanceSlots(1);
    const all = (await connection.getSignaturesForAddress(shared, {}, 'confirmed')).map((s) => s.signature);
    expect(all).toEqual([...sigs].reverse());
    const page = await connection.getSignaturesForAddress(shared, { before: sigs[3], limit: 2 }, 'confirmed');
    expect(page.map((s) => s.signature)).toEqual([sigs[2], sigs[1]]);
    const until = await connection.getSignaturesForAddress(shared, { until: sigs[1] }, 'confirmed');
    expect(until.map((s) => s.signature)).toEqual([sigs[3], sigs[2]]);
    const bad = await rpc(net, 'getSignaturesForAddress', [
      shared.toBase58(),
      { limit: 1001, commitment: 'confirmed' },
    ]);
    expect(bad.error?.code).toBe(-32602);
    // base58 sendTransaction works too.
    const bs58 = (await import('bs58')).default;
    const tx = new Transaction({
      feePayer: payer.publicKey,
      blockhash: (await connection.getLatestBlockhash()).blockhash,
      lastValidBlockHeight: 0,
    }).add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: shared, lamports: 5 }));
    tx.sign(payer);
    const r = await rpc(net, 'sendTransaction', [bs58.encode(tx.serialize())]);
    expect(r.result).toBe(bs58.encode(tx.signature ?? new Uint8Array()));
  });

  it('answers malformed JSON-RPC with the right error codes, never crashing', async () => {
    const parse = await post(net.rpcUrl, '{not json');
    expect(parse.status).toBe(200);
    expect(parse.json).toEqual({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null });
    expect((await rpc(net, 'noSuchMethod')).error).toEqual({ code: -32601, message: 'Method not found' });
    expect((await rpc(net, 'getBalance', [123])).error?.code).toBe(-32602);
    expect((await rpc(net, 'getBalance', ['not-a-key'])).error?.code).toBe(-32602);
    expect(
      (await rpc(net, 'getAccountInfo', [payer.publicKey.toBase58(), { encoding: 'weird' }])).error?.code,
    ).toBe(-32602);
    expect((await rpc(net, 'sendTransaction', ['%%%'])).error?.code).toBe(-32602);
    expect((await rpc(net, 'sendTransaction', ['AAAA', { encoding: 'base64' }])).error?.code).toBe(-32602);
    expect((await post(net.rpcUrl, JSON.stringify({ foo: 1 }))).json).toMatchObject({
      error: { code: -32600 },
      id: null,
    });
    expect(
      (await post(net.rpcUrl, JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'getSlot', params: { a: 1 } })))
        .json,
    ).toMatchObject({ error: { code: -32602 }, id: 3 });
    expect((await post(net.rpcUrl, '[]')).json).toMatchObject({ error: { code: -32600 } });
    const batch = await post(
      net.rpcUrl,
      JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'getSlot', params: [{ commitment: 'processed' }] },
        { jsonrpc: '2.0', id: 2, method: 'nope' },
        42,
      ]),
    );
    expect(batch.json).toEqual([
      { jsonrpc: '2.0', result: net.slot(), id: 1 },
      { jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id: 2 },
      { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid request' }, id: null },
    ]);
    expect(
      (await rpc(net, 'getTransaction', ['1'.repeat(88), { commitment: 'processed' }])).error?.code,
    ).toBe(-32602);
    const health = await fetch(`${net.rpcUrl}/health`);
    expect(health.status).toBe(200);
  });

  it('answers 503 to everything while failing, then recovers', async () => {
    net.setFailing(true);
    const down = await post(
      net.rpcUrl,
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getLatestBlockhash' }),
    );
    expect(down.status).toBe(503);
    await expect(connection.getLatestBlockhash()).rejects.toThrow();
    net.setFailing(false);
    expect((await connection.getLatestBlockhash()).blockhash).toBeTruthy();
  });
});

describe('localnet faucet', () => {
  let net: Localnet;
  beforeAll(async () => {
    net = await startLocalnet({ port: 0, slotMs: 50, finalizeLag: 3 });
  });
  afterAll(async () => {
    await net.close();
  });
  const faucet = (body: string): Promise<{ status: number; json: unknown }> =>
    post(`${net.rpcUrl}/faucet`, body);

  it('airdrops SOL and mints exact decimal $CLAIM to the owner ATA, creating it', async () => {
    const owner = Keypair.generate().publicKey.toBase58();
    const r1 = await faucet(JSON.stringify({ address: owner, sol: 1.5, claim: '100.123456' }));
    expect(r1.status).toBe(200);
    expect(r1.json).toMatchObject({
      address: owner,
      solBalance: 1.5,
      claimBalance: '100.123456',
      claimBaseUnits: '100123456',
    });
    const r2 = await faucet(JSON.stringify({ address: owner, claim: 0.1 }));
    expect(r2.json).toMatchObject({ claimBalance: '100.223456', solBalance: 1.5 });
    const ata = (r2.json as { ata: string }).ata;
    const connection = new Connection(net.rpcUrl, 'confirmed');
    const bal = await connection.getTokenAccountBalance(
      new (await import('@solana/web3.js')).PublicKey(ata),
      'processed',
    );
    expect(bal.value.amount).toBe('100223456');
    const sig = (r2.json as { signature: string }).signature;
    const tx = await connection
      .getParsedTransaction(sig, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 })
      .catch(() => null);
    expect(tx === null || tx.meta?.err === null).toBe(true);
  });

  it('rejects bad input with 400 and a clear message', async () => {
    const owner = Keypair.generate().publicKey.toBase58();
    const cases: [string, RegExp][] = [
      ['', /body must be a JSON object/],
      ['{oops', /body must be JSON/],
      ['[]', /body must be a JSON object/],
      [JSON.stringify({ sol: 1 }), /address is required/],
      [JSON.stringify({ address: 'not-base58!', sol: 1 }), /not a valid base58 public key/],
      [JSON.stringify({ address: owner, sol: -1 }), /sol must not be negative/],
      [JSON.stringify({ address: owner, claim: 'ten' }), /claim must be a plain decimal/],
      [JSON.stringify({ address: owner, claim: true }), /claim must be a number/],
      [JSON.stringify({ address: owner, sol: 0, claim: 0 }), /both zero or absent/],
      [JSON.stringify({ address: owner }), /both zero or absent/],
      [JSON.stringify({ address: owner, claim: '1.1234567' }), /more than 6 decimal places/],
      [JSON.stringify({ address: owner, claim: 1e-7 }), /plain decimal/],
      [JSON.stringify({ address: owner, sol: 1e9 }), /sol must be at most/],
      [JSON.stringify({ address: owner, claim: '99999999999999' }), /claim must be at most/],
    ];
    for (const [body, message] of cases) {
      const r = await faucet(body);
      expect(r.status, body).toBe(400);
      expect((r.json as { error: string }).error, body).toMatch(message);
    }
    expect((await fetch(`${net.rpcUrl}/faucet`)).status).toBe(405);
  });
});
