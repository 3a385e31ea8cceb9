/** The wallet adapter's connection and errors, as the wallet checkout needs them. */
import type { Adapter } from '@solana/wallet-adapter-base';
import type { PublicKey } from '@solana/web3.js';
import { holdProofMessage, type PayerProof } from '../../../core/hold-proof';

/** Connects the adapter (or waits for a connection already under way). */
export function connectAdapter(adapter: Adapter): Promise<PublicKey> {
  if (adapter.connected && adapter.publicKey) return Promise.resolve(adapter.publicKey);
  return new Promise<PublicKey>((resolve, reject) => {
    const done = () => {
      adapter.off('connect', onConnect);
      adapter.off('error', onFail);
    };
    const onConnect = (pk: PublicKey) => {
      done();
      resolve(pk);
    };
    const onFail = (err: unknown) => {
      done();
      reject(err instanceof Error ? err : new Error(String(err)));
    };
    adapter.on('connect', onConnect);
    adapter.on('error', onFail);
    adapter.connect().then(() => {
      if (adapter.connected && adapter.publicKey) onConnect(adapter.publicKey);
    }, onFail);
  });
}

/** A declined wallet request: Phantom's code 4001, wrapped by the adapter (WalletSendTransactionError etc.). */
export function isUserRejection(err: unknown): boolean {
  const e = err as { code?: unknown; error?: { code?: unknown }; message?: unknown };
  return (
    e.code === 4001 ||
    e.error?.code === 4001 ||
    (typeof e.message === 'string' && /user rejected/i.test(e.message))
  );
}

function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

/**
 * The wallet signs that it pays this order (src/core/hold-proof.ts; docs/decisions/holds.md): the order holds its
 * pieces only with this proof and the money. A wallet that cannot sign messages gives none (the order is still
 * made and payable, it just holds nothing); a decline throws (the buyer said no).
 */
export async function proveWallet(
  adapter: Adapter,
  buyer: PublicKey,
  reference: string,
): Promise<PayerProof | undefined> {
  if (!('signMessage' in adapter) || typeof adapter.signMessage !== 'function') return undefined;
  const address = buyer.toBase58();
  const signature = await (adapter.signMessage as (m: Uint8Array) => Promise<Uint8Array>).call(
    adapter,
    new TextEncoder().encode(holdProofMessage(address, reference)),
  );
  return { address, signature: toBase64(signature) };
}
