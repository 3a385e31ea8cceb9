import { describe, expect, it } from 'vitest';
import {
  ADDRESS_ON_ORDER_PAGE,
  boundedName,
  buildOrderEmails,
  buyerSafePayload,
  displayPayload,
  MAIL_NAME_MAX,
  productLine,
  type OrderEmailFacts,
} from './email-payload';
import { INTERNATIONAL_SHIPPING } from '../../test/support/fixtures';

const walletFacts: OrderEmailFacts = {
  items: [{ name: 'Sonic Crushed Opal Spillproof', quantity: 1 }],
  totalCents: 32500,
  amountBaseUnits: 3_250_000_000_000n,
  shipping: INTERNATIONAL_SHIPPING,
  paymentMethod: 'wallet',
  solanaPayUrl: 'solana:x',
};

const qrFacts: OrderEmailFacts = {
  items: [{ name: 'Honey Dew Papaya Live Rosin', quantity: 2 }],
  totalCents: 10000,
  amountBaseUnits: undefined,
  shipping: {
    kind: 'us',
    fullName: 'Grace Hopper',
    email: 'grace@example.com',
    address1: '1 Navy Way',
    address2: 'Apt 2',
    city: 'Arlington',
    usState: 'VA',
    zip: '22202',
  },
  paymentMethod: 'qr',
  solanaPayUrl: 'solana:Recipient?amount=1.000000',
};

describe('buildOrderEmails', () => {
  it('builds the wallet pair, seller first, with the spec fields', () => {
    const [seller, buyer, ...rest] = buildOrderEmails(walletFacts, 'order_confirmation', 'seller@shop.test');
    expect(rest).toEqual([]);
    expect(seller).toEqual({
      role: 'seller',
      to: 'seller@shop.test',
      payload: {
        from_name: 'Ada Lovelace',
        email: 'ada@example.com',
        shippingAddress: '12 St James Square, London, Greater London, SW1Y 4JH, United Kingdom',
        product: 'Sonic Crushed Opal Spillproof',
        totalUSD: '325.00',
        totalCLAIM: '3250000.000000',
        to_name: 'Seller',
        seller_email: 'seller@shop.test',
        // Ours: wallet e-mails name the quantity too, as QR ones do.
        quantity: '1',
      },
    });
    expect(buyer?.role).toBe('buyer');
    expect(buyer?.to).toBe('ada@example.com');
    expect(buyer?.payload.to_name).toBe('Ada Lovelace');
    expect(buyer?.payload).not.toHaveProperty('seller_email');
    expect(buyer?.payload.quantity).toBe('1');
    expect(buyer?.payload).not.toHaveProperty('solanaPayURL');
  });

  it('adds quantity and the Solana Pay URL on QR orders, N/A when the amount is unknown', () => {
    const [seller, buyer] = buildOrderEmails(qrFacts, 'order_confirmation', 's@x.test');
    expect(seller?.payload).toMatchObject({
      shippingAddress: '1 Navy Way, Apt 2, Arlington, VA, 22202',
      totalUSD: '100.00',
      totalCLAIM: 'N/A',
      quantity: '2',
      solanaPayURL: 'solana:Recipient?amount=1.000000',
    });
    expect(buyer?.payload.quantity).toBe('2');
  });

  it('sends payment_received to the seller, then the buyer; an extra payment to the seller only', () => {
    const mails = buildOrderEmails(qrFacts, 'payment_received', 's@x.test');
    expect(mails.map((m) => m.role)).toEqual(['seller', 'buyer']);
    const extra = buildOrderEmails(
      { ...qrFacts, extraPayment: { signature: 'sig1', receivedBaseUnits: 5_000_000n } },
      'payment_received',
      's@x.test',
    );
    expect(extra.map((m) => m.role)).toEqual(['seller']);
    expect(extra[0]?.payload).toMatchObject({ receivedCLAIM: '5.000000', paymentSignature: 'sig1' });
  });

  it('a QR record without shipping details: seller notes only, with placeholders, the link and transactions (never the buyer’s order page)', () => {
    const facts = {
      ...qrFacts,
      shipping: undefined,
      receivedBaseUnits: 7_000_000n,
      orderNumber: 'ABCD1234',
      orderUrl: 'https://shop.test/order/0123456789abcdef0123456789abcdef',
      transactionUrls: ['https://explorer.solana.com/tx/sig1', 'https://explorer.solana.com/tx/sig2'],
    };
    for (const kind of ['details_missing', 'payment_received', 'order_confirmation'] as const) {
      const mails = buildOrderEmails(facts, kind, 's@x.test');
      expect(mails.map((m) => m.role)).toEqual(['seller']);
      expect(mails[0]?.payload).toMatchObject({
        from_name: 'not given yet',
        shippingAddress: 'not given yet',
        orderNumber: 'ABCD1234',
        transactionLinks: 'https://explorer.solana.com/tx/sig1 https://explorer.solana.com/tx/sig2',
      });
      // The order page link is the buyer's capability: the seller's messages name the order by its number.
      expect(mails[0]?.payload).not.toHaveProperty('orderUrl');
    }
    expect(buildOrderEmails(facts, 'details_missing', 's@x.test')[0]?.payload.receivedCLAIM).toBe('7.000000');
  });

  it('paid_late: the seller gets the USD value at payment time (or unknown), the buyer a note', () => {
    const late = buildOrderEmails(
      { ...qrFacts, receivedBaseUnits: 1_000_000n, usdAtPaymentCents: 4321 },
      'paid_late',
      's@x.test',
    );
    expect(late.map((m) => m.role)).toEqual(['seller', 'buyer']);
    expect(late[0]?.payload.usdAtPayment).toBe('43.21');
    expect(late[1]?.payload).not.toHaveProperty('usdAtPayment');
    const unknown = buildOrderEmails({ ...qrFacts, usdAtPaymentCents: null }, 'paid_late', 's@x.test');
    expect(unknown[0]?.payload.usdAtPayment).toBe('unknown');
  });

  it('names variants and several items', () => {
    expect(productLine([{ name: 'BathSalts Flower', variantLabel: 'zips', quantity: 1 }])).toBe(
      'BathSalts Flower (zips)',
    );
    expect(
      productLine([
        { name: 'A', quantity: 2 },
        { name: 'B', quantity: 1 },
      ]),
    ).toBe('2 × A, 1 × B');
  });
});

describe('displayPayload', () => {
  it('groups the amounts in thousands for reading, keeps the spec field names, links and words as they are', () => {
    const stored = {
      from_name: 'Ada',
      email: 'ada@example.test',
      shippingAddress: '1 Main St',
      product: 'Eagles XL',
      totalUSD: '1300.00',
      totalCLAIM: '1166666.666667',
      to_name: 'Seller',
      quantity: '1000',
      solanaPayURL: 'solana:abc?amount=1166666.666667',
      receivedCLAIM: '500000.000000',
      refundCLAIM: '2.000000',
      usdAtPayment: 'unknown',
      orderNumber: '1234',
    };
    const shown = displayPayload(stored);
    expect(Object.keys(shown)).toEqual(Object.keys(stored));
    expect(shown).toEqual({
      ...stored,
      totalUSD: '1,300.00',
      totalCLAIM: '1,166,666.666667',
      receivedCLAIM: '500,000.000000',
    });
    expect(stored.totalCLAIM).toBe('1166666.666667'); // the stored payload is not changed
    expect(displayPayload({ ...stored, totalCLAIM: 'N/A' }).totalCLAIM).toBe('N/A');
  });
});

describe('what a buyer message may carry of what the buyer typed', () => {
  it('a bounded name: letters, marks, spaces, apostrophes, hyphens; 40 characters at most', () => {
    expect(boundedName('Ada Lovelace')).toBe('Ada Lovelace');
    expect(boundedName("Zoë O'Brien-Núñez")).toBe("Zoë O'Brien-Núñez");
    expect(boundedName('李小龍')).toBe('李小龍');
    expect(boundedName('Visit evil.example/win or http://x.y call 555-0100 <b>now</b>')).toBe(
      'Visit evil example win or http x y call',
    );
    expect(boundedName('ｗｗｗ．evil．com')).toBe('www evil com'); // full-width dots fold (NFKC), then go
    expect([...boundedName('A'.repeat(500))]).toHaveLength(MAIL_NAME_MAX);
    expect(boundedName('12345 ..//')).toBe('');
  });

  it('buyer payloads: the names bounded, the address not quoted; the seller keeps everything', () => {
    const facts = {
      ...walletFacts,
      shipping: { ...INTERNATIONAL_SHIPPING, fullName: 'Eve <b>http://evil.example</b>' },
    };
    const [seller, buyer] = buildOrderEmails(facts, 'order_confirmation', 'seller@shop.test');
    expect(seller?.payload.from_name).toBe('Eve <b>http://evil.example</b>');
    expect(buyer?.payload.from_name).toBe('Eve b http evil example b');
    expect(buyer?.payload.to_name).toBe('Eve b http evil example b');
    expect(buyer?.payload.shippingAddress).toBe(ADDRESS_ON_ORDER_PAGE);
    expect(buyerSafePayload(seller!.payload).shippingAddress).toBe(ADDRESS_ON_ORDER_PAGE);
  });
});
