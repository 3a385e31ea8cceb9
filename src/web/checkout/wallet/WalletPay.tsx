/**
 * Wallet checkout (Phantom), spec §4 "Wallet purchase flow". Default export: loaded lazily by the product page,
 * so @solana/web3.js, spl-token and the wallet adapter (and its modal's CSS) live in this chunk only. This file
 * sets up the providers; the checkout itself is WalletCheckout.tsx, its order attempt attempt.ts.
 */
import '../../lib/wallet-adapter-ui.css';
import '../../lib/buffer-global';
import { ConnectionProvider, WalletProvider } from '@solana/wallet-adapter-react';
import { useCallback, useMemo } from 'react';
import { useConfig } from '../../api/config';
import type { CheckoutProps } from '../types';
import { WalletCheckout } from './WalletCheckout';
import { WalletModalProvider } from './WalletModal';

function LoadingButton() {
  return (
    <button type="button" className="button big buy-now" disabled>
      Loading Price...
    </button>
  );
}

export default function WalletPay(props: CheckoutProps) {
  const config = useConfig();
  // No adapters of our own: WalletProvider offers every Wallet Standard wallet the browser registers, Phantom
  // included (it registers as one, so its legacy adapter would be a duplicate). With none, the modal says
  // "You'll need a wallet on Solana to continue" (spec §2) instead of listing an undetected Phantom.
  const wallets = useMemo(() => [], []);
  // Errors are reported by the flow itself (alerts, inline notes); the provider's default logs them instead.
  const onError = useCallback(() => undefined, []);
  if (config.status === 'loading') return <LoadingButton />;
  if (config.status === 'failed') {
    return (
      <div className="pay">
        <LoadingButton />
        <p className="error">The store settings could not be loaded. Please reload the page.</p>
      </div>
    );
  }
  return (
    <ConnectionProvider
      endpoint={config.config.rpcUrl}
      config={{ commitment: 'confirmed', wsEndpoint: config.config.wsUrl }}
    >
      <WalletProvider wallets={wallets} autoConnect onError={onError}>
        <WalletModalProvider>
          <WalletCheckout {...props} config={config.config} />
        </WalletModalProvider>
      </WalletProvider>
    </ConnectionProvider>
  );
}
