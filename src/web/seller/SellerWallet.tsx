/**
 * The payout wallet in the seller console (sign-in, refunds): every Wallet Standard wallet the browser registers
 * (src/web/components/WalletSession.tsx), the shop's own picker, never connecting by itself.
 */
import type { ReactNode } from 'react';
import { WalletSessionProvider } from '../components/WalletSession';

export function SellerWalletProviders({ children }: { children: ReactNode }) {
  return <WalletSessionProvider autoConnect={false}>{children}</WalletSessionProvider>;
}
