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

/**
 * Whether a stored wallet order (`claim.walletOrder.<id>`'s JSON, ../checkout/wallet/open-order.ts) may be what
 * holds the product's stock now: unpaid (no transfer sent), its quote still open, and the server said it holds
 * (`held`: only with the paying wallet's proof of the money, docs/decisions/holds.md). A wallet order made without
 * the proof holds nothing, nor does a paid one (sold, not held); a QR record never holds (the payment, once seen,
 * sells the piece), so it is not asked.
 */
export function walletOrderHolds(raw: string | null, nowMs: number): boolean {
  if (!raw) return false;
  try {
    const v = JSON.parse(raw) as {
      signature?: unknown;
      unpaid?: { order?: { held?: unknown; expiresAt?: unknown } };
    };
    const order = v.unpaid?.order;
    return (
      v.signature === undefined &&
      order?.held === true &&
      typeof order.expiresAt === 'string' &&
      Date.parse(order.expiresAt) > nowMs
    );
  } catch {
    return false;
  }
}

/**
 * This browser's own order may be what holds the product (read now, after hydration only): the product page's
 * "Reserved" note says "held for an unpaid order" then, "reserved by another buyer" otherwise.
 */
export function hasStoredHold(productId: string): boolean {
  try {
    return walletOrderHolds(window.localStorage.getItem(`claim.walletOrder.${productId}`), Date.now());
  } catch {
    return false;
  }
}
