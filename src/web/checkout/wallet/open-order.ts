import type { OrderCreated } from '../../../core/api';
import { ORDER_TOKEN, paths } from '../../../core/routes';

/**
 * The order page's path from the server's `orderUrl` (PUBLIC_URL + /order/<token>), or a path already in that
 * form; undefined for anything else. A same-site path, so the link works whatever origin PUBLIC_URL names.
 */
export function orderPathOf(orderUrl: string): string | undefined {
  let pathname: string;
  try {
    pathname = new URL(orderUrl, 'http://x.invalid').pathname;
  } catch {
    return undefined;
  }
  const token = /^\/order\/([^/]+)$/.exec(pathname)?.[1];
  return token && ORDER_TOKEN.test(token) ? paths.order(token) : undefined;
}

/**
 * The open wallet order of a product, kept in localStorage so a reload (or Phantom's in-app browser reloading
 * the page) shows its live status. Only ids and the transfer signature are stored: no shipping details.
 */
export interface OpenOrder {
  orderId: string;
  signature?: string;
  savedAt: number;
  /** The buyer's order page, as a same-site path (`/order/<token>`), from the server's `orderUrl`. */
  orderPath?: string;
  /** The order's Solana Pay link, when the buyer chose to pay from a wallet app (phone without a wallet browser). */
  payLink?: string;
  /**
   * While unpaid: what is needed to pay this same order again after a reload (the server's OrderCreated and the
   * Idempotency-Key), keyed by a hash of the purchase inputs, never the inputs themselves.
   */
  unpaid?: { inputHash: string; key: string; order: OrderCreated };
}

const KEY_PREFIX = 'claim.walletOrder.';
const MAX_AGE_MS = 7 * 24 * 3600_000;

function storage(): Storage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
}

export function loadOpenOrder(productId: string): OpenOrder | null {
  try {
    const raw = storage()?.getItem(KEY_PREFIX + productId);
    if (!raw) return null;
    const v = JSON.parse(raw) as Partial<OpenOrder>;
    if (typeof v.orderId !== 'string' || typeof v.savedAt !== 'number' || Date.now() - v.savedAt > MAX_AGE_MS)
      return null;
    const u = v.unpaid;
    const unpaid =
      u &&
      typeof u.inputHash === 'string' &&
      typeof u.key === 'string' &&
      typeof u.order?.orderId === 'string' &&
      u.order.orderId === v.orderId
        ? u
        : undefined;
    return {
      orderId: v.orderId,
      savedAt: v.savedAt,
      ...(typeof v.signature === 'string' ? { signature: v.signature } : {}),
      ...(typeof v.orderPath === 'string' && orderPathOf(v.orderPath) ? { orderPath: v.orderPath } : {}),
      ...(typeof v.payLink === 'string' && v.payLink.startsWith('solana:') ? { payLink: v.payLink } : {}),
      ...(unpaid ? { unpaid } : {}),
    };
  } catch {
    return null;
  }
}

export function saveOpenOrder(productId: string, order: OpenOrder): void {
  try {
    storage()?.setItem(KEY_PREFIX + productId, JSON.stringify(order));
  } catch {
    // Storage full or disabled: the live status just won't survive a reload.
  }
}

export function clearOpenOrder(productId: string): void {
  try {
    storage()?.removeItem(KEY_PREFIX + productId);
  } catch {
    // ignore
  }
}

/** A short non-reversible-at-a-glance digest of the purchase inputs (FNV-1a, 2 × 32 bits); not a secret. */
export function inputHash(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c ^ (a >>> 7), 0x01000193) >>> 0;
  }
  return a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0');
}
