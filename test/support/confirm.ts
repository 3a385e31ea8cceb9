/**
 * Waiting in the end-to-end tests: `until` polls for a value, `sendConfirmed` sends a transaction to the localnet
 * and waits for it to be confirmed.
 */
import { Transaction, type Connection, type Keypair, type TransactionInstruction } from '@solana/web3.js';

/** Polls `f` every 100 ms until it returns a value (not undefined); throws after `timeoutMs` naming `what`. */
export async function until<T>(
  what: string,
  f: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A signed, confirmed transaction of `ixs` paid by `signer`; returns its signature. */
export async function sendConfirmed(
  rpc: Connection,
  signer: Keypair,
  ixs: TransactionInstruction[],
): Promise<string> {
  const latest = await rpc.getLatestBlockhash('confirmed');
  const tx = new Transaction({ feePayer: signer.publicKey, ...latest }).add(...ixs);
  tx.sign(signer);
  const signature = await rpc.sendRawTransaction(tx.serialize());
  await until('transaction confirmed', async () => {
    const s = (await rpc.getSignatureStatuses([signature])).value[0];
    if (s?.err) throw new Error(`transaction failed: ${JSON.stringify(s.err)}`);
    return s?.confirmationStatus === 'confirmed' || s?.confirmationStatus === 'finalized' ? true : undefined;
  });
  return signature;
}
