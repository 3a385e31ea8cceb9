/**
 * The Solana Mobile Wallet Adapter (Android's MWA) is not offered by this store. @solana/wallet-adapter-react
 * imports this module and, on Android Chrome with no installed wallet, builds a SolanaMobileWalletAdapter; this
 * one reports `Unsupported`, so the wallet modal never lists it and nothing connects through it. Phantom's
 * in-app browser and desktop wallets reach the store as injected / Wallet Standard wallets, as before.
 * Installed in place of the real package through package.json `overrides` (no react-native, metro or jest).
 */
import { BaseWalletAdapter, WalletNotReadyError, WalletReadyState } from '@solana/wallet-adapter-base';

export const SolanaMobileWalletAdapterWalletName = 'Mobile Wallet Adapter';

export class SolanaMobileWalletAdapter extends BaseWalletAdapter {
  name = SolanaMobileWalletAdapterWalletName;
  url = 'https://solanamobile.com/wallets';
  icon =
    'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAxIDEiLz4=';
  readyState = WalletReadyState.Unsupported;
  publicKey = null;
  connecting = false;
  supportedTransactionVersions = null;

  async connect() {
    const error = new WalletNotReadyError('The Mobile Wallet Adapter is not offered by this store.');
    this.emit('error', error);
    throw error;
  }

  async disconnect() {}

  async sendTransaction() {
    throw new WalletNotReadyError('The Mobile Wallet Adapter is not offered by this store.');
  }
}

export function createDefaultAddressSelector() {
  return { select: async (addresses) => addresses[0] };
}

export function createDefaultAuthorizationResultCache() {
  return { clear: async () => {}, get: async () => undefined, set: async () => {} };
}

export function createDefaultWalletNotFoundHandler() {
  return async () => {};
}
