/**
 * The data the server sends inside the page's HTML (src/server/http/boot-data.ts): the public config and the
 * price at the moment the page was served, so a first visit does not wait two more round trips for them. Read
 * once; the price only while the page is young (its age is the document's: performance.now() counts from the
 * navigation), after which the page asks GET /api/price as before.
 */
import type { PriceOk, PublicConfig } from '../../core/api';

const ID = 'boot-data';
/** An inline price older than this (the page's own age) is not used: the page asks for a fresh one. */
export const BOOT_PRICE_MAX_AGE_MS = 30_000;

interface BootData {
  config: PublicConfig | null;
  price: PriceOk | null;
}

let read: BootData | undefined;

function bootData(): BootData {
  if (read) return read;
  read = { config: null, price: null };
  if (typeof document === 'undefined') return read;
  try {
    const text = document.getElementById(ID)?.textContent;
    const body = text ? (JSON.parse(text) as Partial<BootData>) : {};
    const c = body.config;
    if (c && typeof c.claimMint === 'string' && typeof c.pairAddress === 'string') read.config = c;
    const p = body.price;
    if (p && typeof p.priceUsd === 'string') read.price = p;
  } catch {
    // A broken block: the page asks the API as it would without one.
  }
  return read;
}

/** The public config the page was served with, or null. */
export function bootConfig(): PublicConfig | null {
  return bootData().config;
}

/**
 * The price the page was served with, once per visit, while the page is younger than BOOT_PRICE_MAX_AGE_MS;
 * `ageSeconds` counts the time since it was served. Null otherwise (then the page fetches it).
 */
export function takeBootPrice(): PriceOk | null {
  const data = bootData();
  const price = data.price;
  data.price = null;
  if (!price || typeof performance === 'undefined') return null;
  const pageAgeMs = performance.now();
  if (pageAgeMs > BOOT_PRICE_MAX_AGE_MS) return null;
  const served = typeof price.ageSeconds === 'number' ? price.ageSeconds : 0;
  return { ...price, ageSeconds: served + Math.floor(pageAgeMs / 1000) };
}
