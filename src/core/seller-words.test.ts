import { describe, expect, it } from 'vitest';
import type { SellerOrderSummary } from './seller-api';
import { NO_DETAILS_YET, noShippingWords, shipToLines, STATUS_LABEL, statusWords } from './seller-words';

type Words = Parameters<typeof statusWords>[0];
const order = (more: Partial<Words>): Words => ({
  status: 'paid',
  exceptions: [],
  resolved: [],
  closedByRefund: false,
  awaitingDetails: false,
  ...more,
});

describe('statusWords: the order as the money leaves it', () => {
  it('a cancelled order asks for its refund while it is owed, and reads as done once refunded', () => {
    const asked: Partial<SellerOrderSummary> = { status: 'cancelled', exceptions: ['cancel_requested'] };
    expect(statusWords(order(asked))).toBe('Cancelled: refund the buyer');
    expect(statusWords(order({ ...asked, resolved: ['cancel_requested'], closedByRefund: true }))).toBe(
      'Cancelled and refunded',
    );
    // Settled another way ("Record action": e.g. credited): cancelled, nothing asked of the vendor.
    expect(statusWords(order({ ...asked, resolved: ['cancel_requested'] }))).toBe('Cancelled');
  });

  it('oversold, underpaid and late orders a refund closed read as refunded', () => {
    expect(statusWords(order({ status: 'oversold', exceptions: ['oversold'] }))).toBe(
      'Oversold: refund the buyer',
    );
    expect(statusWords(order({ status: 'oversold', closedByRefund: true }))).toBe('Oversold and refunded');
    expect(statusWords(order({ status: 'underpaid', closedByRefund: true }))).toBe('Underpaid and refunded');
    expect(statusWords(order({ status: 'paid_late', closedByRefund: true }))).toBe('Paid late and refunded');
  });

  it('plain words: no "(final)", and a QR order paid moments ago says it waits for the details', () => {
    expect(Object.values(STATUS_LABEL).join(' ')).not.toMatch(/\(|final/i);
    expect(statusWords(order({ status: 'final' }))).toBe('Paid and settled');
    expect(statusWords(order({ awaitingDetails: true }))).toBe('Paid, waiting for shipping details');
  });

  it('an order with nothing to ship says why, not "only a fully paid order" when it was paid', () => {
    expect(noShippingWords('cancelled')).toBe('This order was cancelled: it does not ship.');
    expect(noShippingWords('oversold')).toBe('Oversold: the piece went to another buyer, nothing to ship.');
    expect(noShippingWords('expired')).toBe('Expired without payment: nothing to ship.');
    expect(noShippingWords('awaiting_payment')).toBe('Only a fully paid order can be shipped.');
    expect(noShippingWords('underpaid')).toBe('Only a fully paid order can be shipped.');
  });

  it('"Ship to" is never an empty heading: the address, else the name, else that the details have not come', () => {
    const slip = (shipTo: string[]) => ({ shopName: 'Shop', returnAddress: [], shipTo });
    expect(shipToLines({ buyerName: 'Ada', packingSlip: slip(['Ada', '12 Main St']) })).toEqual([
      'Ada',
      '12 Main St',
    ]);
    expect(shipToLines({ buyerName: '(details erased)', packingSlip: slip([]) })).toEqual([
      '(details erased)',
    ]);
    expect(shipToLines({ buyerName: '', packingSlip: slip([]) })).toEqual([NO_DETAILS_YET]);
  });
});
