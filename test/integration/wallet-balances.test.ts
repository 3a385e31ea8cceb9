/**
 * The wallet balance reader (src/server/payments/wallet-balances.ts) against the localnet's real SPL token
 * accounts: wallets asked for at the same moment are read in one getMultipleAccounts through the server's RPC
 * budget (one slot, not one per wallet), each with its own balance; a wallet without a $CLAIM account reads 0; a
 * wallet whose tokens moved away reads its new balance once the cache lapses; more than 100 wallets split.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection, Keypair } from '@solana/web3.js';
import { createTransferCheckedInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { startLocalnet, type Localnet } from '../support/localnet';
import { budgetedRpc, chainRpc } from '../../src/server/payments/connection';
import { RpcBudget } from '../../src/server/payments/budget';
import { createWalletBalances } from '../../src/server/payments/wallet-balances';
import { DECIMALS, faucet, send } from './payments-support';

let net: Localnet;
beforeAll(async () => {
  net = await startLocalnet({ port: 0, slotMs: 40, finalizeLag: 3 });
});
afterAll(async () => {
  await net?.close();
});

/** The JSON-RPC methods of every HTTP request sent through this fetch (a batch would list several). */
function countingFetch() {
  const sent: string[][] = [];
  const f: typeof fetch = (input, init) => {
    const body = JSON.parse(String(init?.body)) as { method: string } | { method: string }[];
    sent.push((Array.isArray(body) ? body : [body]).map((r) => r.method));
    return fetch(input, init);
  };
  return { fetch: f, sent };
}

const base = (claim: number) => BigInt(claim) * 10n ** BigInt(DECIMALS);

describe('wallet balances on the localnet', () => {
  it('reads concurrent wallets in one getMultipleAccounts, each its own balance, within one budget slot', async () => {
    const mint = net.keys!.mint.toBase58();
    const funded = Array.from({ length: 12 }, () => Keypair.generate());
    for (const [i, w] of funded.entries()) await faucet(net, w.publicKey, 1, 10 + i);
    const bare = Keypair.generate(); // no $CLAIM account at all
    const counted = countingFetch();
    const balances = createWalletBalances({ chain: chainRpc(net.rpcUrl, counted.fetch), mint });
    // The mint's token program is read once per process: read it first, so the count below is the batch's alone.
    expect(await balances.balanceOf(bare.publicKey.toBase58())).toBe(0n);
    counted.sent.length = 0;

    const wallets = [...funded.map((w) => w.publicKey.toBase58()), Keypair.generate().publicKey.toBase58()];
    const got = await Promise.all(wallets.map((w) => balances.balanceOf(w)));
    expect(got).toEqual([...funded.map((_, i) => base(10 + i)), 0n]);
    expect(counted.sent).toEqual([['getMultipleAccounts']]);

    // Through the server's budgeted fetch: the same read takes one slot of the budget.
    const slots = new RpcBudget({ perWindow: 60 });
    const budgeted = createWalletBalances({ chain: budgetedRpc({ rpcUrl: net.rpcUrl }, slots), mint });
    await budgeted.balanceOf(bare.publicKey.toBase58());
    const before = slots.stats().requests;
    const again = await Promise.all(wallets.map((w) => budgeted.balanceOf(w)));
    expect(again).toEqual(got);
    expect(slots.stats().requests - before).toBe(1);
  });

  it('splits more than 100 wallets, and reads a moved balance again once the cache lapses', async () => {
    const mint = net.keys!.mint;
    const rich = Keypair.generate();
    await faucet(net, rich.publicKey, 1, 50);
    const counted = countingFetch();
    let clock = 0;
    const balances = createWalletBalances({
      chain: chainRpc(net.rpcUrl, counted.fetch),
      mint: mint.toBase58(),
      now: () => clock,
    });
    const others = Array.from({ length: 120 }, () => Keypair.generate().publicKey.toBase58());
    const got = await Promise.all([rich.publicKey.toBase58(), ...others].map((w) => balances.balanceOf(w)));
    expect(got[0]).toBe(base(50));
    expect(got.slice(1).every((v) => v === 0n)).toBe(true);
    expect(counted.sent.filter((m) => m[0] === 'getMultipleAccounts')).toHaveLength(2);

    // 30 $CLAIM move away: the cached 50 stands for 10 s, then the new balance is read.
    const sink = Keypair.generate();
    await faucet(net, sink.publicKey, 1, 1); // its $CLAIM account, to receive
    const connection = new Connection(net.rpcUrl, 'confirmed');
    await send(
      connection,
      [
        createTransferCheckedInstruction(
          getAssociatedTokenAddressSync(mint, rich.publicKey),
          mint,
          getAssociatedTokenAddressSync(mint, sink.publicKey),
          rich.publicKey,
          base(30),
          DECIMALS,
        ),
      ],
      [rich],
    );
    expect(await balances.balanceOf(rich.publicKey.toBase58())).toBe(base(50));
    clock += 10_001;
    expect(await balances.balanceOf(rich.publicKey.toBase58())).toBe(base(20));
  });
});
