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
  return withCluster(`https://explorer.solana.com/tx/${encodeURIComponent(signature)}`, config);
}

/** The Solana Explorer page of an address (a wallet or a token account), for the store's cluster. */
export function explorerAddressUrl(
  address: string,
  config: Pick<PublicConfig, 'cluster' | 'rpcUrl'> | undefined,
): string {
  return withCluster(`https://explorer.solana.com/address/${encodeURIComponent(address)}`, config);
}

function withCluster(base: string, config: Pick<PublicConfig, 'cluster' | 'rpcUrl'> | undefined): string {
  if (!config || config.cluster === 'mainnet-beta') return base;
  if (config.cluster === 'localnet')
    return `${base}?cluster=custom&customUrl=${encodeURIComponent(config.rpcUrl)}`;
  return `${base}?cluster=${config.cluster}`;
}
