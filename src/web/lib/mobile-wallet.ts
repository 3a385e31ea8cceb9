/**
 * Android's Mobile Wallet Adapter as a Wallet Standard wallet (@solana-mobile/wallet-standard-mobile): on an
 * Android browser it registers "Mobile Wallet Adapter", which the picker offers as "Use a wallet app on this
 * phone"; choosing it starts the protocol (an intent to the wallet app on the phone: Phantom, Solflare, Seed
 * Vault…), and the app connects, signs and sends for the page. Loaded only on Android (its own chunk), registered
 * once. When no wallet app answers, the picker's caller says so in plain words (`onMobileWalletNotFound`).
 */
import type { PublicConfig } from '../../core/api';
import { chainOf } from './wallets';

let registered = false;
const notFoundListeners = new Set<() => void>();

/** Android (the protocol's local association is Android-only; other phones use the phone paths). */
export const isAndroid = (): boolean =>
  typeof navigator !== 'undefined' && /android/i.test(navigator.userAgent);

/** Registers the Mobile Wallet Adapter on Android browsers (once per page). */
export function registerMobileWallet(cluster: PublicConfig['cluster']): void {
  if (registered || !isAndroid()) return;
  registered = true;
  import('@solana-mobile/wallet-standard-mobile').then(
    (mwa) =>
      mwa.registerMwa({
        appIdentity: {
          name: '$CLAIM shop',
          uri: window.location.origin,
          icon: '/favicon.svg',
        },
        authorizationCache: mwa.createDefaultAuthorizationCache(),
        chains: [chainOf(cluster)],
        chainSelector: mwa.createDefaultChainSelector(),
        // Our own words instead of the library's pop-up (WalletCheckout shows them beside Buy Now).
        onWalletNotFound: () => {
          for (const l of notFoundListeners) l();
          return Promise.resolve();
        },
      }),
    (err: unknown) => {
      registered = false; // offline or a new deployment: tried again on the next checkout
      console.warn('The Mobile Wallet Adapter could not be loaded:', err);
    },
  );
}

/** Called when the protocol found no wallet app on the phone; returns the unsubscribe. */
export function onMobileWalletNotFound(listener: () => void): () => void {
  notFoundListeners.add(listener);
  return () => notFoundListeners.delete(listener);
}
