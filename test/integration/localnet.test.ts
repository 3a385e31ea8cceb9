import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  Transaction,
  type ParsedInstruction,
  type SignatureStatus,
} from '@solana/web3.js';
import {
  createMint,
  createTransferCheckedInstruction,
  getAccount,
  getMint,
  getOrCreateAssociatedTokenAccount,
  mintTo,
} from '@solana/spl-token';
import WebSocket from 'ws';
import { startLocalnet, type Localnet } from '../support/localnet.js';

async function waitFor<T>(
  fn: () => Promise<T | undefined | null | false>,
  what: string,
  ms = 20000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('localnet: a real payment through @solana/web3.js and spl-token', () => {
  let net: Localnet;
  let connection: Connection;
  beforeAll(async () => {
    net = await startLocalnet({ port: 0, slotMs: 40, finalizeLag: 4 });
    // No wsEndpoint: web3.js derives ws://host:(port+1), which the localnet serves like solana-test-validator.
    connection = new Connection(net.rpcUrl, 'confirmed');
  });
  afterAll(async () => {
    await net.close();
  });

  it('answers basic context methods with the real shapes', async () => {
    const res = await fetch(net.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'getLatestBlockhash',
        params: [{ commitment: 'confirmed' }],
      }),
    });
    const body = (await res.json()) as {
      jsonrpc: string;
      id: number;
      result: {
        context: { slot: number; apiVersion: string };
        value: { blockhash: string; lastValidBlockHeight: number };
      };
    };
    expect(body.jsonrpc).toBe('2.0');
    expect(body.id).toBe(7);
    expect(typeof body.result.context.slot).toBe('number');
    expect(typeof body.result.context.apiVersion).toBe('string');
    expect(body.result.value.lastValidBlockHeight).toBe(body.result.context.slot + 150);
    expect((await connection.getVersion())['solana-core']).toBeTruthy();
    expect(await connection.getGenesisHash()).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    const epoch = await connection.getEpochInfo();
    expect(epoch.absoluteSlot).toBeGreaterThanOrEqual(0);
    expect(await connection.getMinimumBalanceForRentExemption(165)).toBeGreaterThan(0);
  });

  it('seeds the demo mint and vendor wallets deterministically', async () => {
    const keys = net.keys;
    expect(keys).not.toBeNull();
    if (!keys || !net.recipientTokenAccounts) return;
    const mint = await getMint(connection, keys.mint);
    expect(mint.decimals).toBe(6);
    expect(mint.mintAuthority?.toBase58()).toBe(keys.mintAuthority.publicKey.toBase58());
    expect(await connection.getBalance(keys.recipients.coopersglass)).toBeGreaterThan(0);
    expect(await connection.getBalance(keys.recipients.gorilla)).toBeGreaterThan(0);
    const coopers = await getAccount(connection, new PublicKey(net.recipientTokenAccounts.coopersglass));
    expect(coopers.owner.toBase58()).toBe(keys.recipients.coopersglass.toBase58());
    // Every vendor can receive by QR from the start: both token accounts exist.
    const gorilla = await getAccount(connection, new PublicKey(net.recipientTokenAccounts.gorilla));
    expect(gorilla.owner.toBase58()).toBe(keys.recipients.gorilla.toBase58());
    expect(net.withoutTokenAccount).toEqual([]);
    const { demoKeys } = await import('../support/demo-keypairs.js');
    expect(demoKeys().mint.toBase58()).toBe(keys.mint.toBase58());
  });

  it('leaves out the token account of a vendor named in withoutTokenAccount (the two-approval demo)', async () => {
    const other = await startLocalnet({ port: 0, slotMs: 40, withoutTokenAccount: ['gorilla'] });
    try {
      const c = new Connection(other.rpcUrl, 'confirmed');
      expect(other.withoutTokenAccount).toEqual(['gorilla']);
      expect(await c.getAccountInfo(new PublicKey(other.recipientTokenAccounts?.gorilla ?? ''))).toBeNull();
      expect(
        await c.getAccountInfo(new PublicKey(other.recipientTokenAccounts?.coopersglass ?? '')),
      ).not.toBeNull();
    } finally {
      await other.close();
    }
  });

  it('creates a mint and ATAs, pays with a reference key, confirms by WebSocket and polling, finds and reads it', async () => {
    const payer = Keypair.generate();
    const seller = Keypair.generate();
    const reference = Keypair.generate().publicKey;

    const airdropSig = await connection.requestAirdrop(payer.publicKey, 2 * LAMPORTS_PER_SOL);
    const bh = await connection.getLatestBlockhash('confirmed');
    await connection.confirmTransaction({ signature: airdropSig, ...bh }, 'confirmed');
    expect(await connection.getBalance(payer.publicKey, 'confirmed')).toBe(2 * LAMPORTS_PER_SOL);

    const mint = await createMint(connection, payer, payer.publicKey, null, 6);
    const from = await getOrCreateAssociatedTokenAccount(connection, payer, mint, payer.publicKey);
    const to = await getOrCreateAssociatedTokenAccount(connection, payer, mint, seller.publicKey);
    await mintTo(connection, payer, mint, from.address, payer, 5_000_000n);
    expect((await connection.getTokenAccountBalance(from.address)).value.uiAmountString).toBe('5');

    // Logs and account subscriptions (web3.js uses logsSubscribe / accountSubscribe over the WebSocket).
    const logsSeen: string[] = [];
    const logsSub = connection.onLogs(reference, (l) => logsSeen.push(l.signature), 'confirmed');
    let accountChanged = 0;
    const accSub = connection.onAccountChange(to.address, () => (accountChanged += 1), {
      commitment: 'confirmed',
    });
    await new Promise((r) => setTimeout(r, 100));

    const ix = createTransferCheckedInstruction(
      from.address,
      mint,
      to.address,
      payer.publicKey,
      1_250_000n,
      6,
    );
    ix.keys.push({ pubkey: reference, isSigner: false, isWritable: false });
    const latest = await connection.getLatestBlockhash('confirmed');
    const tx = new Transaction({ feePayer: payer.publicKey, ...latest }).add(ix);
    tx.sign(payer);
    const signature = await connection.sendRawTransaction(tx.serialize());

    // WebSocket confirmation (signatureSubscribe) with the blockhash strategy.
    const confirmation = await connection.confirmTransaction({ signature, ...latest }, 'confirmed');
    expect(confirmation.value.err).toBeNull();

    // Polling confirmation.
    const status = await waitFor(async () => {
      const s = (await connection.getSignatureStatuses([signature], { searchTransactionHistory: true }))
        .value[0];
      return s && (s.confirmationStatus === 'confirmed' || s.confirmationStatus === 'finalized') ? s : null;
    }, 'confirmed status');
    expect(status.err).toBeNull();

    // Find by reference (read-only, not an account).
    expect(await connection.getAccountInfo(reference)).toBeNull();
    const found = await connection.getSignaturesForAddress(reference, { limit: 10 }, 'confirmed');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ signature, err: null, memo: null });
    expect(typeof found[0]?.slot).toBe('number');
    expect(typeof found[0]?.blockTime).toBe('number');
    expect(found[0]?.confirmationStatus).toMatch(/confirmed|finalized/);

    // Token balance changes (json).
    const got = await connection.getTransaction(signature, {
      commitment: 'confirmed',
      maxSupportedTransactionVersion: 0,
    });
    expect(got).not.toBeNull();
    if (!got?.meta) throw new Error('no meta');
    expect(got.meta.err).toBeNull();
    expect(got.meta.fee).toBe(5000);
    expect(got.version).toBe('legacy');
    const keys = got.transaction.message.getAccountKeys().staticAccountKeys.map((k) => k.toBase58());
    expect(keys).toContain(reference.toBase58());
    const toIndex = keys.indexOf(to.address.toBase58());
    const pre = got.meta.preTokenBalances?.find((b) => b.accountIndex === toIndex);
    const post = got.meta.postTokenBalances?.find((b) => b.accountIndex === toIndex);
    expect(pre?.uiTokenAmount.amount).toBe('0');
    expect(post).toMatchObject({
      mint: mint.toBase58(),
      owner: seller.publicKey.toBase58(),
      programId: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
    });
    expect(post?.uiTokenAmount).toEqual({
      amount: '1250000',
      decimals: 6,
      uiAmount: 1.25,
      uiAmountString: '1.25',
    });
    expect(got.meta.preBalances[0]! - got.meta.postBalances[0]!).toBe(5000);
    expect(got.meta.logMessages).toContain('Program TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA success');
    expect(got.meta.loadedAddresses).toEqual({ writable: [], readonly: [] });

    // jsonParsed.
    const parsed = await connection.getParsedTransaction(signature, {
      commitment: 'confirmed',
      maxSupportedTransactionVersion: 0,
    });
    const pix = parsed?.transaction.message.instructions[0] as ParsedInstruction;
    expect(pix.program).toBe('spl-token');
    expect(pix.parsed).toMatchObject({
      type: 'transferChecked',
      info: { destination: to.address.toBase58(), tokenAmount: { amount: '1250000' } },
    });
    const refKey = parsed?.transaction.message.accountKeys.find((k) => k.pubkey.equals(reference));
    expect(refKey).toMatchObject({ signer: false, writable: false });

    // Subscriptions fired.
    await waitFor(async () => logsSeen.includes(signature), 'logs notification');
    await waitFor(async () => accountChanged > 0, 'account notification');
    await connection.removeOnLogsListener(logsSub);
    await connection.removeAccountChangeListener(accSub);

    // Finalized after the configured lag.
    const fin = await waitFor(async () => {
      const s: SignatureStatus | null = (await connection.getSignatureStatuses([signature])).value[0] ?? null;
      return s?.confirmationStatus === 'finalized' ? s : null;
    }, 'finalized');
    expect(fin.confirmations).toBeNull();
    expect(
      await connection.getTransaction(signature, {
        commitment: 'finalized',
        maxSupportedTransactionVersion: 0,
      }),
    ).not.toBeNull();

    // Parsed token accounts by owner, with mint and programId filters.
    const byMint = await connection.getParsedTokenAccountsByOwner(seller.publicKey, { mint });
    expect(byMint.value).toHaveLength(1);
    expect(byMint.value[0]?.account.data.parsed.info.tokenAmount.uiAmountString).toBe('1.25');
    const byProgram = await connection.getTokenAccountsByOwner(seller.publicKey, {
      programId: new PublicKey('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'),
    });
    expect(byProgram.value[0]?.pubkey.toBase58()).toBe(to.address.toBase58());
    const unknown = await connection.getTransaction('1'.repeat(88), {
      commitment: 'confirmed',
      maxSupportedTransactionVersion: 0,
    });
    expect(unknown).toBeNull();
  });

  it('answers getBlock as a node does and leaves loadedAddresses out of jsonParsed transactions', async () => {
    const payer = Keypair.generate();
    const signature = await connection.requestAirdrop(payer.publicKey, LAMPORTS_PER_SOL);
    const latest = await connection.getLatestBlockhash('confirmed');
    await connection.confirmTransaction({ signature, ...latest }, 'confirmed');
    const tx = await connection.getTransaction(signature, {
      commitment: 'confirmed',
      maxSupportedTransactionVersion: 0,
    });
    const slot = tx!.slot;
    const call = async (method: string, params: unknown[]) =>
      (await (
        await fetch(net.rpcUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        })
      ).json()) as { result?: Record<string, unknown>; error?: { code: number; message: string } };

    // web3.js checks the response against its own schema of a block.
    const block = await connection.getBlock(slot, {
      commitment: 'confirmed',
      maxSupportedTransactionVersion: 0,
    });
    expect(block).not.toBeNull();
    expect((block as unknown as { blockHeight: number }).blockHeight).toBe(slot);
    expect(block!.parentSlot).toBe(slot - 1);
    expect(block!.blockTime).toBe(tx!.blockTime);
    expect(block!.transactions.map((t) => t.transaction.signatures[0])).toContain(signature);
    const parent = await connection.getBlock(slot - 1, {
      commitment: 'confirmed',
      maxSupportedTransactionVersion: 0,
    });
    expect(block!.previousBlockhash).toBe(parent!.blockhash);
    const parsedBlock = await connection.getParsedBlock(slot, {
      commitment: 'confirmed',
      maxSupportedTransactionVersion: 0,
    });
    expect(parsedBlock.transactions.find((t) => t.transaction.signatures[0] === signature)).toBeTruthy();

    // transactionDetails signatures / none, rewards off.
    const sigs = await call('getBlock', [
      slot,
      { commitment: 'confirmed', transactionDetails: 'signatures', rewards: false },
    ]);
    expect(Object.keys(sigs.result!).sort()).toEqual([
      'blockHeight',
      'blockTime',
      'blockhash',
      'parentSlot',
      'previousBlockhash',
      'signatures',
    ]);
    expect(sigs.result!.signatures).toContain(signature);
    const none = await call('getBlock', [slot, { commitment: 'confirmed', transactionDetails: 'none' }]);
    expect(Object.keys(none.result!).sort()).toEqual([
      'blockHeight',
      'blockTime',
      'blockhash',
      'parentSlot',
      'previousBlockhash',
      'rewards',
    ]);
    // Refusals in the node's words.
    expect((await call('getBlock', [slot + 1_000_000, { commitment: 'confirmed' }])).error).toEqual({
      code: -32004,
      message: `Block not available for slot ${slot + 1_000_000}`,
    });
    expect((await call('getBlock', [slot, { commitment: 'processed' }])).error).toEqual({
      code: -32602,
      message: 'Method does not support commitment below `confirmed`',
    });
    expect((await call('getBlock', ['x'])).error?.code).toBe(-32602);

    // loadedAddresses: in json meta, not in jsonParsed meta (a real node skips it there).
    const json = await call('getTransaction', [
      signature,
      { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 },
    ]);
    expect((json.result!.meta as Record<string, unknown>).loadedAddresses).toEqual({
      writable: [],
      readonly: [],
    });
    const parsed = await call('getTransaction', [
      signature,
      { commitment: 'confirmed', encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 },
    ]);
    expect(parsed.result!.meta).not.toHaveProperty('loadedAddresses');
    const parsedInBlock = await call('getBlock', [
      slot,
      { commitment: 'confirmed', encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 },
    ]);
    for (const t of parsedInBlock.result!.transactions as { meta: object }[])
      expect(t.meta).not.toHaveProperty('loadedAddresses');
  });

  it('sends signatureNotification in the real shape over a raw WebSocket', async () => {
    const payer = Keypair.generate();
    const ws = new WebSocket(net.wsUrl);
    await new Promise((r) => ws.once('open', r));
    const messages: unknown[] = [];
    ws.on('message', (m) => messages.push(JSON.parse(String(m))));
    const sig = await connection.requestAirdrop(payer.publicKey, LAMPORTS_PER_SOL);
    ws.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'signatureSubscribe',
        params: [sig, { commitment: 'finalized' }],
      }),
    );
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'slotSubscribe' }));
    const note = await waitFor(
      async () => messages.find((m) => (m as { method?: string }).method === 'signatureNotification'),
      'notification',
    );
    const subId = (messages.find((m) => (m as { id?: number }).id === 1) as { result: number }).result;
    expect(note).toMatchObject({
      jsonrpc: '2.0',
      method: 'signatureNotification',
      params: { result: { context: {}, value: { err: null } }, subscription: subId },
    });
    const slotNote = messages.find((m) => (m as { method?: string }).method === 'slotNotification') as {
      params: { result: { slot: number; parent: number; root: number } };
    };
    expect(slotNote.params.result.slot).toBe(slotNote.params.result.parent + 1);
    ws.close();
  });
});
