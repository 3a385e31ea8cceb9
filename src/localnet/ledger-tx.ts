/** Submitting the localnet's own transactions (seeding, faucet, airdrops) through the normal pipeline. */
import { Transaction, type Keypair, type TransactionInstruction } from '@solana/web3.js';
import type { Chain } from './chain.js';
import type { TxRecord } from './history.js';

export function submitInternal(
  chain: Chain,
  payer: Keypair,
  signers: Keypair[],
  instructions: TransactionInstruction[],
): TxRecord {
  const tx = new Transaction();
  tx.add(...instructions);
  tx.feePayer = payer.publicKey;
  tx.recentBlockhash = chain.latestBlockhash('processed').blockhash;
  tx.sign(payer, ...signers.filter((s) => !s.publicKey.equals(payer.publicKey)));
  const d = chain.decode(new Uint8Array(tx.serialize()));
  const res = chain.process(d);
  if ('dropped' in res) throw new Error(`localnet transaction dropped: ${res.dropped.message}`);
  if (res.record.err !== null)
    throw new Error(
      `localnet transaction failed: ${JSON.stringify(res.record.err)}\n${res.record.logs.join('\n')}`,
    );
  return res.record;
}
