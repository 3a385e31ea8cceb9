import { describe, expect, it } from 'vitest';
import type { AnyQuoteResponse, OrderPublic, OrderStatus } from '../../../core/api';
import type { PriceState } from '../../api/price';
import {
  CHECKING_STATUS,
  CONFIRMATION_SENT_LABEL,
  GENERATING,
  MSG_PRICE_ERROR,
  MSG_PRICE_FAILED,
  SENT_WITHOUT_PRICE,
  STATUS_TEXT,
  TITLE_PAYOUT_REFUSED,
  TITLE_SCAN,
} from './messages';
import type { StoredQrOrder } from './order-store';
import type { OrderStatusState } from './useOrderStatus';
import type { QuoteState } from './useQuote';
import { qrPurchase, qrRecord, qrView, quotePriceOf, soldOutView, type QrViewInput } from './view';

const ID = '0123abcd-0000-4000-8000-000000000001';
const URL = 'solana:Seller?amount=12.5&reference=Ref';

function record(over: Partial<StoredQrOrder> = {}): StoredQrOrder {
  return {
    orderId: ID,
    productId: 'p1',
    orderUrl: 'https://shop.example/order/0123456789abcdef0123456789abcdef',
    solanaPayUrl: URL,
    amount: '1234.500000',
    quantity: 2,
    quote: 'q1',
    expiresAt: '2026-01-01T00:15:00.000Z',
    detailsSent: false,
    confirmed: false,
    ...over,
  };
}

function server(status: OrderStatus, over: Partial<OrderPublic> = {}): OrderStatusState {
  return {
    status: 'known',
    order: {
      orderId: ID,
      status,
      paymentMethod: 'qr',
      reference: 'Ref',
      amount: '1234.500000',
      amountBaseUnits: '1234500000',
      totalCents: 2000,
      expiresAt: '2026-01-01T00:15:00.000Z',
      payments: [],
      history: [],
      shippingDetails: 'awaiting',
      emails: [],
      ...over,
    },
  };
}

const paidLedger = {
  payments: [
    {
      signature: 'Sig1',
      receivedBaseUnits: '1234500000',
      at: '2026-01-01T00:01:00Z',
      role: 'payment' as const,
    },
  ],
  receivedBaseUnits: '1234500000',
  signature: 'Sig1',
};

function quote(amount: string | null): QuoteState {
  const q = {
    quote: 'q-new',
    items: [{ productId: 'p1', name: 'P', quantity: 2, unitCents: 1000, lineCents: 2000 }],
    totalCents: 2000,
    priceUsd: amount === null ? null : '0.0162',
    amountBaseUnits: amount === null ? null : '1234500000',
    amount,
    reference: 'Ref',
    recipient: 'Seller',
    mint: 'Mint',
    solanaPayUrl: amount === null ? null : URL,
    expiresAt: '2026-01-01T00:05:00.000Z',
  } as AnyQuoteResponse;
  return { status: 'ready', quote: q, key: 'k' };
}

const known: PriceState = { status: 'known', priceUsd: '0.0162', fetchedAt: '2026-01-01T00:00:00Z' };

function input(over: Partial<QrViewInput> = {}): QrViewInput {
  return {
    loaded: true,
    order: null,
    status: { status: 'none' },
    quote: { status: 'loading' },
    price: known,
    quantity: 2,
    quantityProblem: undefined,
    recordFailed: false,
    sending: false,
    notReady: false,
    vendorId: 'v1',
    sellsByWallet: false,
    ...over,
  };
}

describe('qrRecord: the record and the quote', () => {
  it('before the stored record is read, no quote is asked for (the prerendered first frame)', () => {
    expect(qrRecord(input({ loaded: false })).quoteEnabled).toBe(false);
  });

  it('with no record, the page asks for a quote', () => {
    const r = qrRecord(input());
    expect(r).toMatchObject({ known: null, stale: false, requotable: false, quoteEnabled: true });
  });

  it("the server's answer counts only for this record", () => {
    const other = server('awaiting_payment', { orderId: 'ffffffff-0000-4000-8000-000000000009' });
    expect(qrRecord(input({ order: record(), status: other })).known).toBeNull();
    expect(qrRecord(input({ order: record(), status: server('paid') })).known?.status).toBe('paid');
  });

  it('an open record (awaiting, nothing paid, no details) is requotable and follows a new quantity', () => {
    const same = qrRecord(input({ order: record(), status: server('awaiting_payment') }));
    expect(same).toMatchObject({ requotable: true, quoteEnabled: false });
    const moved = qrRecord(input({ order: record(), status: server('awaiting_payment'), quantity: 3 }));
    expect(moved).toMatchObject({ requotable: true, quoteEnabled: true });
    // Not a number: nothing to follow.
    expect(
      qrRecord(input({ order: record(), status: server('awaiting_payment'), quantity: null })).quoteEnabled,
    ).toBe(false);
  });

  it('a record with details, a payment, an unpriced link or another status is not requotable', () => {
    const cases: [StoredQrOrder, OrderStatusState][] = [
      [record({ detailsSent: true }), server('awaiting_payment')],
      [record(), server('awaiting_payment', { payments: [{ ...paidLedger.payments[0]!, role: 'partial' }] })],
      [record({ solanaPayUrl: null, amount: null }), server('awaiting_payment')],
      [record(), server('paid')],
      [record(), { status: 'loading' }],
    ];
    for (const [order, status] of cases) {
      expect(qrRecord(input({ order, status, quantity: 3 }))).toMatchObject({
        requotable: false,
        quoteEnabled: false,
      });
    }
  });

  it('a record the server does not know is stale', () => {
    expect(qrRecord(input({ order: record(), status: { status: 'missing' } })).stale).toBe(true);
  });

  it('a record that expired with nothing paid and no details is stale; with details or a payment it is kept', () => {
    expect(qrRecord(input({ order: record(), status: server('expired') })).stale).toBe(true);
    expect(qrRecord(input({ order: record({ detailsSent: true }), status: server('expired') })).stale).toBe(
      false,
    );
    const partly = server('expired', { payments: [{ ...paidLedger.payments[0]!, role: 'partial' }] });
    expect(qrRecord(input({ order: record(), status: partly })).stale).toBe(false);
    expect(qrRecord(input({ order: null, status: { status: 'missing' } })).stale).toBe(false);
  });

  it("the page's price reaches the quote as a decimal, 'failed' or not yet", () => {
    expect(quotePriceOf(known)).toBe('0.0162');
    expect(quotePriceOf({ status: 'unavailable' })).toBe('failed');
    expect(quotePriceOf({ status: 'error' })).toBe('failed');
    expect(quotePriceOf({ status: 'loading' })).toBeUndefined();
  });
});

describe('qrView: the QR box', () => {
  it('no record yet and the quote on its way: Generating QR Code...', () => {
    const v = qrView(input());
    expect(v.box).toEqual({ kind: 'generating', text: GENERATING });
    expect(v.title).toBe(TITLE_SCAN);
    expect(v.payLink).toBeNull();
    expect(v.status).toBeNull();
    expect(v.button).toEqual({ label: 'Send Order Confirmation', disabled: false });
  });

  it("the record's own link: the QR, its amount and the copy / open links", () => {
    const v = qrView(input({ order: record(), status: server('awaiting_payment') }));
    expect(v.box).toEqual({ kind: 'qr', url: URL, amount: '1234.500000' });
    expect(v.payLink).toEqual({ url: URL, amount: '1,234.500000 $CLAIM', fallback: null });
    expect(v.timeLeftUntil).toBe('2026-01-01T00:15:00.000Z');
  });

  it('over HTTPS: the QR and the open link carry the transaction request, the transfer request one tap away', () => {
    const tx = 'solana:https://shop.example/api/pay/abc.def';
    const order = { ...record(), transactionRequestUrl: tx };
    const v = qrView(input({ order, status: server('awaiting_payment') }));
    expect(v.box).toEqual({ kind: 'qr', url: tx, amount: '1234.500000' });
    expect(v.payLink).toEqual({ url: tx, amount: '1,234.500000 $CLAIM', fallback: 'offer' });
    const fallback = qrView(input({ order, status: server('awaiting_payment'), transferFallback: true }));
    expect(fallback.box).toEqual({ kind: 'qr', url: URL, amount: '1234.500000' });
    expect(fallback.payLink).toEqual({ url: URL, amount: '1,234.500000 $CLAIM', fallback: 'shown' });
    // Paid: neither link.
    expect(qrView(input({ order, status: server('paid') })).payLink).toBeNull();
  });

  it('the link shows while the status is loading (a resumed record)', () => {
    const v = qrView(input({ order: record(), status: { status: 'loading' } }));
    expect(v.box.kind).toBe('qr');
    expect(v.status?.text).toBe(CHECKING_STATUS);
    expect(v.status?.dataStatus).toBe('loading');
    expect(v.timeLeftUntil).toBeNull();
  });

  it('no link while the open record follows a new quantity', () => {
    const v = qrView(input({ order: record(), status: server('awaiting_payment'), quantity: 3 }));
    expect(v.box).toEqual({ kind: 'generating', text: GENERATING });
    expect(v.payLink).toBeNull();
  });

  it('payment received: no QR, the details are asked for unless they are in', () => {
    const v = qrView(input({ order: record(), status: server('paid', paidLedger) }));
    expect(v.box).toEqual({ kind: 'paid', askDetails: true });
    expect(v.payLink).toBeNull();
    expect(v.paid).toBe(true);
    const withDetails = qrView(
      input({ order: record({ detailsSent: true }), status: server('paid', paidLedger) }),
    );
    expect(withDetails.box).toEqual({ kind: 'paid', askDetails: false });
  });

  it('every fully paid status counts as payment received', () => {
    for (const s of ['paid', 'final', 'paid_late', 'shipped', 'delivered', 'oversold'] as const) {
      expect(qrView(input({ order: record(), status: server(s, paidLedger) })).box.kind).toBe('paid');
    }
  });

  it('another status (expired with details, underpaid, cancelled): its sentence, no QR', () => {
    for (const s of ['expired', 'underpaid', 'cancelled'] as const) {
      const v = qrView(input({ order: record({ detailsSent: true }), status: server(s) }));
      expect(v.box).toEqual({ kind: 'settled', text: STATUS_TEXT[s] });
      expect(v.payLink).toBeNull();
    }
  });

  it('an unpriced record: no payment link', () => {
    const v = qrView(
      input({
        order: record({ solanaPayUrl: null, amount: null, detailsSent: true }),
        status: server('awaiting_payment', { amount: null, amountBaseUnits: null }),
      }),
    );
    expect(v.box).toEqual({ kind: 'unpriced-order' });
    expect(v.status?.text).toBe(SENT_WITHOUT_PRICE);
    expect(v.timeLeftUntil).toBeNull();
    expect(v.payNext).toBeNull();
  });

  it('the price failed: its message (error vs unavailable), and no quote arrived', () => {
    expect(qrView(input({ price: { status: 'error' } })).box).toEqual({
      kind: 'price-failed',
      text: MSG_PRICE_ERROR,
    });
    expect(qrView(input({ price: { status: 'unavailable' } })).box).toEqual({
      kind: 'price-failed',
      text: MSG_PRICE_FAILED,
    });
    expect(qrView(input({ quote: { status: 'failed', code: 'price_unavailable' } })).box).toEqual({
      kind: 'price-failed',
      text: MSG_PRICE_FAILED,
    });
  });

  it('an unpriced quote: the price message, and the note that the order can be sent with N/A', () => {
    const v = qrView(input({ price: { status: 'unavailable' }, quote: quote(null) }));
    expect(v.box).toEqual({ kind: 'price-failed', text: MSG_PRICE_FAILED });
    expect(v.unpricedNote).toBe(true);
    expect(v.button.disabled).toBe(false);
    expect(qrView(input({ quote: quote('1234.500000') })).unpricedNote).toBe(false);
  });

  it('a quantity problem stands in the box and disables the button', () => {
    const v = qrView(input({ quantityProblem: 'Only 1 left.' }));
    expect(v.box).toEqual({ kind: 'quantity-problem', text: 'Only 1 left.' });
    expect(v.button.disabled).toBe(true);
  });

  it("the vendor's token account is missing or unknown: not ready, no QR, no button; wallet products offered", () => {
    for (const code of ['payout_account_missing', 'payout_account_unknown']) {
      const v = qrView(
        input({
          quote: { status: 'failed', code, message: 'The seller cannot receive yet.' },
          sellsByWallet: true,
        }),
      );
      expect(v.box).toEqual({
        kind: 'payout-refused',
        message: 'The seller cannot receive yet.',
        sellsByWallet: true,
      });
      expect(v.title).toBe(TITLE_PAYOUT_REFUSED);
      expect(v.payoutRefused).toBe(true);
      expect(v.button.disabled).toBe(true);
    }
  });

  it('another quote refusal, or the record could not be made: the link could not be prepared', () => {
    expect(qrView(input({ quote: { status: 'failed', code: 'sold_out' } })).box).toEqual({
      kind: 'link-failed',
    });
    expect(qrView(input({ quote: quote('1234.500000'), recordFailed: true })).box).toEqual({
      kind: 'link-failed',
    });
  });
});

describe('qrView: the status block, the next step and the button', () => {
  it('details in, unpaid: Now pay … above the QR, and the order page link', () => {
    const v = qrView(input({ order: record({ detailsSent: true }), status: server('awaiting_payment') }));
    expect(v.payNext).toBe(
      'Now pay 1,234.500000 $CLAIM to complete the order. The piece is yours once your payment arrives; until then someone else can still buy it.',
    );
    expect(v.box.kind).toBe('qr');
    expect(v.status?.orderPageLink).toBe('https://shop.example/order/0123456789abcdef0123456789abcdef');
  });

  it('no details, awaiting: no next step, no order page link; follows the page (no Start a new order)', () => {
    const v = qrView(input({ order: record(), status: server('awaiting_payment') }));
    expect(v.payNext).toBeNull();
    expect(v.status).toMatchObject({
      orderNumber: '0123ABCD',
      quantity: 2,
      dataStatus: 'awaiting_payment',
      text: STATUS_TEXT.awaiting_payment,
      received: null,
      paidLate: false,
      signature: null,
      orderPageLink: null,
      quantityChangedNote: null,
      startNew: false,
    });
  });

  it('something arrived: the order page link without details; the transaction link', () => {
    const v = qrView(input({ order: record(), status: server('paid', paidLedger) }));
    expect(v.status?.orderPageLink).not.toBeNull();
    expect(v.status?.signature).toBe('Sig1');
    expect(v.status?.startNew).toBe(false); // paid: no new order from here
  });

  it('a record stored without a page link shows none', () => {
    const v = qrView(input({ order: record({ orderUrl: null, detailsSent: true }), status: server('paid') }));
    expect(v.status?.orderPageLink).toBeNull();
  });

  it('underpaid: what was received of what, and that the seller will contact the buyer', () => {
    const v = qrView(
      input({
        order: record({ detailsSent: true }),
        status: server('underpaid', { receivedBaseUnits: '1000000000', signature: 'Sig1' }),
      }),
    );
    expect(v.status?.received).toBe(
      ' (received 1,000.000000 of 1,234.500000 $CLAIM; the seller will contact you)',
    );
    expect(v.status?.startNew).toBe(true);
  });

  it('an overpayment shows what was received, without the contact note', () => {
    const v = qrView(input({ order: record(), status: server('paid', { receivedBaseUnits: '2000000000' }) }));
    expect(v.status?.received).toBe(' (received 2,000.000000 of 1,234.500000 $CLAIM)');
  });

  it('paid late: the note that the seller will confirm', () => {
    expect(qrView(input({ order: record(), status: server('paid_late', paidLedger) })).status?.paidLate).toBe(
      true,
    );
  });

  it('a record that no longer follows the page: the other-quantity note and Start a new order', () => {
    const v = qrView(
      input({ order: record({ detailsSent: true }), status: server('awaiting_payment'), quantity: 5 }),
    );
    expect(v.status?.quantityChangedNote).toBe(
      'This order is for 2. To order a different quantity, start a new order.',
    );
    expect(v.status?.startNew).toBe(true);
    expect(
      qrView(input({ order: record({ detailsSent: true }), status: server('awaiting_payment') })).status
        ?.quantityChangedNote,
    ).toBeNull();
  });

  it('the button: the glass vendor reads Send Confirmation Email; a confirmed record reads Confirmation Sent', () => {
    expect(qrView(input({ vendorId: 'coopersglass' })).button.label).toBe('Send Confirmation Email');
    const done = qrView(
      input({ order: record({ detailsSent: true, confirmed: true }), status: server('paid') }),
    );
    expect(done.button).toEqual({ label: CONFIRMATION_SENT_LABEL, disabled: true });
    expect(qrView(input({ sending: true })).button.disabled).toBe(true);
  });

  it('the not-ready message shows after a press found nothing to order, and not once a link is shown', () => {
    expect(qrView(input({ notReady: true })).notReadyError).toBe(true);
    expect(
      qrView(input({ notReady: true, order: record(), status: server('awaiting_payment') })).notReadyError,
    ).toBe(false);
  });

  it('details sent before paying, paid, both e-mails delivered: the record becomes confirmed now', () => {
    const sent = [
      { kind: 'order_confirmation', recipient: 'seller' as const, state: 'sent' as const, attempts: 1 },
      { kind: 'order_confirmation', recipient: 'buyer' as const, state: 'sent' as const, attempts: 1 },
    ];
    const base = {
      order: record({ detailsSent: true }),
      status: server('paid', { ...paidLedger, emails: sent }),
    };
    expect(qrView(input(base)).confirmNow).toBe(true);
    // Not while a press is under way (it reports itself), not twice, not without details, not before both.
    expect(qrView(input({ ...base, sending: true })).confirmNow).toBe(false);
    expect(qrView(input({ ...base, order: record({ detailsSent: true, confirmed: true }) })).confirmNow).toBe(
      false,
    );
    expect(qrView(input({ ...base, order: record() })).confirmNow).toBe(false);
    const one = server('paid', { ...paidLedger, emails: [sent[0]!] });
    expect(qrView(input({ ...base, status: one })).confirmNow).toBe(false);
  });
});

describe('sold out: which stored record keeps its checkout (qrPurchase, soldOutView)', () => {
  const of = (state: OrderStatusState) => (state.status === 'known' ? state.order : null);

  it('an open record with nothing paid is no purchase, with or without details: no QR, no button once sold out', () => {
    for (const order of [record(), record({ detailsSent: true })]) {
      const awaiting = of(server('awaiting_payment'));
      expect(qrPurchase(order, awaiting)).toBe(false);
      expect(soldOutView(true, order, awaiting)).toBe('record-sold-out');
      // Expired with nothing paid: not one either.
      expect(soldOutView(true, order, of(server('expired')))).toBe('record-sold-out');
    }
  });

  it('money arrived (paid, underpaid, late, oversold) or the confirmation went out: a purchase, its checkout stays', () => {
    for (const status of ['paid', 'final', 'underpaid', 'paid_late', 'oversold'] as const) {
      const paid = of(server(status, paidLedger));
      expect(qrPurchase(record(), paid), status).toBe(true);
      expect(soldOutView(true, record(), paid), status).toBe('checkout');
    }
    // Confirmed, or an unpriced order made with its details (the seller arranges payment): before any status too.
    expect(soldOutView(true, record({ detailsSent: true, confirmed: true }), null)).toBe('checkout');
    expect(soldOutView(true, record({ solanaPayUrl: null, amount: null, detailsSent: true }), null)).toBe(
      'checkout',
    );
  });

  it('before the server said whether anything arrived: nothing to pay or press yet (checking), not the sold-out note', () => {
    expect(soldOutView(true, record(), null)).toBe('checking');
  });

  it('no record: nothing; in stock: the checkout whatever the record', () => {
    expect(soldOutView(true, null, null)).toBe('nothing');
    expect(qrPurchase(null, null)).toBe(false);
    expect(soldOutView(false, record(), of(server('awaiting_payment')))).toBe('checkout');
    expect(soldOutView(false, null, null)).toBe('checkout');
  });
});
