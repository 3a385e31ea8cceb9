/**
 * The payout wallet in the seller console (sign-in, refunds): every Wallet Standard wallet the browser registers
 * (Phantom registers as one), no adapters of our own, never connecting by itself.
 */
import '../lib/wallet-adapter-ui.css';
import '../lib/buffer-global';
import { ConnectionProvider, WalletProvider } from '@solana/wallet-adapter-react';
import { WalletModalProvider } from '@solana/wallet-adapter-react-ui';
import { useCallback, useMemo, type ReactNode } from 'react';

export function SellerWalletProviders({ rpcUrl, children }: { rpcUrl: string; children: ReactNode }) {
  const wallets = useMemo(() => [], []);
  const onError = useCallback(() => undefined, []);
  return (
    <ConnectionProvider endpoint={rpcUrl}>
      <WalletProvider wallets={wallets} autoConnect={false} onError={onError}>
        <WalletModalProvider>{children}</WalletModalProvider>
      </WalletProvider>
    </ConnectionProvider>
  );
}
