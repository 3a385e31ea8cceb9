/**
 * One short order number in every order e-mail: each kind the order module sends (to the seller and the buyer,
 * and the seller's notes about the buyer's requests) names the order by the number the buyer's page shows, in
 * the text and the HTML, and never by its long id.
 */
import { describe, expect, it } from 'vitest';
import {
  buildBuyerRequestEmail,
  buildOrderEmails,
  type EmailKind,
  type OrderEmail,
} from '../../src/core/email-payload';
import { renderEmail } from '../../src/server/mail/templates';
import { walletFacts } from '../support/mail-fixtures';

const ORDER_ID = '5d92db01-5f0e-4c52-9a55-0c2f6b3a1e77';
const NUMBER = '5D92DB01';
const facts = {
  ...walletFacts,
  orderNumber: NUMBER,
  orderUrl: 'https://shop.example/order/0123456789abcdef0123456789abcdef',
  receivedBaseUnits: 5_000_000n,
  usdAtPaymentCents: 1234,
  shipment: { trackingNumber: '1Z999AA10123456784', carrier: 'UPS' },
  refund: { amountBaseUnits: 2_000_000n, transactionUrl: 'https://explorer.solana.com/tx/abc' },
};

const ORDER_KINDS: EmailKind[] = [
  'order_confirmation',
  'payment_received',
  'payment_underpaid',
  'details_missing',
  'paid_late',
  'order_shipped',
  'tracking_updated',
  'payment_oversold',
  'refund_sent',
];

const render = (kind: EmailKind, m: OrderEmail) =>
  renderEmail({
    id: `${kind}-${m.role}`,
    orderId: ORDER_ID,
    kind,
    role: m.role,
    to: m.to,
    payoutGroup: 'coopersglass',
    paymentSeen: true,
    payload: m.payload,
  });

describe('the short order number in every order e-mail', () => {
  it.each(ORDER_KINDS)('%s names the order by its short number only', (kind) => {
    const mails = buildOrderEmails(facts, kind, 'seller@shop.test');
    expect(mails.length).toBeGreaterThan(0);
    for (const m of mails) {
      expect(m.payload.orderNumber).toBe(NUMBER);
      const { text, html } = render(kind, m);
      expect(text).toContain(`Order number: ${NUMBER}`);
      expect(html).toContain(NUMBER);
      expect(text).not.toContain(ORDER_ID);
      expect(html).not.toContain(ORDER_ID);
    }
  });

  it.each(['details_erased', 'cancel_requested'] as const)(
    'the seller’s note about the buyer’s request (%s) names it too',
    (kind) => {
      const m = buildBuyerRequestEmail(facts, kind, 'seller@shop.test');
      const { text } = render(kind, m);
      expect(text).toContain(`Order number: ${NUMBER}`);
      expect(text).not.toContain(ORDER_ID);
    },
  );
});
