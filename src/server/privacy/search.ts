/**
 * The seller console's search over sealed details: decrypt in the server, for the signed-in vendor's own orders
 * (docs/decisions/privacy.md, "Search"). The store cannot match a sealed value, so the console reads the
 * vendor's orders' ids and change times, opens the details it has not opened yet, and matches the search term
 * (case-insensitive substring, as before sealing) against the buyer's name, e-mail and address fields and the
 * order id.
 *
 * Opening a value costs about 25 µs (AES-256-GCM set-up dominates), so the opened search text is kept in this
 * process's memory, keyed by order id and the row's `updated_at` (every change of the details — QR details
 * attached, erasure — moves it; re-sealing under a new key does not change the text). Memory only: nothing
 * opened is written anywhere. Bounded (oldest entries dropped first).
 */
import { openShipping } from './order-data';
import type { Sealer } from './seal';

export interface SearchRow {
  id: string;
  updated_at: string;
}

export interface SearchCache {
  /**
   * The ids among `rows` whose details or id contain `term` (lower-cased). `load` returns the sealed details of
   * the ids not in the cache yet.
   */
  matching(
    rows: readonly SearchRow[],
    term: string,
    load: (ids: string[]) => Promise<{ id: string; shipping_json: string | null }[]>,
  ): Promise<Set<string>>;
  readonly size: number;
  clear(): void;
}

/** The searchable text of one order's details: its values, lower-cased, one per line. */
export function searchText(sealer: Sealer, orderId: string, shippingJson: string | null): string {
  const opened = openShipping(sealer, orderId, shippingJson);
  if (opened.state !== 'given') return '';
  return Object.entries(opened.shipping)
    .filter(([k]) => k !== 'kind')
    .map(([, v]) => String(v).toLowerCase())
    .join('\n');
}

export function createSearchCache(sealer: Sealer, maxEntries = 250_000): SearchCache {
  const cache = new Map<string, { at: string; text: string }>();
  return {
    get size() {
      return cache.size;
    },
    clear() {
      cache.clear();
    },
    async matching(rows, term, load) {
      const needle = term.toLowerCase();
      const missing = rows.filter((r) => cache.get(r.id)?.at !== r.updated_at);
      for (let i = 0; i < missing.length; i += 500) {
        const chunk = missing.slice(i, i + 500);
        const at = new Map(chunk.map((r) => [r.id, r.updated_at]));
        for (const r of await load(chunk.map((c) => c.id))) {
          cache.delete(r.id);
          cache.set(r.id, { at: at.get(r.id) ?? '', text: searchText(sealer, r.id, r.shipping_json) });
        }
      }
      while (cache.size > maxEntries) {
        const oldest = cache.keys().next().value;
        if (oldest === undefined) break;
        cache.delete(oldest);
      }
      const out = new Set<string>();
      for (const r of rows)
        if (r.id.toLowerCase().includes(needle) || (cache.get(r.id)?.text.includes(needle) ?? false))
          out.add(r.id);
      return out;
    },
  };
}
