import { describe, expect, it } from 'vitest';
import { receiptText, showsReceipt } from './receipt';

const order = {
  orderId: '80f9c6e3-1782-4c1b-9b1e-000000000000',
  status: 'final' as const,
  amount: '23079.737310',
  amountBaseUnits: '23079737310',
  receivedBaseUnits: '23079737310',
};

describe('the receipt', () => {
  it('names the order by its short number and the amount with separators', () => {
    const t = receiptText(order, { vendorName: 'Coopers Glass' });
    expect(t.number).toBe('80F9C6E3');
    expect(t.amount).toBe('23,079.737310 $CLAIM');
    expect(t.next).toMatch(/^Coopers Glass packs your order and ships it/);
    expect(t.extra).toBeNull();
  });

  it('tells an overpaying buyer the extra is refunded, exactly', () => {
    const t = receiptText({ ...order, receivedBaseUnits: '24079737311' });
    expect(t.extra).toBe(
      'You sent 1,000.000001 $CLAIM more than the order total: the seller refunds the extra to the wallet that paid.',
    );
  });

  it('asks for the details first when a QR payment came without them', () => {
    expect(receiptText(order, { detailsMissing: true }).next).toMatch(
      /^One step left: fill in your shipping/,
    );
  });

  it('an order sent without a price has no amount line', () => {
    expect(receiptText({ ...order, amount: null, amountBaseUnits: null }).amount).toBeNull();
  });

  it('shows for paid orders only, never for bad news', () => {
    for (const s of ['paid', 'final', 'paid_late', 'shipped', 'delivered'] as const)
      expect(showsReceipt({ status: s })).toBe(true);
    for (const s of ['awaiting_payment', 'expired', 'underpaid', 'oversold', 'cancelled'] as const)
      expect(showsReceipt({ status: s })).toBe(false);
  });
});
