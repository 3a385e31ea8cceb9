/**
 * QR checkout: the Solana Pay transfer request the QR encodes, round-tripped through @solana/pay's parseURL
 * (what a wallet does when it scans it). Both our browser-safe encoder (src/core/solana-pay.ts) and the
 * server's quotes (src/server/orders/quotes.ts, which build the URL the QR shows) are checked.
 *
 * Note: @solana/pay 1.0.x (the @solana/kit line) returns addresses as base58 strings and `amount` as a JS number
 * (0.2.x returned PublicKey and BigNumber). We check the number equals the exact decimal and, exactly, the
 * amount text in the URL (what a wallet reads) as a BigNumber against an independently computed value.
 */
import { PRICE_GUARD_DEFAULTS } from '../../src/server/settings';
import { parseURL, type TransferRequestURL } from 'solana-pay-client';
import { Keypair } from '@solana/web3.js';
import BigNumber from 'bignumber.js';
import { describe, expect, it } from 'vitest';
import { catalog } from '../../catalog';
import type { Catalog } from '../../src/core/catalog';
import { encodeTransferRequestUrl } from '../../src/core/solana-pay';
import { createQuote, type QuoteDeps } from '../../src/server/orders/quotes';

const recipient = Keypair.generate().publicKey.toBase58();
const mint = Keypair.generate().publicKey.toBase58();
const reference = Keypair.generate().publicKey.toBase58();

function transfer(url: string): TransferRequestURL {
  const parsed = parseURL(url);
  if (!('recipient' in parsed)) throw new Error(`not a transfer request: ${url}`);
  return parsed;
}

/** The URL's amount as the exact decimal a wallet reads, plus parseURL's number. */
function amountOf(url: string): { exact: BigNumber; parsed: number | undefined } {
  const text = new URL(url).searchParams.get('amount');
  if (text === null || !/^\d+\.\d{6}$/.test(text))
    throw new Error(`amount is not a six-decimal number: ${text}`);
  return { exact: new BigNumber(text), parsed: transfer(url).amount };
}

/** 50 USD × quantity / price, rounded half-up to six decimals, computed independently of src/core/money. */
const expectedAmount = (usd: number, quantity: number, price: string) =>
  new BigNumber(usd).times(quantity).div(price).decimalPlaces(6, BigNumber.ROUND_HALF_UP);

describe('Solana Pay URL → parseURL round trip', () => {
  const special = [
    'plain',
    'with spaces  and  doubles',
    'A & B = C',
    'what? really?',
    '#hashtag #1',
    '100% pure, 50%off %20 %zz',
    'Ünïcødé — 日本語 🔥',
    '2 × Strawberry Fritter Live Rosin',
    '\'quotes\' "double" <tags> +plus+ /slash/ \\back\\',
  ];

  for (const text of special) {
    it(`keeps label and message exact: ${JSON.stringify(text)}`, () => {
      const t = transfer(
        encodeTransferRequestUrl({
          recipient,
          amountBaseUnits: 1_234_567n,
          splToken: mint,
          reference,
          label: `Shop ${text}`,
          message: text,
        }),
      );
      expect(String(t.recipient)).toBe(recipient);
      expect(String(t.splToken)).toBe(mint);
      expect(t.reference?.map(String)).toEqual([reference]);
      expect(t.label).toBe(`Shop ${text}`);
      expect(t.message).toBe(text);
      expect(t.amount).toBe(1.234567);
    });
  }

  it('writes the amount with six decimals and parses it to the exact decimal (no float rounding)', () => {
    const cases: [bigint, string][] = [
      [1n, '0.000001'],
      [2_010_000n, '2.010000'], // 2.01 * 10**6 is 2009999.9999999998 as a float
      [100_000_000_000n, '100000.000000'],
      [166_666_666_667n, '166666.666667'],
      [123_456_789_012_345_678n, '123456789012.345678'], // beyond 2^53 base units
    ];
    for (const [units, text] of cases) {
      const url = encodeTransferRequestUrl({ recipient, amountBaseUnits: units, splToken: mint, reference });
      expect(new URL(url).searchParams.get('amount')).toBe(text);
      const { exact, parsed } = amountOf(url);
      expect(exact.isEqualTo(text)).toBe(true);
      expect(exact.shiftedBy(6).toFixed()).toBe(units.toString());
      // parseURL's number is the nearest double to the exact decimal
      expect(parsed).toBe(Number(text));
    }
  });
});

describe('server quotes for the QR pages', () => {
  const openCatalog: Catalog = catalog;
  const t0 = new Date('2030-01-01T00:00:00Z');
  const recipients = {
    coopersglass: Keypair.generate().publicKey.toBase58(),
    gorilla: Keypair.generate().publicKey.toBase58(),
  };
  const deps = (priceUsd: string): QuoteDeps => ({
    catalog: openCatalog,
    settings: {
      recipients,
      claimMint: mint,
      quote: { secret: 'q'.repeat(32), ttlMs: 15 * 60_000 },
      price: {
        apiUrl: '',
        pairAddress: '',
        refreshMs: 10_000,
        maxAgeMs: 60_000,
        timeoutMs: 1000,
        ...PRICE_GUARD_DEFAULTS,
      },
    },
    priceSource: { current: () => ({ priceUsd, fetchedAt: t0 }) },
    now: () => t0,
  });
  const quote = (productId: string, quantity: number, price: string) =>
    createQuote(deps(price), { items: [{ productId, quantity }] }).response;

  it.each([
    ['honey-dew-papaya-live-rosin', 50, 'Gorilla Pack Genetics', 'gorilla'],
    ['strawberry-fritter-live-rosin', 50, 'Gorilla Pack Genetics', 'gorilla'],
    ['eagles-xl-joystick-cropal-stick', 85, 'Coopers Glass', 'coopersglass'],
  ] as const)(
    '%s: recipient, exact amount, mint, fresh reference, label, message naming the quantity',
    (productId, usd, _vendor, group) => {
      const price = '0.0003'; // 50 / 0.0003 = 166666.666…: rounding matters
      const product = openCatalog.products.find((p) => p.id === productId);
      const vendor = openCatalog.vendors.find((v) => v.id === product?.vendorId);
      for (const quantity of [1, 2, 3, 7, 99]) {
        const q = quote(productId, quantity, price);
        const t = transfer(q.solanaPayUrl);
        expect(String(t.recipient)).toBe(recipients[group]);
        expect(String(t.splToken)).toBe(mint);
        expect(t.reference?.map(String)).toEqual([q.reference]);
        expect(t.label).toBe(vendor?.name);
        expect(t.message).toBe(`${quantity} × ${product?.name}`);
        const want = expectedAmount(usd, quantity, price);
        const { exact, parsed } = amountOf(q.solanaPayUrl);
        expect(exact.isEqualTo(want)).toBe(true);
        expect(parsed).toBe(want.toNumber());
        expect(new URL(q.solanaPayUrl).searchParams.get('amount')).toBe(want.toFixed(6));
        expect(q.amount).toBe(want.toFixed(6));
      }
    },
  );

  it('a quantity change changes the amount exactly (linear in quantity at an exact price) and issues a new reference', () => {
    const price = '0.0005';
    const one = quote('honey-dew-papaya-live-rosin', 1, price);
    const three = quote('honey-dew-papaya-live-rosin', 3, price);
    expect(amountOf(one.solanaPayUrl).exact.toFixed(6)).toBe('100000.000000');
    expect(amountOf(three.solanaPayUrl).exact.toFixed(6)).toBe('300000.000000');
    expect(transfer(three.solanaPayUrl).amount).toBe(300000);
    expect(BigInt(three.amountBaseUnits)).toBe(3n * BigInt(one.amountBaseUnits));
    expect(three.reference).not.toBe(one.reference);
    // At a price where 50/price does not terminate, each quantity is rounded once from the exact total (not qty × rounded unit).
    const odd = '0.00007';
    for (const quantity of [1, 2, 3, 4]) {
      expect(
        amountOf(quote('honey-dew-papaya-live-rosin', quantity, odd).solanaPayUrl).exact.isEqualTo(
          expectedAmount(50, quantity, odd),
        ),
      ).toBe(true);
    }
    expect(quote('honey-dew-papaya-live-rosin', 3, odd).amount).toBe('2142857.142857');
    expect(quote('honey-dew-papaya-live-rosin', 1, odd).amount).toBe('714285.714286');
  });
});
