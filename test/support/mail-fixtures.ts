import { buildOrderEmails, type OrderEmailFacts } from '../../src/core/email-payload';
import type { OutgoingEmail } from '../../src/server/mail/types';
import { INTERNATIONAL_SHIPPING } from './fixtures';

export const SELLER = 'seller@shop.test';

/** The vendor as the order module names it in buyer messages (its seller address; Telegram when listed). */
export const VENDOR = {
  name: 'Gorilla Pack Genetics',
  email: SELLER,
  telegramUrl: 'https://t.me/gorilla_pack',
};

export const walletFacts: OrderEmailFacts = {
  items: [{ name: 'BathSalts Flower', variantLabel: 'zips', quantity: 1 }],
  totalCents: 20000,
  amountBaseUnits: 47_619_047_619n,
  shipping: INTERNATIONAL_SHIPPING,
  paymentMethod: 'wallet',
  solanaPayUrl: 'solana:x',
  vendor: VENDOR,
};

export const qrFacts: OrderEmailFacts = {
  items: [{ name: 'Strawberry Fritter Rosin', quantity: 2 }],
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
  solanaPayUrl:
    'solana:7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU?amount=23.809524&spl-token=Mint1111&label=%24CLAIM',
  vendor: { name: VENDOR.name, email: VENDOR.email },
};

export const EVIL = `Eve "O'Hara" <script>alert(1)</script>\r\nBcc: victim@example.com`;

/** Every free-text field carries markup, quotes and header-injection attempts. */
export const evilFacts: OrderEmailFacts = {
  items: [{ name: `Puffer</td><script>alert('p')</script>\r\nX-Injected: 1`, quantity: 1 }],
  totalCents: 32500,
  amountBaseUnits: 1_000_000n,
  shipping: {
    kind: 'international',
    fullName: EVIL,
    email: 'eve@example.com',
    address1: `<img src=x onerror="alert(1)">`,
    address2: `"quoted" & 'single'`,
    city: 'City\r\nSubject: hijack',
    stateProvince: '<b>bold</b>',
    postalCode: '\u2028000',
    country: '<iframe>',
  },
  paymentMethod: 'qr',
  solanaPayUrl: `solana:abc?label="><script>alert(2)</script>`,
};

export function outgoing(
  facts: OrderEmailFacts,
  kind: OutgoingEmail['kind'] = 'order_confirmation',
  orderId = 'ord_123',
  paymentSeen = true,
): OutgoingEmail[] {
  return buildOrderEmails(facts, kind, SELLER).map((m, i) => ({
    id: `${orderId}-${kind}-${m.role}-${i}`,
    orderId,
    kind,
    role: m.role,
    to: m.to,
    payoutGroup: 'gorilla',
    paymentSeen,
    payload: m.payload,
  }));
}
