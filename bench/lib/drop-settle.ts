/**
 * bench:drop's settling (../drop.ts): the holders pay on the localnet, or do not, and the buyers still waiting keep
 * the page open and buy when let through.
 */
import { Connection, PublicKey, Transaction } from '@solana/web3.js';
import { createTransferCheckedInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import type { keepAliveAgent } from './load';
import { BENCH_DROP, type LocalnetProcess } from './production';
import { buyNow, call, RunStats, sleep, type Buyer } from './drop-buyers';
import { storeFacts } from './drop-store';
import { pollMs } from '../../src/core/drop';
import type { DropLineResponse } from '../../src/core/api';

const PAYERS_WHO_DO_NOT_PAY = 5;

export async function pay(net: LocalnetProcess, b: Buyer): Promise<void> {
  const order = b.order!;
  const connection = new Connection(net.rpcUrl, 'confirmed');
  const mint = new PublicKey(order.mint);
  const ix = createTransferCheckedInstruction(
    getAssociatedTokenAddressSync(mint, b.wallet.publicKey),
    mint,
    getAssociatedTokenAddressSync(mint, new PublicKey(order.recipient), true),
    b.wallet.publicKey,
    BigInt(order.amountBaseUnits ?? '0'),
    6,
  );
  ix.keys.push({ pubkey: new PublicKey(order.reference), isSigner: false, isWritable: false });
  const latest = await connection.getLatestBlockhash('confirmed');
  const tx = new Transaction({ feePayer: b.wallet.publicKey, ...latest }).add(ix);
  tx.sign(b.wallet);
  await connection.sendRawTransaction(tx.serialize());
}

/** The holders settle: 15 pay, 5 do not; those waiting keep the page open and buy once let through. */
export async function settle(
  net: LocalnetProcess,
  buyers: Buyer[],
  agent: ReturnType<typeof keepAliveAgent>,
  pgUrl: string,
  schema: string,
): Promise<void> {
  const holders = buyers.filter((b) => b.order);
  const payers = holders.slice(PAYERS_WHO_DO_NOT_PAY);
  const lapsing = holders.slice(0, PAYERS_WHO_DO_NOT_PAY);
  for (const b of payers) await pay(net, b);
  const deadline = Math.max(...lapsing.map((b) => Date.parse(b.order!.expiresAt)));
  const waiting = buyers.filter((b) => !b.order);
  const secondWave: { b: Buyer; at: number; ahead: number }[] = [];
  const stats = new RunStats();
  let polls = 0;
  const stopAt = deadline + 75_000; // the hold's deadline, the 30 s release sweep, the pages' next asks
  await Promise.all(
    waiting.map(async (b) => {
      let ahead = 0;
      while (Date.now() < stopAt && secondWave.length < lapsing.length) {
        await sleep(pollMs(ahead) * (0.5 + Math.random() / 2));
        const r = await call(b.server, agent, b.ip, 'POST', `/api/drops/${BENCH_DROP}/line`).catch(
          () => undefined,
        );
        polls++;
        if (!r || r.status !== 200) continue;
        const place = (JSON.parse(r.body) as DropLineResponse).place;
        if (place.state === 'waiting') ahead = place.ahead;
        if (place.state === 'done') return;
        if (place.state !== 'through') continue;
        await buyNow(b, agent, stats).catch(() => undefined);
        for (let k = 0; k < 10 && b.refused === 'drop_needs_hold'; k++) {
          await sleep(1_000);
          await buyNow(b, agent, stats).catch(() => undefined);
        }
        if (b.order) return void secondWave.push({ b, at: Date.now(), ahead });
      }
    }),
  );
  // The payers' orders: paid?
  const statuses = new Map<string, number>();
  for (const b of payers) {
    const r = await call(b.server, agent, b.ip, 'GET', `/api/orders/${b.order!.orderId}`);
    const st = r.status === 200 ? (JSON.parse(r.body) as { status: string }).status : `HTTP ${r.status}`;
    statuses.set(st, (statuses.get(st) ?? 0) + 1);
  }
  const facts = await storeFacts(pgUrl, schema);
  console.log(
    `  then: ${payers.length} holders paid on the localnet (their orders now: ${JSON.stringify(Object.fromEntries(statuses))}), ${lapsing.length} did not; their holds lapsed at ${new Date(deadline).toISOString().slice(11, 19)} UTC`,
  );
  console.log(
    `  the waiting pages asked ${polls} times; ${secondWave.length} let through and held (their place when last seen waiting: ${secondWave
      .map((x) => `${x.ahead} ahead`)
      .join(
        ', ',
      )}), ${secondWave.map((x) => ((x.at - deadline) / 1000).toFixed(1)).join(' s, ')} s after the holds' deadline (the release sweep runs every 30 s)`,
  );
  console.log(
    `  store: on_hand ${facts.onHand}, reserved ${facts.reserved}, reservations ${JSON.stringify(facts.states)}, orders ${facts.orders}`,
  );
}
