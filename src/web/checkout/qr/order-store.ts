/**
 * The QR order of a product, kept in localStorage so it survives a reload: the order id and the payment link
 * it was recorded with (the QR must keep showing that link: the server matches payments by its reference).
 * Best-effort: storage may be disabled (private mode), then the order lives as long as the page.
 */
export interface StoredQrOrder {
  orderId: string;
  productId: string;
  /** null: an unpriced order (no price was known; confirmed with 'N/A', the seller arranges payment). */
  solanaPayUrl: string | null;
  /** Six-decimal $CLAIM amount of the order (null when unpriced). */
  amount: string | null;
  quantity: number;
  /** Both confirmation e-mails were delivered. */
  confirmed: boolean;
}

const key = (productId: string) => `qr-order:${productId}`;
const ORDER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function loadQrOrder(productId: string): StoredQrOrder | null {
  try {
    const raw = window.localStorage.getItem(key(productId));
    if (!raw) return null;
    const v = JSON.parse(raw) as Partial<StoredQrOrder>;
    if (
      typeof v.orderId !== 'string' ||
      !ORDER_ID.test(v.orderId) ||
      !(
        (typeof v.solanaPayUrl === 'string' &&
          v.solanaPayUrl.startsWith('solana:') &&
          typeof v.amount === 'string') ||
        (v.solanaPayUrl === null && v.amount === null)
      ) ||
      typeof v.quantity !== 'number'
    ) {
      return null;
    }
    return {
      orderId: v.orderId,
      productId,
      solanaPayUrl: v.solanaPayUrl,
      amount: v.amount,
      quantity: v.quantity,
      confirmed: v.confirmed === true,
    };
  } catch {
    return null;
  }
}

export function saveQrOrder(order: StoredQrOrder): void {
  try {
    window.localStorage.setItem(key(order.productId), JSON.stringify(order));
  } catch {
    // storage full or disabled: the order still exists on the server
  }
}

export function forgetQrOrder(productId: string): void {
  try {
    window.localStorage.removeItem(key(productId));
  } catch {
    // ignore
  }
}
