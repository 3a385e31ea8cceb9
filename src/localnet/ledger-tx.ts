/** Submitting the localnet's own transactions (seeding, faucet, airdrops) through the normal pipeline. */
import {
  appendTransactionMessageInstructions,
  blockhash,
  compileTransaction,
  createTransactionMessage,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Instruction,
  type SignatureBytes,
} from '@solana/kit';
import type { Chain } from './chain.js';
import type { DemoSigner } from './demo-keys.js';
import type { TxRecord } from './history.js';

const wire = getTransactionEncoder();

/** A legacy transaction of `instructions` paid by `payer`, signed by it and `signers` (Node's ed25519). */
export function buildInternal(
  chain: Chain,
  payer: DemoSigner,
  signers: DemoSigner[],
  instructions: readonly Instruction[],
): Uint8Array {
  const latest = chain.latestBlockhash('processed');
  const message = pipe(
    createTransactionMessage({ version: 'legacy' }),
    (m) => setTransactionMessageFeePayer(payer.address, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: blockhash(latest.blockhash), lastValidBlockHeight: BigInt(latest.lastValidBlockHeight) },
        m,
      ),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const compiled = compileTransaction(message);
  const byAddress = new Map<string, DemoSigner>([payer, ...signers].map((s) => [s.address, s]));
  const signatures: Record<string, SignatureBytes> = {};
  for (const signer of Object.keys(compiled.signatures)) {
    const key = byAddress.get(signer);
    if (!key) throw new Error(`localnet transaction: no key for signer ${signer}`);
    signatures[signer] = key.sign(new Uint8Array(compiled.messageBytes)) as SignatureBytes;
  }
  return new Uint8Array(wire.encode({ ...compiled, signatures }));
}

export function submitInternal(
  chain: Chain,
  payer: DemoSigner,
  signers: DemoSigner[],
  instructions: readonly Instruction[],
): TxRecord {
  const d = chain.decode(buildInternal(chain, payer, signers, instructions));
  const res = chain.process(d);
  if ('dropped' in res) throw new Error(`localnet transaction dropped: ${res.dropped.message}`);
  if (res.record.err !== null)
    throw new Error(
      `localnet transaction failed: ${JSON.stringify(res.record.err)}\n${res.record.logs.join('\n')}`,
    );
  return res.record;
}
