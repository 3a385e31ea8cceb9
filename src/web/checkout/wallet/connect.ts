/** The wallet adapter's connection and errors, as the wallet checkout needs them. */
import type { Adapter } from '@solana/wallet-adapter-base';
import type { PublicKey } from '@solana/web3.js';

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
