import type { PublicConfig } from './api';

/**
 * The Solana Explorer page of a transaction, for the store's cluster. Mainnet needs no parameter; devnet/testnet
 * name the cluster; the localnet is a custom cluster reached at its RPC URL (the explorer runs in the visitor's
 * browser, so a local RPC address works for a local demo). Shared by the pages and the e-mails.
 */
export function explorerTxUrl(
  signature: string,
  config: Pick<PublicConfig, 'cluster' | 'rpcUrl'> | undefined,
): string {
  const base = `https://explorer.solana.com/tx/${encodeURIComponent(signature)}`;
  if (!config || config.cluster === 'mainnet-beta') return base;
  if (config.cluster === 'localnet')
    return `${base}?cluster=custom&customUrl=${encodeURIComponent(config.rpcUrl)}`;
  return `${base}?cluster=${config.cluster}`;
}
