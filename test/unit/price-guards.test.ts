/**
 * The price guards' pure parts: the reference rule (time-weighted median or mean, then the minimum with the spot),
 * the liquidity and agreement verdict, and both sources' parsers on bad fields.
 */
import { describe, expect, it } from 'vitest';
import { parseLiquidityUsd } from '../../src/server/price/decimal';
import { parseDexScreenerPairs } from '../../src/server/price/dexscreener';
import { parseGeckoTerminalPool } from '../../src/server/price/geckoterminal';
import {
  judgePrice,
  LOW_LIQUIDITY_MESSAGE,
  SOURCES_DISAGREE_MESSAGE,
  spreadBps,
} from '../../src/server/price/guards';
import { downsample, type PricePoint } from '../../src/server/price/history';
import { referencePrice, type ReferenceConfig } from '../../src/server/price/reference';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const MEDIAN: ReferenceConfig = { rule: 'median', windowMs: 600_000 };
const TWAP: ReferenceConfig = { rule: 'twap', windowMs: 600_000 };

/** One sample every 10 s over [from, to) from price(t). */
function samples(from: number, to: number, price: (t: number) => string): PricePoint[] {
  const out: PricePoint[] = [];
  for (let t = from; t < to; t += 10_000) out.push({ t: new Date(t), priceUsd: price(t) });
  return out;
}

describe('reference price', () => {
  const flat = samples(T0, T0 + 600_000, () => '0.004');
  it('is the spot when nothing moved', () => {
    expect(referencePrice(flat, T0 + 590_000, MEDIAN)?.priceUsd).toBe('0.004');
  });
  it('median: a 3× spike of 25 s and of 2 min leaves it where it was', () => {
    for (const spikeMs of [25_000, 120_000]) {
      const start = T0 + 600_000;
      const pts = [...flat, ...samples(start, start + spikeMs, () => '0.012')];
      const at = (pts[pts.length - 1] as PricePoint).t.getTime();
      expect(referencePrice(pts, at, MEDIAN)).toMatchObject({ priceUsd: '0.004', spotUsd: '0.012' });
    }
  });
  it('median: a rise that lasts more than half the window is honoured', () => {
    const start = T0 + 600_000;
    const pts = [...flat, ...samples(start, start + 310_000, () => '0.005')];
    expect(referencePrice(pts, start + 310_000, MEDIAN)?.priceUsd).toBe('0.005');
    expect(referencePrice(pts, start + 300_000, MEDIAN)?.priceUsd).toBe('0.004'); // exactly half: not yet
  });
  it('a fall is honoured at once (the minimum with the spot)', () => {
    const pts = [...flat, { t: new Date(T0 + 600_000), priceUsd: '0.002' }];
    expect(referencePrice(pts, T0 + 600_000, MEDIAN)?.priceUsd).toBe('0.002');
    expect(referencePrice(pts, T0 + 600_000, TWAP)?.priceUsd).toBe('0.002');
  });
  it('twap: a spike moves it in proportion to its length, exactly', () => {
    // 0.004 for the 8 minutes before, 0.012 for 2 minutes: (8·0.004 + 2·0.012)/10 = 0.0056
    const pts = [
      ...samples(T0, T0 + 480_000, () => '0.004'),
      ...samples(T0 + 480_000, T0 + 600_000, () => '0.012'),
    ];
    expect(referencePrice(pts, T0 + 600_000, TWAP)?.priceUsd).toBe('0.0056');
  });
  it('ignores samples after the instant and unparsable ones; none: undefined', () => {
    const pts = [...flat, { t: new Date(T0 + 700_000), priceUsd: '9' }, { t: new Date(T0), priceUsd: 'x' }];
    expect(referencePrice(pts, T0 + 600_000, MEDIAN)?.priceUsd).toBe('0.004');
    expect(referencePrice([], T0, MEDIAN)).toBeUndefined();
  });
});

describe('guards', () => {
  it('spread is |a − b| / min(a, b), rounded up', () => {
    expect(spreadBps('0.004', '0.0046')).toBe(1500);
    expect(spreadBps('0.0046', '0.004')).toBe(1500);
    expect(spreadBps('0.004', '0.0042')).toBe(500);
    expect(spreadBps('1', '1.00001')).toBe(1);
  });
  const base = { minLiquidityUsd: 5_000, maxSpreadBps: 1_000, spotUsd: '0.004' };
  it('refuses below the liquidity floor, or with no reading at all', () => {
    expect(judgePrice({ ...base, liquiditiesUsd: ['4999.99'] }).refusal).toEqual({
      reason: 'low_liquidity',
      message: LOW_LIQUIDITY_MESSAGE,
    });
    expect(judgePrice({ ...base, liquiditiesUsd: [] }).refusal?.reason).toBe('low_liquidity');
    expect(judgePrice({ ...base, liquiditiesUsd: ['5000', '80000'] }).refusal).toBeUndefined();
    expect(judgePrice({ ...base, liquiditiesUsd: ['80000', '1200'] })).toMatchObject({
      liquidityUsd: '1200',
      refusal: { reason: 'low_liquidity' },
    });
    expect(judgePrice({ ...base, minLiquidityUsd: 0, liquiditiesUsd: [] }).refusal).toBeUndefined();
  });
  it('sources 15 % apart refuse, 5 % apart do not', () => {
    const ok = { ...base, liquiditiesUsd: ['48000'] };
    expect(judgePrice({ ...ok, secondUsd: '0.0046' })).toMatchObject({
      spreadBps: 1500,
      refusal: { reason: 'sources_disagree', message: SOURCES_DISAGREE_MESSAGE },
    });
    expect(judgePrice({ ...ok, secondUsd: '0.0042' })).toEqual({ liquidityUsd: '48000', spreadBps: 500 });
    expect(judgePrice(ok).spreadBps).toBeUndefined(); // one source: the check is off
  });
});

const PAIR = 'DemoPair111111111111111111111111111111111111';
const MINT = 'DemoC1aim11111111111111111111111111111111111';
const dex = (pair: Record<string, unknown>) =>
  JSON.stringify({ schemaVersion: '1.0.0', pairs: [{ chainId: 'solana', pairAddress: PAIR, ...pair }] });
const gecko = (attributes: Record<string, unknown>, claimSide: 'base' | 'quote' = 'base') =>
  JSON.stringify({
    data: {
      id: `solana_${PAIR}`,
      type: 'pool',
      attributes: { address: PAIR, name: 'CLAIM / SOL', ...attributes },
      relationships: {
        base_token: {
          data: {
            id:
              claimSide === 'base' ? `solana_${MINT}` : 'solana_So11111111111111111111111111111111111111112',
            type: 'token',
          },
        },
        quote_token: {
          data: {
            id:
              claimSide === 'quote' ? `solana_${MINT}` : 'solana_So11111111111111111111111111111111111111112',
            type: 'token',
          },
        },
      },
    },
  });

describe('sources: bad fields are rejected, never a crash', () => {
  it('DexScreener liquidity.usd: a number read through its decimal text, bad ones left out with the reason', () => {
    expect(parseDexScreenerPairs(dex({ priceUsd: '0.004', liquidity: { usd: 48210.55 } }), PAIR)).toEqual({
      ok: true,
      priceUsd: '0.004',
      liquidityUsd: '48210.55',
    });
    expect(
      parseDexScreenerPairs(
        '{"pairs":[{"pairAddress":"' + PAIR + '","priceUsd":"0.004","liquidity":{"usd":1.2e4}}]}',
        PAIR,
      ),
    ).toMatchObject({ liquidityUsd: '12000' });
    for (const usd of [0, -5, 'abc', null, undefined, '', '-1', { a: 1 }, '1e999999']) {
      const r = parseDexScreenerPairs(dex({ priceUsd: '0.004', liquidity: { usd } }), PAIR);
      expect(r.ok && r.liquidityUsd === undefined && typeof r.liquidityProblem === 'string').toBe(true);
    }
    const noLiquidity = parseDexScreenerPairs(dex({ priceUsd: '0.004' }), PAIR);
    expect(noLiquidity).toEqual({ ok: true, priceUsd: '0.004', liquidityProblem: 'liquidity is missing' });
  });
  it('liquidity numbers: NaN and infinities refused, e-notation rewritten', () => {
    expect(parseLiquidityUsd(NaN, 'x').ok).toBe(false);
    expect(parseLiquidityUsd(Infinity, 'x').ok).toBe(false);
    expect(parseLiquidityUsd(1e21, 'x')).toEqual({ ok: true, value: '1000000000000000000000' });
    expect(parseLiquidityUsd('5.5e3', 'x')).toEqual({ ok: true, value: '5500' });
  });
  it('DexScreener priceUsd: NaN, zero, negative, a number, missing are bad_price; e-notation is exact', () => {
    for (const priceUsd of ['NaN', '0', '0.000', '-0.004', 0.004, undefined, 'Infinity', '1e'])
      expect(parseDexScreenerPairs(dex({ priceUsd, liquidity: { usd: 9000 } }), PAIR)).toMatchObject({
        ok: false,
        kind: 'bad_price',
      });
    expect(parseDexScreenerPairs(dex({ priceUsd: '4.2e-3', liquidity: { usd: 9000 } }), PAIR)).toMatchObject({
      ok: true,
      priceUsd: '0.0042',
    });
  });
  it('GeckoTerminal: the $CLAIM side of the pool, its reserve, and every bad field', () => {
    expect(
      parseGeckoTerminalPool(
        gecko({ base_token_price_usd: '0.0041', reserve_in_usd: '48000.12' }),
        PAIR,
        MINT,
      ),
    ).toEqual({
      ok: true,
      priceUsd: '0.0041',
      liquidityUsd: '48000.12',
    });
    expect(
      parseGeckoTerminalPool(
        gecko(
          { base_token_price_usd: '141.2', quote_token_price_usd: '0.0041', reserve_in_usd: '48000' },
          'quote',
        ),
        PAIR,
        MINT,
      ),
    ).toMatchObject({ ok: true, priceUsd: '0.0041' });
    expect(parseGeckoTerminalPool(gecko({ base_token_price_usd: '4.1e-3' }), PAIR, MINT)).toMatchObject({
      ok: true,
      priceUsd: '0.0041',
      liquidityProblem: 'reserve_in_usd is missing',
    });
    for (const p of ['NaN', '0', '-0.004', 0.004, null, undefined, ''])
      expect(
        parseGeckoTerminalPool(gecko({ base_token_price_usd: p, reserve_in_usd: '9000' }), PAIR, MINT),
      ).toMatchObject({
        ok: false,
        kind: 'bad_price',
      });
    for (const reserve of ['NaN', '0', '-1', 12.5e-400, 'x'])
      expect(
        parseGeckoTerminalPool(gecko({ base_token_price_usd: '0.004', reserve_in_usd: reserve }), PAIR, MINT),
      ).toMatchObject({ ok: true, liquidityProblem: expect.any(String) });
    expect(parseGeckoTerminalPool('{"data":null}', PAIR, MINT)).toMatchObject({
      ok: false,
      kind: 'malformed_json',
    });
    expect(parseGeckoTerminalPool('nope', PAIR, MINT)).toMatchObject({ ok: false, kind: 'malformed_json' });
    expect(parseGeckoTerminalPool(gecko({ address: 'Other' }), PAIR, MINT)).toMatchObject({
      kind: 'no_matching_pair',
    });
    expect(parseGeckoTerminalPool(gecko({ base_token_price_usd: '1' }), PAIR, 'OtherMint')).toMatchObject({
      kind: 'no_matching_pair',
    });
  });
});

describe('chart downsampling', () => {
  it('keeps ≤ 288 points, bucket closes, always the newest point', () => {
    const day = samples(T0, T0 + 24 * 3600_000, (t) => String(1 + (t - T0) / 10_000));
    const out = downsample(day);
    expect(day).toHaveLength(8640);
    expect(out.length).toBeLessThanOrEqual(288);
    expect(out.length).toBeGreaterThan(280);
    expect(out[out.length - 1]).toBe(day[day.length - 1]);
    const ts = out.map((p) => p.t.getTime());
    expect([...ts].sort((a, b) => a - b)).toEqual(ts);
    expect(downsample(day.slice(0, 100))).toHaveLength(100);
  });
});
