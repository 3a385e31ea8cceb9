import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  SystemProgram,
  Transaction,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js';
import nacl from 'tweetnacl';
import { startLocalnet, type Localnet } from '../support/localnet.js';
import { ensureChromium } from '../support/prepare.js';
import { TestWalletSigner, installTestWallet } from '../support/wallet.js';

const b64 = (u: Uint8Array): string => Buffer.from(u).toString('base64');

describe('test wallet: Node-side signing', () => {
  let net: Localnet;
  let connection: Connection;
  const keypair = Keypair.generate();
  beforeAll(async () => {
    net = await startLocalnet({ port: 0, slotMs: 40, finalizeLag: 3 });
    connection = new Connection(net.rpcUrl, 'confirmed');
    await connection.requestAirdrop(keypair.publicKey, LAMPORTS_PER_SOL);
  });
  afterAll(async () => {
    await net.close();
  });

  async function legacyTx(): Promise<Transaction> {
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash('processed');
    return new Transaction({ feePayer: keypair.publicKey, blockhash, lastValidBlockHeight }).add(
      SystemProgram.transfer({
        fromPubkey: keypair.publicKey,
        toPubkey: Keypair.generate().publicKey,
        lamports: 1_000_000,
      }),
    );
  }

  it('signs legacy and versioned transactions, signs messages, and sends', async () => {
    const signer = new TestWalletSigner(keypair, net.rpcUrl);
    const tx = await legacyTx();
    const unsigned = tx.serialize({ requireAllSignatures: false, verifySignatures: false });
    const reply = await signer.handle({ method: 'signTransaction', payload: { tx: b64(unsigned) } });
    if (!('result' in reply)) throw new Error(JSON.stringify(reply));
    const { signature, index } = reply.result as { signature: string; index: number };
    expect(index).toBe(0);
    tx.addSignature(keypair.publicKey, Buffer.from(signature, 'base64'));
    expect(tx.verifySignatures()).toBe(true);

    const { blockhash } = await connection.getLatestBlockhash('processed');
    const msg = new TransactionMessage({
      payerKey: keypair.publicKey,
      recentBlockhash: blockhash,
      instructions: [
        SystemProgram.transfer({
          fromPubkey: keypair.publicKey,
          toPubkey: Keypair.generate().publicKey,
          lamports: 1_000_000,
        }),
      ],
    }).compileToV0Message();
    const vtx = new VersionedTransaction(msg);
    const vreply = await signer.handle({
      method: 'signAllTransactions',
      payload: { txs: [b64(vtx.serialize())] },
    });
    if (!('result' in vreply)) throw new Error(JSON.stringify(vreply));
    const [first] = vreply.result as { signature: string; index: number }[];
    vtx.signatures[first?.index ?? 0] = new Uint8Array(Buffer.from(first?.signature ?? '', 'base64'));
    expect(
      nacl.sign.detached.verify(
        msg.serialize(),
        vtx.signatures[0] ?? new Uint8Array(),
        keypair.publicKey.toBytes(),
      ),
    ).toBe(true);
    // A v0 transaction lands and needs maxSupportedTransactionVersion to be read back.
    const vsig = await connection.sendRawTransaction(vtx.serialize());
    net.advanceSlots(1);
    const noVersion = await fetch(net.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'getTransaction',
        params: [vsig, { commitment: 'confirmed' }],
      }),
    });
    expect(((await noVersion.json()) as { error?: { code: number } }).error?.code).toBe(-32015);
    const v0 = await connection.getTransaction(vsig, {
      commitment: 'confirmed',
      maxSupportedTransactionVersion: 0,
    });
    expect(v0?.version).toBe(0);

    const message = new TextEncoder().encode('hello');
    const m = await signer.handle({ method: 'signMessage', payload: { message: b64(message) } });
    if (!('result' in m)) throw new Error('signMessage failed');
    expect(
      nacl.sign.detached.verify(
        message,
        Buffer.from((m.result as { signature: string }).signature, 'base64'),
        keypair.publicKey.toBytes(),
      ),
    ).toBe(true);

    const send = await signer.handle({
      method: 'signAndSendTransaction',
      payload: {
        tx: b64((await legacyTx()).serialize({ requireAllSignatures: false, verifySignatures: false })),
      },
    });
    if (!('result' in send)) throw new Error(JSON.stringify(send));
    const sent = (send.result as { signature: string }).signature;
    expect(signer.sent()).toEqual([sent]);
    expect((await connection.getSignatureStatus(sent)).value?.err).toBeNull();
    expect(signer.requests()).toEqual([
      'signTransaction',
      'signAllTransactions',
      'signMessage',
      'signAndSendTransaction',
    ]);
  });

  it("rejects with Phantom's error shape", async () => {
    const signer = new TestWalletSigner(keypair, net.rpcUrl);
    signer.setReject('connect', { once: true });
    expect(await signer.handle({ method: 'connect' })).toEqual({
      error: { code: 4001, message: 'User rejected the request.' },
    });
    expect(await signer.handle({ method: 'connect' })).toEqual({
      result: { publicKey: keypair.publicKey.toBase58() },
    });
    signer.setReject('sign');
    const tx = await legacyTx();
    const payload = { tx: b64(tx.serialize({ requireAllSignatures: false, verifySignatures: false })) };
    expect(await signer.handle({ method: 'signAndSendTransaction', payload })).toEqual({
      error: { code: 4001, message: 'User rejected the request.' },
    });
    expect(await signer.handle({ method: 'signTransaction', payload })).toMatchObject({
      error: { code: 4001 },
    });
    signer.setReject(null);
    expect(await signer.handle({ method: 'signTransaction', payload })).toHaveProperty('result');
    // A transaction the wallet is not asked to sign is refused, not signed.
    const other = Keypair.generate();
    const foreign = new Transaction({
      feePayer: other.publicKey,
      blockhash: tx.recentBlockhash ?? '',
      lastValidBlockHeight: 0,
    }).add(SystemProgram.transfer({ fromPubkey: other.publicKey, toPubkey: other.publicKey, lamports: 1 }));
    const r = await signer.handle({
      method: 'signTransaction',
      payload: { tx: b64(foreign.serialize({ requireAllSignatures: false, verifySignatures: false })) },
    });
    expect(r).toMatchObject({ error: { code: -32603 } });
  });
});

describe('test wallet in a browser page', () => {
  let net: Localnet;
  beforeAll(async () => {
    net = await startLocalnet({ port: 0, slotMs: 40, finalizeLag: 3 });
  });
  afterAll(async () => {
    await net.close();
  });

  it("injects window.phantom.solana and signs/sends the page's own web3.js transactions", async () => {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: ensureChromium(), args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage();
      const keypair = Keypair.generate();
      await new Connection(net.rpcUrl, 'confirmed').requestAirdrop(keypair.publicKey, LAMPORTS_PER_SOL);
      const wallet = await installTestWallet(page, { keypair, rpcUrl: net.rpcUrl });
      await page.goto(`${net.rpcUrl}/health`);
      const require = createRequire(import.meta.url);
      await page.addScriptTag({ path: require.resolve('@solana/web3.js/lib/index.iife.min.js') });
      const result = await page.evaluate(async (rpcUrl) => {
        const w = window as unknown as {
          solanaWeb3: typeof import('@solana/web3.js');
          phantom: {
            solana: {
              isPhantom: boolean;
              connect(): Promise<{ publicKey: { toBytes(): Uint8Array; toBase58(): string } }>;
              signTransaction<T>(tx: T): Promise<T>;
              signAndSendTransaction(tx: unknown): Promise<{ signature: string }>;
            };
          };
        };
        const web3 = w.solanaWeb3;
        const provider = w.phantom.solana;
        const { publicKey } = await provider.connect();
        const owner = new web3.PublicKey(publicKey.toBytes()); // what PhantomWalletAdapter does
        const conn = new web3.Connection(rpcUrl, 'confirmed');
        const build = async (): Promise<InstanceType<typeof web3.Transaction>> => {
          const { blockhash, lastValidBlockHeight } = await conn.getLatestBlockhash('processed');
          return new web3.Transaction({ feePayer: owner, blockhash, lastValidBlockHeight }).add(
            web3.SystemProgram.transfer({
              fromPubkey: owner,
              toPubkey: web3.Keypair.generate().publicKey,
              lamports: 1_000_000,
            }),
          );
        };
        const signed = await provider.signTransaction(await build());
        const verified = signed.verifySignatures();
        const sig1 = await conn.sendRawTransaction(signed.serialize());
        const { signature: sig2 } = await provider.signAndSendTransaction(await build());
        return { isPhantom: provider.isPhantom, owner: owner.toBase58(), verified, sig1, sig2 };
      }, net.rpcUrl);
      expect(result.isPhantom).toBe(true);
      expect(result.owner).toBe(keypair.publicKey.toBase58());
      expect(result.verified).toBe(true);
      expect(net.chain.history.get(result.sig1)?.err).toBeNull();
      expect(net.chain.history.get(result.sig2)?.err).toBeNull();
      expect(wallet.requests()).toEqual(['connect', 'signTransaction', 'signAndSendTransaction']);

      wallet.setReject('sign');
      const err = await page.evaluate(async () => {
        const p = (
          window as unknown as { phantom: { solana: { signMessage(m: Uint8Array): Promise<unknown> } } }
        ).phantom.solana;
        return p.signMessage(new Uint8Array([1, 2, 3])).then(
          () => null,
          (e: { code: number; message: string }) => ({ code: e.code, message: e.message }),
        );
      });
      expect(err).toEqual({ code: 4001, message: 'User rejected the request.' });
    } finally {
      await browser.close();
    }
  });
});
