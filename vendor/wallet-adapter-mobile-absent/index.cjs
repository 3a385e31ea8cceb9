'use strict';
// CommonJS twin of index.js (same behaviour; see there).
const { BaseWalletAdapter, WalletNotReadyError, WalletReadyState } = require('@solana/wallet-adapter-base');

const SolanaMobileWalletAdapterWalletName = 'Mobile Wallet Adapter';

class SolanaMobileWalletAdapter extends BaseWalletAdapter {
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

module.exports = {
  SolanaMobileWalletAdapterWalletName,
  SolanaMobileWalletAdapter,
  createDefaultAddressSelector: () => ({ select: async (addresses) => addresses[0] }),
  createDefaultAuthorizationResultCache: () => ({
    clear: async () => {},
    get: async () => undefined,
    set: async () => {},
  }),
  createDefaultWalletNotFoundHandler: () => async () => {},
};
