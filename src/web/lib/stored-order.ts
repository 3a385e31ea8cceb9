import { useEffect, useState } from 'react';
import { qrOrderKey } from './early-record';

/**
 * Whether this browser holds an order of the product (the QR checkout's `qr-order:<id>`, the wallet checkout's
 * `claim.walletOrder.<id>`). A sold-out page still shows the buyer's own order (its status, its QR) after a
 * reload: the piece may be sold out precisely because this buyer bought it. Read after hydration.
 */
export function useHasStoredOrder(productId: string | undefined): boolean {
  const [has, setHas] = useState(false);
  useEffect(() => {
    if (!productId) return;
    try {
      setHas(
        window.localStorage.getItem(qrOrderKey(productId)) !== null ||
          window.localStorage.getItem(`claim.walletOrder.${productId}`) !== null,
      );
    } catch {
      setHas(false); // storage disabled
    }
  }, [productId]);
  return has;
}

/** The same, read now (call after hydration only: the server's HTML never knows the browser's storage). */
export function hasStoredOrder(productId: string): boolean {
  try {
    return (
      window.localStorage.getItem(qrOrderKey(productId)) !== null ||
      window.localStorage.getItem(`claim.walletOrder.${productId}`) !== null
    );
  } catch {
    return false;
  }
}
