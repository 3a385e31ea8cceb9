import { formatBaseUnits } from '../../../core/money';
import { ApiRequestError } from '../../lib/call';
import type { Shortfall } from './stops';
/** The wallet checkout's user-visible texts. Alerts are the spec's (§8), to the letter. */
export const NO_PHANTOM = 'Please install Phantom Wallet.';
export const BLOCKHASH_FAILED = 'Failed to get a valid blockhash. Try again.';
export const NO_TOKEN_ACCOUNT = 'You do not have a $CLAIM token account. Please receive some $CLAIM first.';
export const CONFIRMATION_SENT = 'Order confirmation sent to both seller and buyer!';
export const CONFIRMATION_FAILED = 'Failed to send order confirmation.';

export const paymentSuccessful = (amount: string, signature: string): string =>
  `Payment Successful! Sent ${amount} $CLAIM. Transaction ID: ${signature}`;
export const flowFailed = (message: string): string => `Transaction or email logic failed: ${message}`;

/** The alert when the buyer declines in the wallet (a refusal, not a crash: a plain sentence). */
/**
 * The payment-link path while the vendor's $CLAIM token account does not exist: no link or QR (standard wallets
 * cannot pay it); the wallet path stays, since its transaction creates the account first.
 */
export const payLinkRefused = (serverMessage: string | undefined, missing: boolean): string =>
  `${serverMessage ?? 'The payment link cannot be prepared right now. Please try again in a minute.'}${
    missing
      ? ' To pay now, open this page in the Phantom app: your wallet creates the vendor’s account first (one more approval).'
      : ''
  }`;
export const DECLINED = 'You declined the request in your wallet. Nothing was paid.';

/** Inline notes under the button (not alerts). */
export const DECLINED_NOTE =
  'You declined the request in Phantom. Nothing was paid; your order is still awaiting payment. Click Buy Now to try again.';
/** Declined the hold message (before any order): no order was made (the spec has no text; plain words). */
export const NOT_SIGNED_NOTE =
  'You declined the request in your wallet. Nothing was paid and no order was made. Click Buy Now to try again.';
export const MAIL_PENDING_NOTE =
  'Your payment went through. The confirmation e-mails have not been delivered yet; the store keeps retrying them automatically. The order status below updates by itself.';
/** Android: the Mobile Wallet Adapter found no wallet app on the phone. */
export const MOBILE_WALLET_NOT_FOUND =
  'No wallet app on this phone answered. Install a Solana wallet app (Phantom, Solflare), or choose Select Wallet and pay with a payment link or QR code instead.';
/** What happens when an awaiting order's time runs out (shown in place of the time left). */
export const TIME_UP =
  'Time is up: this order can no longer be paid, and nothing was taken from your wallet for it. Click Buy Now to start a new order at the current price.';

/** SOL from lamports, without trailing zeros (0.00203928). Integer arithmetic only. */
export function formatSol(lamports: number): string {
  const whole = Math.floor(lamports / 1e9);
  const frac = String(lamports % 1e9)
    .padStart(9, '0')
    .replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : String(whole);
}

/** What the wallet lacks, found before any order is made (shown next to Buy Now with a link to the guide). */
export function shortfallText(s: Shortfall): string {
  switch (s.kind) {
    case 'no-token-account':
      return 'Your wallet has no $CLAIM yet. Get some $CLAIM first, then click Buy Now again. No order was created.';
    case 'claim':
      return `Your wallet holds ${formatBaseUnits(s.have)} $CLAIM, but this order needs ${formatBaseUnits(s.need)} $CLAIM. Get more $CLAIM first, then click Buy Now again. No order was created.`;
    case 'sol':
      return `Your wallet has ${formatSol(s.haveLamports)} SOL, but ${formatSol(s.needLamports)} SOL is needed for the network fee${s.createsSellerAccount ? " and a one-time deposit that opens the seller's $CLAIM account" : ''}. Add a little SOL to this wallet, then click Buy Now again. No order was created.`;
  }
}

/** The extra approval: the seller has no $CLAIM account yet, so this first purchase opens it. */
export const SELLER_ACCOUNT_NOTE =
  'This seller has no $CLAIM account yet. Your wallet will first ask you to approve opening it (a one-time deposit of about 0.002 SOL, paid by you), then to approve the payment itself.';

const rawText = (err: unknown): string => {
  const e = err as { name?: unknown; message?: unknown; logs?: unknown; error?: { message?: unknown } };
  return [e.name, e.message, e.error?.message, Array.isArray(e.logs) ? e.logs.join(' ') : '']
    .filter((x) => typeof x === 'string')
    .join(' ');
};

/**
 * Any error the wallet flow can meet, as a plain sentence for the buyer (the raw error goes to the console).
 * `sent`: a transfer was already handed to the network, so the money may have moved.
 */
export function plainError(err: unknown, sent: boolean): string {
  if (err instanceof ApiRequestError) {
    if (err.status === 0) return 'The store could not be reached. Check your connection and try again.';
    return err.message;
  }
  const raw = rawText(err);
  if (/user rejected|4001/i.test(raw)) return 'User rejected the request.';
  if (/no installed wallet that supports the mobile wallet protocol|ERROR_WALLET_NOT_FOUND/i.test(raw))
    return MOBILE_WALLET_NOT_FOUND;
  if (sent)
    return 'Your payment was sent, but its confirmation could not be checked here. The order status below updates by itself.';
  if (/no record of a prior credit|insufficient lamports|insufficient funds for (fee|rent)/i.test(raw))
    return 'Your wallet does not have enough SOL to pay the network fee. Nothing was paid.';
  if (/custom program error: 0x1\b|insufficient funds/i.test(raw))
    return 'Your wallet does not hold enough $CLAIM for this payment. Nothing was paid.';
  if (/blockhash not found|block height exceeded|has expired/i.test(raw))
    return 'The network did not take the payment in time. Nothing was paid; click Buy Now to try again.';
  if (
    /not connected|WalletConnection|WalletNotReady|WalletAccount|WalletDisconnected|connected no account/i.test(
      raw,
    )
  )
    return 'Your wallet is not connected. Connect it with Select Wallet, then click Buy Now again.';
  if (/timed out|timeout/i.test(raw))
    return 'The Solana network did not answer in time. Nothing was paid; please try again in a moment.';
  if (/failed to fetch|networkerror|network request failed|load failed/i.test(raw))
    return 'The Solana network could not be reached. Nothing was paid; please try again in a moment.';
  return 'Something went wrong before the payment was made. Nothing was paid; please try again.';
}
