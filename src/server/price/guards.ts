/**
 * The price guards (pure): quotes are refused while the pool is too thin or the two sources disagree. The
 * messages are what the buyer reads (POST /api/quotes) and what GET /api/price says.
 */
import { parsePriceUsd } from '../../core/money';
import { wholeDollars } from './decimal';

export type RefusalReason = 'low_liquidity' | 'sources_disagree';

export interface PriceRefusal {
  reason: RefusalReason;
  message: string;
}

export const LOW_LIQUIDITY_MESSAGE =
  'The $CLAIM price cannot be trusted right now (too little liquidity). Please try again later.';
export const SOURCES_DISAGREE_MESSAGE =
  'The $CLAIM price cannot be trusted right now (our two price sources disagree). Please try again later.';

/** |a − b| / min(a, b) in basis points, rounded up (exact, on the decimal strings). */
export function spreadBps(a: string, b: string): number {
  const x = parsePriceUsd(a);
  const y = parsePriceUsd(b);
  const xv = x.num * y.den; // both over den_x·den_y
  const yv = y.num * x.den;
  const diff = xv > yv ? xv - yv : yv - xv;
  const low = xv < yv ? xv : yv;
  const bps = (diff * 10_000n + low - 1n) / low;
  return bps > 1_000_000n ? 1_000_000 : Number(bps);
}

export interface GuardInput {
  minLiquidityUsd: number;
  maxSpreadBps: number;
  /** Valid liquidity readings (plain decimal USD) from the sources that gave one. */
  liquiditiesUsd: string[];
  spotUsd: string;
  /** The second source's fresh price, when one is configured and answered recently. */
  secondUsd?: string;
}

export interface GuardVerdict {
  refusal?: PriceRefusal;
  /** The smallest liquidity reading (what the floor was checked against). */
  liquidityUsd?: string;
  spreadBps?: number;
}

export function judgePrice(input: GuardInput): GuardVerdict {
  const verdict: GuardVerdict = {};
  let lowest: string | undefined;
  for (const l of input.liquiditiesUsd) {
    if (lowest === undefined || compareDecimal(l, lowest) < 0) lowest = l;
  }
  if (lowest !== undefined) verdict.liquidityUsd = lowest;
  if (input.secondUsd !== undefined) verdict.spreadBps = spreadBps(input.spotUsd, input.secondUsd);
  if (
    input.minLiquidityUsd > 0 &&
    (lowest === undefined || wholeDollars(lowest) < BigInt(input.minLiquidityUsd))
  ) {
    verdict.refusal = { reason: 'low_liquidity', message: LOW_LIQUIDITY_MESSAGE };
  } else if (verdict.spreadBps !== undefined && verdict.spreadBps > input.maxSpreadBps) {
    verdict.refusal = { reason: 'sources_disagree', message: SOURCES_DISAGREE_MESSAGE };
  }
  return verdict;
}

function compareDecimal(a: string, b: string): number {
  const x = parsePriceUsd(a);
  const y = parsePriceUsd(b);
  const l = x.num * y.den;
  const r = y.num * x.den;
  return l < r ? -1 : l > r ? 1 : 0;
}
