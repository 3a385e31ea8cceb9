/**
 * Priority fees: the localnet answers getRecentPrioritizationFees from its own ledger (the lowest
 * compute-unit price landed per slot for the asked write-locked accounts, raised to a settable background level),
 * and the wallet checkout's price rule (pay.ts) reads it: 75th percentile, floor, cap, floor when the RPC lacks it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ComputeBudgetProgram,
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  SystemProgram,
  Transaction,
  sendAndConfirmTransaction,
} from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalnet, type Localnet } from '../support/localnet.js';
import {
  PRIORITY_FEE_CAP,
  PRIORITY_FEE_FLOOR,
  priorityFeeLamports,
  priorityPrice,
  priorityPriceFrom,
} from '../../src/web/checkout/wallet/pay.js';
import { solanaRpc } from '../../src/web/lib/solana-rpc.js';
import { address } from '../../src/web/lib/wallet-tx.js';

let net: Localnet;
let connection: Connection;
const payer = Keypair.generate();

beforeAll(async () => {
  net = await startLocalnet({ port: 0, slotMs: 40, finalizeLag: 3, seed: false });
  connection = new Connection(net.rpcUrl, 'confirmed');
  const sig = await connection.requestAirdrop(payer.publicKey, LAMPORTS_PER_SOL);
  await connection.confirmTransaction(sig, 'confirmed');
});
afterAll(async () => {
  await net?.close();
});

async function rpc(
  method: string,
  params: unknown[],
): Promise<{ result?: unknown; error?: { code: number } }> {
  const res = await fetch(net.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as { result?: unknown; error?: { code: number } };
}

describe('localnet getRecentPrioritizationFees', () => {
  it('reports, per recent slot, the lowest price landed for the asked accounts; the background level otherwise', async () => {
    const target = Keypair.generate().publicKey;
    const tx = new Transaction().add(
      ComputeBudgetProgram.setComputeUnitLimit({ units: 10_000 }),
      ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 7_777 }),
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: target, lamports: 1_000_000 }),
    );
    const sig = await sendAndConfirmTransaction(connection, tx, [payer], { commitment: 'confirmed' });
    const landed = await connection.getTransaction(sig, {
      commitment: 'confirmed',
      maxSupportedTransactionVersion: 0,
    });
    const slot = landed?.slot ?? -1;

    const forTarget = await connection.getRecentPrioritizationFees({ lockedWritableAccounts: [target] });
    expect(forTarget.length).toBeGreaterThan(0);
    expect(forTarget.length).toBeLessThanOrEqual(150);
    expect(forTarget.map((f) => f.slot)).toEqual([...forTarget.map((f) => f.slot)].sort((a, b) => a - b));
    expect(forTarget.find((f) => f.slot === slot)?.prioritizationFee).toBe(7_777);
    expect(forTarget.filter((f) => f.slot !== slot).every((f) => f.prioritizationFee === 0)).toBe(true);
    // Another account: nothing landed for it.
    const other = await connection.getRecentPrioritizationFees({
      lockedWritableAccounts: [Keypair.generate().publicKey],
    });
    expect(other.every((f) => f.prioritizationFee === 0)).toBe(true);
    // No accounts: every successful transaction counts.
    const all = await connection.getRecentPrioritizationFees();
    expect(all.find((f) => f.slot === slot)?.prioritizationFee).toBe(7_777);

    // A busy network: the background level raises every slot.
    net.chain.prioritizationFeeFloor = 20_000;
    try {
      const busy = await connection.getRecentPrioritizationFees({ lockedWritableAccounts: [target] });
      expect(busy.every((f) => f.prioritizationFee === 20_000)).toBe(true);
    } finally {
      net.chain.prioritizationFeeFloor = 0;
    }
  });

  it('refuses bad parameters with invalid-params', async () => {
    expect((await rpc('getRecentPrioritizationFees', [['not a key']])).error?.code).toBe(-32602);
    expect((await rpc('getRecentPrioritizationFees', ['x'])).error?.code).toBe(-32602);
    const many = Array.from({ length: 129 }, () => Keypair.generate().publicKey.toBase58());
    expect((await rpc('getRecentPrioritizationFees', [many])).error?.code).toBe(-32602);
  });
});

describe('the wallet checkout price rule', () => {
  it('takes the 75th percentile within floor and cap', () => {
    const fees = (xs: number[]) => xs.map((prioritizationFee, slot) => ({ slot, prioritizationFee }));
    expect(priorityPriceFrom(null)).toBe(PRIORITY_FEE_FLOOR);
    expect(priorityPriceFrom([])).toBe(PRIORITY_FEE_FLOOR);
    expect(priorityPriceFrom(fees([0, 0, 0, 0]))).toBe(PRIORITY_FEE_FLOOR);
    expect(priorityPriceFrom(fees([10_000, 20_000, 30_000, 40_000]))).toBe(40_000);
    expect(priorityPriceFrom(fees([5_000, 1_000, 100_000, 2_000, 3_000, 4_000, 6_000, 7_000]))).toBe(7_000);
    expect(priorityPriceFrom(fees([50_000_000, 60_000_000]))).toBe(PRIORITY_FEE_CAP);
    expect(priorityFeeLamports(1_000, 30_000)).toBe(30);
    expect(priorityFeeLamports(1, 30_000)).toBe(1); // rounded up
    expect(priorityFeeLamports(PRIORITY_FEE_CAP, 30_000)).toBe(30_000);
  });

  it('reads the localnet: floor when quiet, the network level when busy, the cap on a spike', async () => {
    // The browser's own RPC client (@solana/kit) against the localnet.
    const rpc = solanaRpc(net.rpcUrl);
    const accounts = [address(Keypair.generate().publicKey.toBase58())];
    expect(await priorityPrice(rpc, accounts)).toBe(PRIORITY_FEE_FLOOR);
    try {
      net.chain.prioritizationFeeFloor = 50_000;
      expect(await priorityPrice(rpc, accounts)).toBe(50_000);
      net.chain.prioritizationFeeFloor = 5_000_000_000;
      expect(await priorityPrice(rpc, accounts)).toBe(PRIORITY_FEE_CAP);
    } finally {
      net.chain.prioritizationFeeFloor = 0;
    }
  });

  it('falls back to the floor when the RPC does not know the method', async () => {
    const server: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const { id } = JSON.parse(body) as { id: number };
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as AddressInfo).port;
      const bare = solanaRpc(`http://127.0.0.1:${port}`);
      expect(await priorityPrice(bare, [address(Keypair.generate().publicKey.toBase58())])).toBe(
        PRIORITY_FEE_FLOOR,
      );
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
