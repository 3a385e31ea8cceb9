/** Referral capture (spec §1): `?ref=` on any page is stored in localStorage as `referrer`. */
export const REFERRER_KEY = 'referrer';
export const REFERRER_MAX_LENGTH = 64;

/** The cleaned referral code from a query string, or null when there is none worth keeping. */
export function referralFromSearch(search: string): string | null {
  const raw = new URLSearchParams(search).get('ref');
  if (raw === null) return null;
  // Trimmed, control characters removed, capped.
  const clean = raw
    .replace(/\p{Cc}/gu, '')
    .trim()
    .slice(0, REFERRER_MAX_LENGTH)
    .trim();
  return clean === '' ? null : clean;
}

export function captureReferral(search: string, storage: Pick<Storage, 'setItem'> | undefined): void {
  const ref = referralFromSearch(search);
  if (ref === null || !storage) return;
  try {
    storage.setItem(REFERRER_KEY, ref);
  } catch {
    // Storage full or disabled (private mode): referral capture is best-effort.
  }
}

export function storedReferrer(storage: Pick<Storage, 'getItem'> | undefined): string | undefined {
  try {
    return storage?.getItem(REFERRER_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}
