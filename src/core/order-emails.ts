/**
 * Which e-mails an order change causes: one pure decision, the order module's only rule for it
 * (src/server/orders/notifications.ts writes what it says to the outbox in the change's transaction). Browser-safe.
 *
 * - A payment that completes the amount: oversold → the seller's refund exception; paid late → "review before
 *   shipping" (seller, with the USD value at payment time) and the buyer; on time, a wallet order → the
 *   confirmation pair; a QR order whose details came first → the confirmation pair now (nothing was e-mailed
 *   while it was unpaid; "payment received" if a pair went before, for an order first sent without a price); a QR
 *   record without details → nothing yet (the details bring the confirmation pair, or the seller hears after the
 *   grace delay).
 * - An extra payment (after the full amount) → a note to the seller about that transfer.
 * - A short sum once the window has closed → "payment short" to the seller (and the buyer whose details are
 *   known, with the link for the missing amount): once when the order becomes underpaid (not for dust), then a
 *   note per later partial transfer.
 * - The quote's window closing on a partial sum → "payment short" (not for dust).
 * - A paid QR record still without details after the grace delay → "details missing" to the seller.
 * - The buyer's details arriving ("Send Order Confirmation") → the confirmation pair, once something was paid (or
 *   there is no price: nothing to pay here); nothing while the order is unpaid (no mail for the unpaid).
 * - The seller marking the order shipped → the buyer's "shipped" note with the tracking number; a changed
 *   tracking number → the buyer is told again.
 * - A refund recorded (checked on chain) → the buyer's "refund sent" note with the amount and transaction.
 * - (An oversold order's message goes to the seller and the buyer: see email-payload.ts.)
 * Notes about one transfer (`about: 'transfer'` or `'extra'`) are skipped for dust and batched by the writer.
 */
import type { EmailKind } from './email-payload';
import type { OrderStatus, PaymentRole } from './api';
import { FULLY_PAID } from './order-status';

export type OrderChange =
  | {
      type: 'payment';
      role: PaymentRole;
      /** The status before and after the transfer. */
      from: OrderStatus;
      to: OrderStatus;
      paymentMethod: 'wallet' | 'qr';
      hasShipping: boolean;
      /** The ledger sum with this transfer is at least the dust threshold. */
      sumAboveDust: boolean;
      /** The confirmation pair was queued before (default false). */
      confirmed?: boolean;
    }
  | { type: 'expire'; to: OrderStatus; receivedAboveDust: boolean }
  | { type: 'details_overdue' }
  /** `unpaid`: the order has a price and nothing arrived yet (awaiting payment or expired). */
  | { type: 'confirmation_requested'; unpaid: boolean }
  | { type: 'shipped' }
  | { type: 'tracking_changed' }
  | { type: 'refunded' };

export interface EmailToQueue {
  kind: EmailKind;
  /** A note about the one transfer of the change (`extra`: an overpayment), not about the order as a whole. */
  about?: 'transfer' | 'extra';
  /** paid_late: the seller's message states the transfer's USD value at its block time. */
  usdAtPayment?: true;
}

export function emailsFor(change: OrderChange): EmailToQueue[] {
  switch (change.type) {
    case 'payment': {
      const out: EmailToQueue[] = [];
      const completes = change.role === 'payment' || change.role === 'top_up';
      if (completes && change.to === 'oversold') out.push({ kind: 'payment_oversold' });
      else if (completes && FULLY_PAID.has(change.to)) {
        if (change.to === 'paid_late') out.push({ kind: 'paid_late', usdAtPayment: true });
        else if (change.paymentMethod === 'wallet') out.push({ kind: 'order_confirmation' });
        else if (change.hasShipping)
          out.push({ kind: change.confirmed ? 'payment_received' : 'order_confirmation' });
      }
      if (change.role === 'extra') out.push({ kind: 'payment_received', about: 'extra' });
      if (change.role === 'partial' && change.to === 'underpaid') {
        if (change.from === 'underpaid') out.push({ kind: 'payment_underpaid', about: 'transfer' });
        else if (change.sumAboveDust) out.push({ kind: 'payment_underpaid' });
      }
      return out;
    }
    case 'expire':
      return change.to === 'underpaid' && change.receivedAboveDust ? [{ kind: 'payment_underpaid' }] : [];
    case 'details_overdue':
      return [{ kind: 'details_missing' }];
    case 'confirmation_requested':
      return change.unpaid ? [] : [{ kind: 'order_confirmation' }];
    case 'shipped':
      return [{ kind: 'order_shipped' }];
    case 'tracking_changed':
      return [{ kind: 'tracking_updated' }];
    case 'refunded':
      return [{ kind: 'refund_sent' }];
  }
}
