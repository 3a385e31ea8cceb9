/**
 * What `npm start` prints in demo mode after "$CLAIM store on …": the demo's addresses, so a newcomer needs
 * nothing else to try it (issue 33, item 10). Pure: the caller prints it.
 */
import type { Catalog } from '../core/catalog';

export interface DemoBannerInput {
  /** The store's address as bound (http://127.0.0.1:3000). */
  storeUrl: string;
  /** The localnet's JSON-RPC address (its faucet is POST <rpcUrl>/faucet). */
  localnetRpcUrl: string;
  catalog: Catalog;
}

export function demoBanner(input: DemoBannerInput): string[] {
  const store = input.storeUrl.replace(/\/+$/, '');
  const rpc = input.localnetRpcUrl.replace(/\/+$/, '');
  // The pages that take QR payments: each QR product's first route.
  const qrPages = input.catalog.products
    .filter((p) => p.payment === 'qr')
    .map((p) => p.routes[0])
    .filter((r): r is string => r !== undefined);
  const storePort = new URL(store).port;
  return [
    'Demo addresses:',
    `  shop              ${store}/`,
    `  QR payment pages  ${qrPages.map((r) => `${store}${r}`).join(', ')}`,
    `  seller console    ${store}/seller  (button "Sign in as demo vendor": no wallet needed)`,
    `  mail sent         ${store}/dev/mail  (every e-mail, as its recipient sees it)`,
    `  price control     ${store}/dev/price  (or npm run demo:price -- pump|dump|thin|split|normal)`,
    `  faucet            POST ${rpc}/faucet  {"address":"<public key>","sol":1,"claim":100000}`,
    `  pay a QR link     ${storePort === '3000' ? '' : `PORT=${storePort} `}npm run demo:pay -- '<solana: link from a QR page>'`,
    '  A wallet on a phone or another computer cannot reach this local network (127.0.0.1 only), and a wallet on',
    '  mainnet does not see it: pay QR links with demo:pay; a browser wallet here needs the RPC address above.',
  ];
}
