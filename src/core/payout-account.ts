/**
 * No QR to a recipient that cannot receive (docs/decisions/payout-accounts.md). A Solana Pay transfer request
 * pays the vendor's $CLAIM token account (the associated token account of its payout wallet); while that account
 * does not exist, standard wallets cannot pay the link ("Account not found"), so the store issues no payment link
 * or QR for that vendor. The wallet checkout's own transaction creates the account first (a second approval), so
 * Buy Now with a connected wallet stays open.
 *
 * Pure rules: what a check's answer means, how long it is believed, and the buyer's sentence.
 */
import { DomainError } from './errors';

/** What the store knows of a vendor's token account: it exists, it does not, or the chain could not be asked. */
export type PayoutAccountState = 'exists' | 'missing' | 'unknown';

export interface PayoutAccountEntry {
  state: PayoutAccountState;
  /** When the chain last answered (ms); for 'unknown', when the failed attempt was made. */
  checkedAt: number;
}

/**
 * How long an answer is believed (ms). An existing account is only ever closed by its owner, with nothing in it:
 * ten minutes. A missing one is asked again after 15 s, so an account created by `npm run vendor:setup` (or by a
 * wallet buyer) lets the QR pages show their QR within 15 s. A failed read is retried after 5 s. Whatever the
 * number of page views, the chain is asked at most once per period for all vendors together.
 */
export const PAYOUT_ACCOUNT_TTL_MS: Record<PayoutAccountState, number> = {
  exists: 10 * 60_000,
  missing: 15_000,
  unknown: 5_000,
};

/** Whether `entry` still answers at `now` without asking the chain. */
export function isFresh(
  entry: PayoutAccountEntry | undefined,
  now: number,
  ttl: Record<PayoutAccountState, number> = PAYOUT_ACCOUNT_TTL_MS,
): entry is PayoutAccountEntry {
  return entry !== undefined && now - entry.checkedAt < ttl[entry.state];
}

/**
 * The entry after a read at `now`: `answer` is what the chain said, or 'unknown' when it could not be asked. A
 * failed read keeps a known 'exists' (an account seen existing is not believed gone because the RPC is down; the
 * next read is retried after the 'unknown' period), but never turns 'missing' into anything payable.
 */
export function nextPayoutEntry(
  previous: PayoutAccountEntry | undefined,
  answer: PayoutAccountState,
  now: number,
  ttl: Record<PayoutAccountState, number> = PAYOUT_ACCOUNT_TTL_MS,
): PayoutAccountEntry {
  if (answer === 'unknown' && previous?.state === 'exists')
    // Keep it, but due again once the 'unknown' period is over.
    return { state: 'exists', checkedAt: now - ttl.exists + ttl.unknown };
  return { state: answer, checkedAt: now };
}

/** The buyer's sentence when a vendor cannot receive by QR or payment link yet. */
export function notSetUpMessage(vendorName: string): string {
  return `${vendorName} is not set up for QR payments yet, so no QR code or payment link is shown: a payment sent now could not reach the vendor. Please check back later.`;
}

/** The buyer's sentence when the chain could not be asked. */
export const PAYOUT_UNKNOWN_MESSAGE =
  'The payment link cannot be prepared right now (the Solana network could not be reached). Please try again in a minute.';

/**
 * The refusal for a payable link (a priced QR or a payment link) to a vendor in `state`, or null when it may be
 * issued. Missing: 409 `payout_account_missing`; unknown: 503 `payout_account_unknown` (never a QR on a guess).
 */
export function payoutRefusal(state: PayoutAccountState, vendorName: string): DomainError | null {
  if (state === 'exists') return null;
  if (state === 'missing')
    return new DomainError('conflict', 'payout_account_missing', notSetUpMessage(vendorName));
  return new DomainError('unavailable', 'payout_account_unknown', PAYOUT_UNKNOWN_MESSAGE);
}
