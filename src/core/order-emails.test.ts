import { describe, expect, it } from 'vitest';
import type { OrderStatus, PaymentRole } from './api';
import { emailsFor, type EmailToQueue, type OrderChange } from './order-emails';

const payment = (
  role: PaymentRole,
  from: OrderStatus,
  to: OrderStatus,
  more: Partial<Extract<OrderChange, { type: 'payment' }>> = {},
): OrderChange => ({
  type: 'payment',
  role,
  from,
  to,
  paymentMethod: 'wallet',
  hasShipping: true,
  sumAboveDust: true,
  ...more,
});

const table: [string, OrderChange, EmailToQueue[]][] = [
  [
    'wallet order paid on time',
    payment('payment', 'awaiting_payment', 'paid'),
    [{ kind: 'order_confirmation' }],
  ],
  [
    'wallet order paid on time, all finalized',
    payment('payment', 'awaiting_payment', 'final'),
    [{ kind: 'order_confirmation' }],
  ],
  [
    'QR order whose details came first, paid: the confirmation pair now',
    payment('payment', 'awaiting_payment', 'paid', { paymentMethod: 'qr' }),
    [{ kind: 'order_confirmation' }],
  ],
  [
    'QR order confirmed before (sent without a price), paid',
    payment('payment', 'awaiting_payment', 'paid', { paymentMethod: 'qr', confirmed: true }),
    [{ kind: 'payment_received' }],
  ],
  [
    'QR record paid before its details',
    payment('payment', 'awaiting_payment', 'paid', { paymentMethod: 'qr', hasShipping: false }),
    [],
  ],
  [
    'paid after the quote expired',
    payment('payment', 'expired', 'paid_late'),
    [{ kind: 'paid_late', usdAtPayment: true }],
  ],
  [
    'top-up completing an underpaid order late',
    payment('top_up', 'underpaid', 'paid_late'),
    [{ kind: 'paid_late', usdAtPayment: true }],
  ],
  [
    'paid in full, stock lost meanwhile',
    payment('payment', 'expired', 'oversold'),
    [{ kind: 'payment_oversold' }],
  ],
  [
    'an extra payment after the full amount',
    payment('extra', 'paid', 'paid'),
    [{ kind: 'payment_received', about: 'extra' }],
  ],
  [
    'an extra payment to a shipped order',
    payment('extra', 'shipped', 'shipped'),
    [{ kind: 'payment_received', about: 'extra' }],
  ],
  ['a partial transfer inside the window', payment('partial', 'awaiting_payment', 'awaiting_payment'), []],
  [
    'a short sum after the window: the order becomes underpaid',
    payment('partial', 'expired', 'underpaid'),
    [{ kind: 'payment_underpaid' }],
  ],
  ['the same, but the sum is dust', payment('partial', 'expired', 'underpaid', { sumAboveDust: false }), []],
  [
    'another partial transfer to an underpaid order',
    payment('partial', 'underpaid', 'underpaid', { sumAboveDust: false }),
    [{ kind: 'payment_underpaid', about: 'transfer' }],
  ],
  [
    'window closes on a partial sum',
    { type: 'expire', to: 'underpaid', receivedAboveDust: true },
    [{ kind: 'payment_underpaid' }],
  ],
  ['window closes on dust', { type: 'expire', to: 'underpaid', receivedAboveDust: false }, []],
  ['window closes on nothing', { type: 'expire', to: 'expired', receivedAboveDust: false }, []],
  [
    'QR record paid without details past the grace delay',
    { type: 'details_overdue' },
    [{ kind: 'details_missing' }],
  ],
  [
    'the buyer sends the details after paying (or with no price)',
    { type: 'confirmation_requested', unpaid: false },
    [{ kind: 'order_confirmation' }],
  ],
  [
    'the buyer sends the details before paying: no mail',
    { type: 'confirmation_requested', unpaid: true },
    [],
  ],
  ['the seller marks the order shipped', { type: 'shipped' }, [{ kind: 'order_shipped' }]],
  ['the seller changes the tracking number', { type: 'tracking_changed' }, [{ kind: 'tracking_updated' }]],
  ['a refund is recorded', { type: 'refunded' }, [{ kind: 'refund_sent' }]],
];

describe('emailsFor: the e-mails an order change causes', () => {
  it.each(table)('%s', (_name, change, expected) => {
    expect(emailsFor(change)).toEqual(expected);
  });
});
