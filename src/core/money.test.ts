import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import BigNumber from 'bignumber.js';
import {
  groupThousands,
  divRoundHalfUp,
  formatBaseUnits,
  formatCents,
  MoneyError,
  parseBaseUnits,
  parseBaseUnitsText,
  parsePriceUsd,
  tokenBaseUnitsForCents,
} from './money';

// An independent oracle: bignumber.js with generous precision and ROUND_HALF_UP.
const Big = BigNumber.clone({
  DECIMAL_PLACES: 80,
  ROUNDING_MODE: BigNumber.ROUND_HALF_UP,
  EXPONENTIAL_AT: 1e9,
});
function oracleBaseUnits(cents: number, price: string): bigint {
  const tokens = new Big(cents).div(100).div(new Big(price));
  return BigInt(tokens.decimalPlaces(6, BigNumber.ROUND_HALF_UP).shiftedBy(6).toFixed(0));
}

describe('parsePriceUsd', () => {
  it('parses plain decimals exactly', () => {
    expect(parsePriceUsd('0.000123')).toEqual({ num: 123n, den: 1_000_000n, text: '0.000123' });
    expect(parsePriceUsd('12')).toEqual({ num: 12n, den: 1n, text: '12' });
    expect(parsePriceUsd('1.50')).toEqual({ num: 15n, den: 10n, text: '1.5' });
    expect(parsePriceUsd('007.25').text).toBe('7.25');
  });
  it('handles exponent forms exactly', () => {
    expect(parsePriceUsd('1.5e-7')).toEqual({ num: 15n, den: 100_000_000n, text: '0.00000015' });
    expect(parsePriceUsd('2E3')).toEqual({ num: 2000n, den: 1n, text: '2000' });
    expect(parsePriceUsd('1.25e+1').text).toBe('12.5');
  });
  it.each([
    [undefined, 'missing'],
    [null, 'missing'],
    [0.5, 'missing'],
    ['', 'empty'],
    ['0', 'greater than zero'],
    ['0.000', 'greater than zero'],
    ['-1', 'not a plain'],
    ['+1', 'not a plain'],
    ['abc', 'not a plain'],
    ['NaN', 'not a plain'],
    ['Infinity', 'not a plain'],
    [' 1', 'not a plain'],
    ['1.', 'not a plain'],
    ['.5', 'not a plain'],
    ['1,5', 'not a plain'],
    ['0x10', 'not a plain'],
    ['1e999', 'exponent out of range'],
    ['1'.repeat(65), 'too long'],
  ])('rejects %j (%s)', (input, why) => {
    expect(() => parsePriceUsd(input)).toThrow(MoneyError);
    expect(() => parsePriceUsd(input)).toThrow(why);
  });
});

describe('tokenBaseUnitsForCents', () => {
  it('computes known examples', () => {
    // 325 USD at 0.0001 USD/token = 3,250,000 tokens
    expect(tokenBaseUnitsForCents(32500, '0.0001')).toBe(3_250_000_000_000n);
    // 50 USD at 3 USD = 16.666666666… → 16.666667
    expect(tokenBaseUnitsForCents(5000, '3')).toBe(16_666_667n);
    // 1 cent at 3 USD = 0.003333333… → 0.003333
    expect(tokenBaseUnitsForCents(1, '3')).toBe(3_333n);
    // exact half rounds up: 0.0000005 tokens → 1 base unit (1 cent at 20,000 USD)
    expect(tokenBaseUnitsForCents(1, '20000')).toBe(1n);
    // just below a half rounds down
    expect(tokenBaseUnitsForCents(1, '20000.000001')).toBe(0n);
    // float trap: 2.01 tokens is 2010000 base units, not 2009999
    expect(tokenBaseUnitsForCents(201, '1')).toBe(2_010_000n);
  });
  it('accepts bigint totals and parsed prices', () => {
    expect(tokenBaseUnitsForCents(100n, parsePriceUsd('0.5'))).toBe(2_000_000n);
  });
  it('rejects fractional and negative cents', () => {
    expect(() => tokenBaseUnitsForCents(1.5, '1')).toThrow(MoneyError);
    expect(() => tokenBaseUnitsForCents(-1, '1')).toThrow(MoneyError);
    expect(() => tokenBaseUnitsForCents(100, '0')).toThrow(MoneyError);
  });

  const priceArb = fc
    .tuple(fc.bigInt({ min: 1n, max: 10n ** 12n }), fc.integer({ min: 0, max: 14 }))
    .map(([digits, scale]) => {
      const s = digits.toString().padStart(scale + 1, '0');
      return scale === 0 ? s : `${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`;
    });

  it('matches the exact rational result for random totals and prices (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 99 * 65_000 * 10 }), priceArb, (cents, price) => {
        expect(tokenBaseUnitsForCents(cents, price)).toBe(oracleBaseUnits(cents, price));
      }),
      { numRuns: 2000 },
    );
  });

  it('is within half a base unit of the true value and monotone in the total (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), priceArb, (cents, price) => {
        const p = parsePriceUsd(price);
        const units = tokenBaseUnitsForCents(cents, p);
        // |units − cents·den·10^6/(100·num)| ≤ 1/2  ⇔  |2·units·100·num − 2·cents·den·10^6| ≤ 100·num
        const lhs = 2n * units * 100n * p.num - 2n * BigInt(cents) * p.den * 1_000_000n;
        expect(lhs <= 100n * p.num && lhs > -100n * p.num).toBe(true);
        expect(tokenBaseUnitsForCents(cents + 1, p) >= units).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('exponent forms give the same amounts as their plain forms (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.bigInt({ min: 1n, max: 10n ** 9n }),
        fc.integer({ min: -20, max: 5 }),
        (cents, mantissa, exp) => {
          const expForm = `${mantissa}e${exp}`;
          const plain = new Big(mantissa.toString()).shiftedBy(exp).toFixed();
          expect(tokenBaseUnitsForCents(cents, expForm)).toBe(tokenBaseUnitsForCents(cents, plain));
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('divRoundHalfUp', () => {
  it('rounds halves up', () => {
    expect(divRoundHalfUp(5n, 2n)).toBe(3n);
    expect(divRoundHalfUp(4n, 3n)).toBe(1n);
    expect(divRoundHalfUp(0n, 7n)).toBe(0n);
    expect(() => divRoundHalfUp(1n, 0n)).toThrow(MoneyError);
  });
});

describe('formatting', () => {
  it('formats base units with six decimals', () => {
    expect(formatBaseUnits(1_234_500_000n)).toBe('1234.500000');
    expect(formatBaseUnits(0n)).toBe('0.000000');
    expect(formatBaseUnits(1n)).toBe('0.000001');
    expect(formatBaseUnits(-1_500_000n)).toBe('-1.500000');
  });
  it('round-trips base units through text (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 25n }), (u) => {
        expect(parseBaseUnitsText(formatBaseUnits(u))).toBe(u);
        expect(parseBaseUnits(u.toString())).toBe(u);
      }),
    );
  });
  it('refuses malformed amount texts', () => {
    expect(() => parseBaseUnitsText('1.5')).toThrow(MoneyError);
    expect(() => parseBaseUnits('-1')).toThrow(MoneyError);
    expect(() => parseBaseUnits('1.0')).toThrow(MoneyError);
  });
  it('formats cents', () => {
    expect(formatCents(32500)).toBe('325.00');
    expect(formatCents(5)).toBe('0.05');
    expect(formatCents(0)).toBe('0.00');
    expect(formatCents(123456)).toBe('1234.56');
    expect(() => formatCents(1.5)).toThrow(MoneyError);
  });
  it('formats cents like an exact decimal (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 40 }), (c) => {
        expect(formatCents(c)).toBe(new Big(c).div(100).toFixed(2));
      }),
    );
  });
});

describe('groupThousands', () => {
  it('groups the whole part in threes, keeps the decimals exactly, leaves words alone', () => {
    expect(groupThousands('0.000001')).toBe('0.000001');
    expect(groupThousands('999.999999')).toBe('999.999999');
    expect(groupThousands('1000.000000')).toBe('1,000.000000');
    expect(groupThousands('1166666.666667')).toBe('1,166,666.666667');
    expect(groupThousands('1300.00')).toBe('1,300.00');
    expect(groupThousands('-1234567.5')).toBe('-1,234,567.5');
    expect(groupThousands('1500000000')).toBe('1,500,000,000');
    for (const word of ['N/A', 'unknown', '', '12a.5', '1.2.3']) expect(groupThousands(word)).toBe(word);
  });

  it('removing the commas gives back the same text (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 24n }), (units) => {
        const plain = formatBaseUnits(units);
        const grouped = groupThousands(plain);
        expect(grouped.replace(/,/g, '')).toBe(plain);
        expect(grouped).toMatch(/^\d{1,3}(,\d{3})*\.\d{6}$/);
      }),
    );
  });
});
