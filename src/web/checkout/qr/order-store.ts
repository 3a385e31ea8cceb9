/**
 * The QR record of a product, kept in localStorage so it survives a reload and is resumed in a new tab on the
 * same device: the order id (the record the server made when the QR was first shown), its page link, the
 * payment link and amount it holds (the QR must keep showing that link: the server matches payments by its
 * reference) and the last quote token (a renewed quote keeps the reference). Best-effort: storage may be
 * disabled (private mode), then the record lives as long as the page.
 */
import { qrOrderKey } from '../../lib/early-record';

export interface StoredQrOrder {
  orderId: string;
  productId: string;
  /** The buyer's order page (capability link); null for records stored before it existed. */
  orderUrl: string | null;
  /** null: an unpriced order (no price was known; confirmed with 'N/A', the seller arranges payment). */
  solanaPayUrl: string | null;
  /**
   * Over HTTPS: the record's Solana Pay transaction request (`solana:https://…`), which the QR and "Open in
   * wallet" carry; `solanaPayUrl` is then the fallback ("My wallet cannot read this code").
   */
  transactionRequestUrl?: string;
  /** Six-decimal $CLAIM amount of the order (null when unpriced). */
  amount: string | null;
  quantity: number;
  /** The quote token the record holds now (renewals pass it, so the reference stays). */
  quote: string | null;
  /** The record's payment window end (ISO); null when unknown. */
  expiresAt: string | null;
  /** The shipping details were attached (Send Order Confirmation reached the server). */
  detailsSent: boolean;
  /** Both confirmation e-mails were delivered. */
  confirmed: boolean;
}

const key = qrOrderKey;
const ORDER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

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
    const orderUrl = str(v.orderUrl);
    return {
      orderId: v.orderId,
      productId,
      orderUrl: orderUrl && /^https?:\/\//.test(orderUrl) ? orderUrl : null,
      solanaPayUrl: v.solanaPayUrl,
      ...(typeof v.transactionRequestUrl === 'string' && v.transactionRequestUrl.startsWith('solana:https://')
        ? { transactionRequestUrl: v.transactionRequestUrl }
        : {}),
      amount: v.amount,
      quantity: v.quantity,
      quote: str(v.quote),
      expiresAt: str(v.expiresAt),
      // Records stored before details were separate always had them.
      detailsSent: v.detailsSent !== false,
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
