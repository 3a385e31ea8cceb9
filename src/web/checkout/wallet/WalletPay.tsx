/**
 * Wallet checkout, spec §4 "Wallet purchase flow". Default export: loaded lazily by the product page, so the
 * wallet code (@solana/kit, the Wallet Standard, the picker and its CSS) lives in this chunk only. This file sets
 * up the wallet session (autoConnect: a remembered wallet reconnects silently) and, on Android, registers the
 * Mobile Wallet Adapter; the checkout itself is WalletCheckout.tsx, its order attempt attempt.ts.
 */
import { useEffect } from 'react';
import { useConfig } from '../../api/config';
import { WalletSessionProvider } from '../../components/WalletSession';
import { registerMobileWallet } from '../../lib/mobile-wallet';
import type { CheckoutProps } from '../types';
import { WalletCheckout } from './WalletCheckout';

function LoadingButton() {
  return (
    <button type="button" className="button big buy-now" disabled>
      Loading Price...
    </button>
  );
}

export default function WalletPay(props: CheckoutProps) {
  const config = useConfig();
  const cluster = config.status === 'known' ? config.config.cluster : null;
  useEffect(() => {
    if (cluster) registerMobileWallet(cluster);
  }, [cluster]);
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
    <WalletSessionProvider autoConnect>
      <WalletCheckout {...props} config={config.config} />
    </WalletSessionProvider>
  );
}
