/**
 * The shipping form of a product page, kept for this tab only (sessionStorage): it survives a reload and
 * back/forward, and is dropped when the order is placed or the buyer starts over. Never localStorage (the details
 * are personal: they leave with the tab).
 */
import type { ShippingValues } from './shipping';

const key = (productId: string) => `claim.form.${productId}`;

function store(): Storage | undefined {
  try {
    return window.sessionStorage;
  } catch {
    return undefined;
  }
}

export function loadSavedForm(productId: string): ShippingValues | null {
  try {
    const raw = store()?.getItem(key(productId));
    if (!raw) return null;
    const v = JSON.parse(raw) as unknown;
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
    const out: Record<string, string> = {};
    for (const [k, x] of Object.entries(v)) if (typeof x === 'string' && x.length <= 500) out[k] = x;
    return out as ShippingValues;
  } catch {
    return null;
  }
}

export function saveForm(productId: string, values: ShippingValues): void {
  try {
    if (Object.values(values).some((x) => x && x.trim() !== ''))
      store()?.setItem(key(productId), JSON.stringify(values));
    else store()?.removeItem(key(productId));
  } catch {
    // storage full or disabled: the form just does not survive a reload
  }
}

export function clearSavedForm(productId: string): void {
  try {
    store()?.removeItem(key(productId));
  } catch {
    // ignore
  }
}
