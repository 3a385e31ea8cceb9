import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parsePositiveDecimal } from '../../src/server/price/decimal';
import { parseDexScreenerPairs } from '../../src/server/price/dexscreener';
import { demoPriceAt } from '../../src/server/price/demo-feed';

const PAIR = 'DemoPair111111111111111111111111111111111111';
const body = (pairs: unknown) => JSON.stringify({ schemaVersion: '1.0.0', pairs });

describe('parsePositiveDecimal', () => {
  it('keeps plain decimal strings exactly', () => {
    for (const s of ['0.0001234', '1', '12.5', '0.00000000012345678901234'])
      expect(parsePositiveDecimal(s)).toEqual({ ok: true, value: s });
  });
  it('rewrites e-notation as a plain decimal without floats', () => {
    expect(parsePositiveDecimal('1.234e-7')).toEqual({ ok: true, value: '0.0000001234' });
    expect(parsePositiveDecimal('5e-1')).toEqual({ ok: true, value: '0.5' });
    expect(parsePositiveDecimal('1.5e2')).toEqual({ ok: true, value: '150' });
    expect(parsePositiveDecimal('12.34E+1')).toEqual({ ok: true, value: '123.4' });
  });
  it('rejects missing, zero, negative and non-numeric prices', () => {
    for (const bad of [
      undefined,
      null,
      0.001,
      '',
      '0',
      '0.000',
      '-0.1',
      'abc',
      '1.2.3',
      'NaN',
      'Infinity',
      '0x10',
      ' ',
      '1,5',
      '.5',
      '0e5',
    ]) {
      expect(parsePositiveDecimal(bad).ok, String(bad)).toBe(false);
    }
  });
  it('agrees with Number on the value for any plain decimal (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000_000 }),
        fc.integer({ min: 0, max: 12 }),
        (units, scale) => {
          const s = String(units).padStart(scale + 1, '0');
          const dec = scale ? `${s.slice(0, -scale)}.${s.slice(-scale)}` : s;
          const r = parsePositiveDecimal(dec);
          expect(r.ok).toBe(true);
          if (r.ok) expect(Number(r.value)).toBeCloseTo(units / 10 ** scale, 12);
        },
      ),
    );
  });
});

describe('parseDexScreenerPairs', () => {
  it('takes the priceUsd of the matching pair only', () => {
    const text = body([
      { chainId: 'solana', pairAddress: 'Other111111111111111111111111111111111111111', priceUsd: '9.99' },
      { chainId: 'solana', pairAddress: PAIR, priceUsd: '0.0001234' },
    ]);
    expect(parseDexScreenerPairs(text, PAIR)).toMatchObject({ ok: true, priceUsd: '0.0001234' });
  });
  it('classifies each failure', () => {
    expect(parseDexScreenerPairs(body(null), PAIR)).toMatchObject({ ok: false, kind: 'no_matching_pair' });
    expect(parseDexScreenerPairs(body([]), PAIR)).toMatchObject({ ok: false, kind: 'no_matching_pair' });
    expect(parseDexScreenerPairs('{"schemaVersion":', PAIR)).toMatchObject({
      ok: false,
      kind: 'malformed_json',
    });
    expect(parseDexScreenerPairs('[1,2]', PAIR)).toMatchObject({ ok: false, kind: 'malformed_json' });
    expect(parseDexScreenerPairs('{"pairs":{"a":1}}', PAIR)).toMatchObject({
      ok: false,
      kind: 'malformed_json',
    });
    expect(parseDexScreenerPairs(body([{ pairAddress: PAIR }]), PAIR)).toMatchObject({
      ok: false,
      kind: 'bad_price',
    });
    expect(parseDexScreenerPairs(body([{ pairAddress: PAIR, priceUsd: '0' }]), PAIR)).toMatchObject({
      ok: false,
      kind: 'bad_price',
    });
    expect(parseDexScreenerPairs(body([{ pairAddress: PAIR, priceUsd: '-1' }]), PAIR)).toMatchObject({
      ok: false,
      kind: 'bad_price',
    });
    expect(parseDexScreenerPairs(body([{ pairAddress: PAIR, priceUsd: 0.5 }]), PAIR)).toMatchObject({
      ok: false,
      kind: 'bad_price',
    });
  });
});

describe('demoPriceAt', () => {
  it('is deterministic, near 0.0042 and a short positive decimal string', () => {
    for (let t = 0; t < 3_600_000; t += 7_919) {
      const p = demoPriceAt(1_700_000_000_000 + t);
      expect(p).toBe(demoPriceAt(1_700_000_000_000 + t));
      expect(p).toMatch(/^0\.\d+$/);
      expect(p.replace(/^0\.0*/, '').length).toBeLessThanOrEqual(10);
      expect(Math.abs(Number(p) / 0.0042 - 1)).toBeLessThan(0.05);
      expect(parsePositiveDecimal(p)).toEqual({ ok: true, value: p });
    }
  });
});
