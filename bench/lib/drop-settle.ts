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

/** The holder `b` pays their order on the localnet (a transfer with the order's reference); its signature. */
export async function pay(connection: Connection, b: Buyer): Promise<string> {
  const order = b.order!;
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
  return connection.sendRawTransaction(tx.serialize());
}

export interface Settled {
  paid: number;
  /** Payments confirmed on the localnet without error, and what the vendor's account received over what was due. */
  confirmedOnChain: number;
  receivedOverDue: string;
  lapsed: number;
  nextInLine: number;
  /** Seconds from the lapsed holds' deadline to each of the next in line holding their piece. */
  afterDeadlineS: number[];
  agree: boolean;
}

/**
 * The holders settle: all but 5 pay on the localnet, 5 do not; those waiting keep the page open (asking for their
 * place at the page's own pace) and buy once let through. Then checked: the payments on the localnet (confirmed,
 * and the vendor's $CLAIM account up by exactly what the orders asked), the orders' statuses and the store.
 */
export async function settle(
  net: LocalnetProcess,
  buyers: Buyer[],
  agent: ReturnType<typeof keepAliveAgent>,
  pgUrl: string,
  schema: string,
): Promise<Settled> {
  const holders = buyers.filter((b) => b.order);
  const payers = holders.slice(PAYERS_WHO_DO_NOT_PAY);
  const lapsing = holders.slice(0, PAYERS_WHO_DO_NOT_PAY);
  const connection = new Connection(net.rpcUrl, 'confirmed');
  const first = holders[0]!.order!;
  const vendorAccount = getAssociatedTokenAddressSync(
    new PublicKey(first.mint),
    new PublicKey(first.recipient),
    true,
  );
  const balance = async () =>
    BigInt((await connection.getTokenAccountBalance(vendorAccount, 'confirmed')).value.amount);
  const before = await balance();
  const due = payers.reduce((n, b) => n + BigInt(b.order!.amountBaseUnits ?? '0'), 0n);
  const signatures: string[] = [];
  for (const b of payers) signatures.push(await pay(connection, b));
  const deadline = Math.max(...lapsing.map((b) => Date.parse(b.order!.expiresAt)));
  const waiting = buyers.filter((b) => !b.order);
  const secondWave: { b: Buyer; at: number; ahead: number }[] = [];
  const stats = new RunStats();
  let polls = 0;
  // The hold's deadline, the pages' next asks (a waiting page's read gives the lapsed hold back), with room for the
  // 30 s release sweep should that not happen.
  const stopAt = deadline + 75_000;
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
  // On the localnet: every payment confirmed without error, and the vendor's account up by what was due.
  const onChain = (await connection.getSignatureStatuses(signatures)).value.filter(
    (v) => v && !v.err && (v.confirmationStatus === 'confirmed' || v.confirmationStatus === 'finalized'),
  ).length;
  const received = (await balance()) - before;
  // The payers' orders, as their pages see them.
  const statuses = new Map<string, number>();
  for (const b of payers) {
    const r = await call(b.server, agent, b.ip, 'GET', `/api/orders/${b.order!.orderId}`);
    const st = r.status === 200 ? (JSON.parse(r.body) as { status: string }).status : `HTTP ${r.status}`;
    statuses.set(st, (statuses.get(st) ?? 0) + 1);
  }
  const paidOrders = (statuses.get('paid') ?? 0) + (statuses.get('final') ?? 0);
  const f = await storeFacts(pgUrl, schema);
  const units = holders.length;
  const n = secondWave.length;
  const agree =
    onChain === payers.length &&
    received === due &&
    paidOrders === payers.length &&
    (f.states.sold ?? 0) === payers.length &&
    (f.states.released ?? 0) === lapsing.length &&
    (f.states.held ?? 0) === n &&
    f.onHand === units - payers.length &&
    f.reserved === n &&
    f.last?.onHand === f.onHand &&
    f.last?.reserved === f.reserved &&
    (f.kinds.reserve ?? 0) === units + n &&
    (f.kinds.sale ?? 0) === payers.length &&
    (f.kinds.release ?? 0) === lapsing.length &&
    f.orders === units + n;
  const afterDeadlineS = secondWave.map((x) => (x.at - deadline) / 1000);
  console.log(
    `  then: ${payers.length} holders paid on the localnet (${onChain} payments confirmed; the vendor's account received ${received} base units, ${received === due ? 'exactly what the orders asked' : `the orders asked ${due}`}; their orders now ${JSON.stringify(Object.fromEntries(statuses))}), ${lapsing.length} did not: their holds lapsed at ${new Date(deadline).toISOString().slice(11, 19)} UTC`,
  );
  console.log(
    `  the waiting pages asked ${polls} times; ${n} let through and held (their place when last seen waiting: ${secondWave
      .map((x) => `${x.ahead} ahead`)
      .join(
        ', ',
      )}), ${afterDeadlineS.map((x) => x.toFixed(1)).join(' s, ')} s after the holds' deadline (a waiting page's read gives a lapsed hold back)`,
  );
  console.log(
    `  store: on_hand ${f.onHand}, reserved ${f.reserved}, reservations ${JSON.stringify(f.states)}, stock log ${JSON.stringify(f.kinds)} (last row on_hand ${f.last?.onHand}, reserved ${f.last?.reserved}), orders ${JSON.stringify(f.statuses)}: ${agree ? 'agree' : 'DISAGREE'} (expected: sold ${payers.length}, released ${lapsing.length}, held ${n}, on_hand ${units - payers.length})`,
  );
  return {
    paid: payers.length,
    confirmedOnChain: onChain,
    receivedOverDue: `${received}/${due}`,
    lapsed: lapsing.length,
    nextInLine: n,
    afterDeadlineS,
    agree,
  };
}
