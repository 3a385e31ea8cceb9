import type { OrderPublic } from '../../../core/api';

export type ConfirmationOutcome = 'sent' | 'failed' | 'pending';
export type AttemptBaseline = Partial<Record<'seller' | 'buyer', number>>;

const rows = (order: OrderPublic) => order.emails.filter((e) => e.kind === 'order_confirmation');

/** Delivery attempts per recipient when the buyer pressed the button (later failures are this press's). */
export function attemptBaseline(order: OrderPublic): AttemptBaseline {
  const b: AttemptBaseline = {};
  for (const e of rows(order)) b[e.recipient] = e.attempts;
  return b;
}

/**
 * Both confirmations delivered → sent; one failed for good, or failed again since the press (retrying with more
 * attempts than at the press) → failed; otherwise still pending. The server keeps retrying a 'retrying' message
 * in the background; a new press asks it to try again now.
 */
export function confirmationOutcome(order: OrderPublic, baseline: AttemptBaseline): ConfirmationOutcome {
  const list = rows(order);
  const seller = list.find((e) => e.recipient === 'seller');
  const buyer = list.find((e) => e.recipient === 'buyer');
  if (seller?.state === 'sent' && buyer?.state === 'sent') return 'sent';
  for (const e of [seller, buyer]) {
    if (!e) continue;
    if (e.state === 'failed' || e.state === 'withheld') return 'failed';
    if (e.state === 'retrying' && e.attempts > (baseline[e.recipient] ?? 0)) return 'failed';
  }
  return 'pending';
}
