/**
 * The open wallet order of a product, kept in localStorage so a reload (or Phantom's in-app browser reloading
 * the page) shows its live status. Only ids and the transfer signature are stored: no shipping details.
 */
export interface OpenOrder {
  orderId: string;
  signature?: string;
  savedAt: number;
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
    if (typeof v.orderId !== 'string' || typeof v.savedAt !== 'number' || Date.now() - v.savedAt > MAX_AGE_MS) return null;
    return { orderId: v.orderId, savedAt: v.savedAt, ...(typeof v.signature === 'string' ? { signature: v.signature } : {}) };
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
