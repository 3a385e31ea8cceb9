/** The wallet checkout's user-visible texts. Alerts are the spec's (§8), to the letter. */
export const NO_PHANTOM = 'Please install Phantom Wallet.';
export const BLOCKHASH_FAILED = 'Failed to get a valid blockhash. Try again.';
export const NO_TOKEN_ACCOUNT = 'You do not have a $CLAIM token account. Please receive some $CLAIM first.';
export const CONFIRMATION_SENT = 'Order confirmation sent to both seller and buyer!';
export const CONFIRMATION_FAILED = 'Failed to send order confirmation.';

export const paymentSuccessful = (amount: string, signature: string): string =>
  `Payment Successful! Sent ${amount} $CLAIM. Transaction ID: ${signature}`;
export const flowFailed = (message: string): string => `Transaction or email logic failed: ${message}`;

/** Inline notes under the button (not alerts). */
export const DECLINED_NOTE =
  'You declined the request in Phantom. Nothing was paid; your order is still awaiting payment. Click Buy Now to try again.';
export const MAIL_PENDING_NOTE =
  'Your payment went through. The confirmation e-mails have not been delivered yet; the store keeps retrying them automatically. The order status below updates by itself.';
