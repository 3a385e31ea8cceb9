/**
 * The boot data block the server puts in every page (src/server/http/boot-data.ts: `<script type="application/json"
 * id="boot-data">`), parsed once; `{}` without one (the build's prerender, a broken block). Its readers check
 * their own part: ./boot.ts (config, price), ./stock.ts (the page's stock), the QR checkout (the page's first
 * quote), lib/early-record.ts. Small on purpose: the entry imports it.
 */
export const BOOT_ID = 'boot-data';
/** Inline data older than this (the page's own age) is not used: the page asks the API instead. */
export const BOOT_MAX_AGE_MS = 30_000;

let parsed: Record<string, unknown> | undefined;

export function bootBlock(): Record<string, unknown> {
  if (parsed) return parsed;
  parsed = {};
  if (typeof document === 'undefined') return parsed;
  try {
    const body: unknown = JSON.parse(document.getElementById(BOOT_ID)?.textContent || '{}');
    if (typeof body === 'object' && body !== null && !Array.isArray(body))
      parsed = body as Record<string, unknown>;
  } catch {
    // A broken block: the page asks the API as it would without one.
  }
  return parsed;
}

/** The page's age (performance.now() counts from the navigation) is within BOOT_MAX_AGE_MS. */
export function bootYoung(): boolean {
  return typeof performance !== 'undefined' && performance.now() <= BOOT_MAX_AGE_MS;
}
