import { PRICE_GUARD_DEFAULTS } from '../settings';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Keypair } from '@solana/web3.js';
import { catalog } from '../../../catalog';
import type { Catalog } from '../../core/catalog';
import { tokenBaseUnitsForCents } from '../../core/money';
import { DomainError } from '../../core/errors';
import { createQuote, signQuote, verifyQuote, type QuoteDeps } from './quotes';

const t0 = new Date('2030-01-01T00:00:00Z');
// Stock is the store's (checked by the quote route), not the pure quote's.
const openCatalog: Catalog = catalog;
const deps = (priceUsd: string, over: Partial<QuoteDeps> = {}): QuoteDeps => ({
  catalog: openCatalog,
  settings: {
    recipients: {
      coopersglass: Keypair.generate().publicKey.toBase58(),
      gorilla: Keypair.generate().publicKey.toBase58(),
    },
    claimMint: Keypair.generate().publicKey.toBase58(),
    quote: { secret: 's'.repeat(32), ttlMs: 15 * 60_000 },
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
  ...over,
});

describe('createQuote', () => {
  it('prices BathSalts variants (18ths 40, zips 200) and names them in the message', () => {
    const { response } = createQuote(deps('3'), {
      items: [{ productId: 'bathsalts-flower', variantId: 'zips', quantity: 1 }],
    });
    expect(response.totalCents).toBe(20_000);
    expect(response.amountBaseUnits).toBe('66666667'); // 66.666666… → 66.666667
    expect(response.solanaPayUrl).toContain('message=1%20%C3%97%20BathSalts%20Flower%20(zips)');
    const eighths = createQuote(deps('3'), {
      items: [{ productId: 'bathsalts-flower', variantId: '18ths', quantity: 3 }],
    });
    expect(eighths.response.totalCents).toBe(12_000);
    expect(() => createQuote(deps('3'), { items: [{ productId: 'bathsalts-flower', quantity: 1 }] })).toThrow(
      DomainError,
    );
  });

  it('token amount = total / price, exact and half-up, for random prices and quantities (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 99 }),
        fc.bigInt({ min: 1n, max: 10n ** 12n }),
        fc.integer({ min: 0, max: 12 }),
        (quantity, digits, scale) => {
          const s = digits.toString().padStart(scale + 1, '0');
          const price = scale === 0 ? s : `${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`;
          const total = 5000 * quantity;
          const expected = tokenBaseUnitsForCents(total, price);
          if (expected === 0n) {
            expect(() =>
              createQuote(deps(price), { items: [{ productId: 'garlic-amaretto-live-resin', quantity }] }),
            ).toThrow(DomainError);
            return;
          }
          const { response } = createQuote(deps(price), {
            items: [{ productId: 'garlic-amaretto-live-resin', quantity }],
          });
          expect(response.totalCents).toBe(total);
          expect(BigInt(response.amountBaseUnits)).toBe(expected);
          // Exact rational check: |amount·price·100 − total·10^6| ≤ price·100/2 (in units of the price's scale)
          const den = 10n ** BigInt(scale);
          const diff = BigInt(response.amountBaseUnits) * digits * 100n - BigInt(total) * 1_000_000n * den;
          expect(2n * (diff < 0n ? -diff : diff) <= digits * 100n).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('signed quotes', () => {
  it('verifies its own tokens and rejects any change (property)', () => {
    const { token, quote } = createQuote(deps('0.25'), {
      items: [{ productId: 'lilac-tiptop', quantity: 1 }],
    });
    expect(verifyQuote(token, 's'.repeat(32), t0)).toEqual({ ok: true, quote });
    expect(verifyQuote(token, 't'.repeat(32), t0)).toMatchObject({ ok: false, reason: 'bad_signature' });
    expect(verifyQuote(token, 's'.repeat(32), new Date(Date.parse(quote.expiresAt)))).toMatchObject({
      ok: false,
      reason: 'expired',
    });
    fc.assert(
      fc.property(fc.nat({ max: token.length - 1 }), fc.constantFrom(...'ABCabc012_-'.split('')), (i, ch) => {
        if (token[i] === ch || token[i] === '.') return;
        const changed = token.slice(0, i) + ch + token.slice(i + 1);
        const r = verifyQuote(changed, 's'.repeat(32), t0);
        // base64url's last character can carry unused bits; a change there may decode to the same bytes.
        const same =
          Buffer.from(changed.split('.')[1] ?? '', 'base64url').equals(
            Buffer.from(token.split('.')[1] ?? '', 'base64url'),
          ) && changed.split('.')[0] === token.split('.')[0];
        expect(r.ok).toBe(same);
      }),
    );
  });

  it('refuses a structurally wrong payload even when signed', () => {
    const bogus = signQuote({ v: 2 } as never, 's'.repeat(32));
    expect(verifyQuote(bogus, 's'.repeat(32), t0)).toEqual({ ok: false, reason: 'malformed' });
  });
});
