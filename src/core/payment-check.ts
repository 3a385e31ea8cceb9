/**
 * The buyer's words while the store cannot see payments arrive (its Solana RPC does not answer, or the payment
 * watcher is far behind): the order's `paymentCheck: 'delayed'` (GET /api/orders/:id, the order page). Pure and
 * browser-safe.
 */
export const PAYMENT_CHECK_DELAYED =
  'We cannot check the Solana network right now, so a payment may take longer to show here. ' +
  'A payment you sent is not lost: it will show as soon as we can check it, and the time it was sent counts.';
