/**
 * Demo mode's stand-ins for DexScreener and GeckoTerminal: their response shapes, a gently moving price that is a
 * pure function of time (base 0.0042 USD, within about ±4 %), as a decimal string with at most 8 significant
 * digits, computed in integer units of 1e-10 USD. A `DemoMarket` can be pushed (the /dev/price control and
 * `npm run demo:price`): a pump (3×, for a while), a dump (halved), a thin pool (liquidity below the floor) or
 * a split (the second source 15 % above DexScreener), so a newcomer can watch the quote ignore a spike, follow a
 * drop, and refuse an untrustworthy price.
 */

const BASE_UNITS = 42_000_000; // 0.0042 USD in 1e-10 USD
/** The demo pool's liquidity in USD (both sides), and the thin pool's (below the default floor of $5,000). */
export const DEMO_LIQUIDITY_USD = 48_210.55;
export const DEMO_THIN_LIQUIDITY_USD = 1_850.25;
export const DEMO_MINT_FALLBACK = 'DemoC1aim11111111111111111111111111111111111';

function demoUnitsAt(timeMs: number): number {
  const t = timeMs / 1000;
  const wobble = 0.03 * Math.sin((2 * Math.PI * t) / 900) + 0.01 * Math.sin((2 * Math.PI * t) / 97);
  return Math.max(1, Math.round(BASE_UNITS * (1 + wobble)));
}

function formatUnits(units: number): string {
  const s = String(units).padStart(11, '0');
  return `${s.slice(0, -10).replace(/^0+(?=\d)/, '')}.${s.slice(-10)}`.replace(/0+$/, '').replace(/\.$/, '');
}

export function demoPriceAt(timeMs: number): string {
  return formatUnits(demoUnitsAt(timeMs));
}

export type DemoMarketMode = 'normal' | 'pump' | 'dump' | 'thin' | 'split';
export const DEMO_MARKET_MODES: readonly DemoMarketMode[] = ['normal', 'pump', 'dump', 'thin', 'split'];
/** A pump lasts this long unless told otherwise, then the market is normal again. */
export const DEMO_PUMP_MS = 2 * 60_000;

export interface DemoMarketState {
  mode: DemoMarketMode;
  /** When the mode ends by itself (pump), ms since epoch. */
  until?: number;
}

/** The demo market: what the demo feeds answer at a time. */
export interface DemoMarket {
  state(nowMs: number): DemoMarketState;
  /** Sets the mode; `durationMs` (default: pump 2 min, others until changed) ends it by itself. */
  set(mode: DemoMarketMode, nowMs: number, durationMs?: number): DemoMarketState;
  /** DexScreener's spot price and liquidity at `nowMs`. */
  primary(nowMs: number): { priceUsd: string; liquidityUsd: number };
  /** GeckoTerminal's price and reserve at `nowMs` (0.3 % above DexScreener; 15 % in a split). */
  second(nowMs: number): { priceUsd: string; reserveUsd: string };
}

export function createDemoMarket(): DemoMarket {
  let current: DemoMarketState = { mode: 'normal' };
  const state = (nowMs: number): DemoMarketState => {
    if (current.until !== undefined && nowMs >= current.until) current = { mode: 'normal' };
    return current;
  };
  const units = (nowMs: number): number => {
    const u = demoUnitsAt(nowMs);
    const mode = state(nowMs).mode;
    return mode === 'pump' ? u * 3 : mode === 'dump' ? Math.max(1, Math.floor(u / 2)) : u;
  };
  const liquidity = (nowMs: number) =>
    state(nowMs).mode === 'thin' ? DEMO_THIN_LIQUIDITY_USD : DEMO_LIQUIDITY_USD;
  return {
    state,
    set(mode, nowMs, durationMs) {
      const ms = durationMs ?? (mode === 'pump' ? DEMO_PUMP_MS : undefined);
      current = mode === 'normal' || ms === undefined ? { mode } : { mode, until: nowMs + ms };
      return current;
    },
    primary: (nowMs) => ({ priceUsd: formatUnits(units(nowMs)), liquidityUsd: liquidity(nowMs) }),
    second(nowMs) {
      const u = units(nowMs);
      const factor = state(nowMs).mode === 'split' ? 1150 : 1003;
      return {
        priceUsd: formatUnits(Math.round((u * factor) / 1000)),
        reserveUsd: liquidity(nowMs).toFixed(2),
      };
    },
  };
}

export function demoPairsResponse(
  pairAddress: string,
  timeMs: number,
  market: DemoMarket = createDemoMarket(),
  mint = DEMO_MINT_FALLBACK,
): unknown {
  const { priceUsd, liquidityUsd } = market.primary(timeMs);
  const pair = {
    chainId: 'solana',
    dexId: 'raydium',
    url: `https://dexscreener.com/solana/${pairAddress.toLowerCase()}`,
    pairAddress,
    baseToken: { address: mint, name: 'Reclaim (demo)', symbol: 'CLAIM' },
    quoteToken: {
      address: 'So11111111111111111111111111111111111111112',
      name: 'Wrapped SOL',
      symbol: 'SOL',
    },
    priceNative: '0.00003',
    priceUsd,
    liquidity: { usd: liquidityUsd, base: 5_739_350, quote: 171.3 },
  };
  return { schemaVersion: '1.0.0', pairs: [pair], pair };
}

/** GeckoTerminal's pool endpoint shape (`GET /networks/solana/pools/{pool}`), $CLAIM as the base token. */
export function demoGeckoPoolResponse(
  poolAddress: string,
  timeMs: number,
  market: DemoMarket,
  mint = DEMO_MINT_FALLBACK,
): unknown {
  const { priceUsd, reserveUsd } = market.second(timeMs);
  return {
    data: {
      id: `solana_${poolAddress}`,
      type: 'pool',
      attributes: {
        address: poolAddress,
        name: 'CLAIM / SOL',
        base_token_price_usd: priceUsd,
        quote_token_price_usd: '140.0',
        reserve_in_usd: reserveUsd,
        pool_created_at: '2025-01-01T00:00:00Z',
      },
      relationships: {
        base_token: { data: { id: `solana_${mint}`, type: 'token' } },
        quote_token: { data: { id: 'solana_So11111111111111111111111111111111111111112', type: 'token' } },
        dex: { data: { id: 'raydium', type: 'dex' } },
      },
    },
  };
}
