import { section } from './schema';
import type { Settings } from './types';

/** The price guards' defaults (docs/decisions/price-and-mail.md has the arithmetic behind them). */
export const PRICE_GUARD_DEFAULTS = {
  reference: { rule: 'median', windowMs: 600_000 },
  minLiquidityUsd: 5_000,
  maxSpreadBps: 1_000,
} as const satisfies Pick<Settings['price'], 'reference' | 'minLiquidityUsd' | 'maxSpreadBps'>;

/** The price pair of $CLAIM on DexScreener. Overridable with PRICE_PAIR_ADDRESS. */
export const DEFAULT_PAIR_ADDRESS = 'DemoPair111111111111111111111111111111111111';

/** The $CLAIM price: its source (DexScreener's pairs endpoint), refresh, and the guards quotes rely on. */
export const priceSection = section({
  title: 'Price',
  settings: {
    PRICE_API_URL: {
      doc: "DexScreener's API base (https://api.dexscreener.com). Required outside demo mode.",
      defaultDoc: "none (demo mode: the server's own demo feed)",
    },
    PRICE_PAIR_ADDRESS: {
      doc: "The $CLAIM pair's address on DexScreener (base58).",
      default: DEFAULT_PAIR_ADDRESS,
    },
    PRICE_REFRESH_MS: {
      doc: 'How often the price is fetched, in ms.',
      default: 10_000,
      int: [10_000, 3_600_000],
    },
    PRICE_TIMEOUT_MS: {
      doc: 'How long one price request may take, in ms.',
      default: 5_000,
      int: [100, 60_000],
    },
    PRICE_REFERENCE_RULE: {
      doc: "Quotes use min(spot, the time-weighted median ('median') or mean ('twap') of the window's samples).",
      default: PRICE_GUARD_DEFAULTS.reference.rule,
      values: 'median, twap',
    },
    PRICE_REFERENCE_WINDOW_MS: {
      doc: "The reference price's window, in ms.",
      default: PRICE_GUARD_DEFAULTS.reference.windowMs,
      int: [60_000, 3_600_000],
    },
    PRICE_MIN_LIQUIDITY_USD: {
      doc: 'Quotes are refused while the pool holds less than this many USD (0 turns it off).',
      default: PRICE_GUARD_DEFAULTS.minLiquidityUsd,
      int: [0, 1_000_000_000],
    },
    PRICE_SECOND_SOURCE_URL: {
      doc: "The second, independent source: GeckoTerminal's API (https://api.geckoterminal.com/api/v2). Unset: one source, no agreement check.",
      defaultDoc: "unset (demo mode: the server's own demo feed)",
    },
    PRICE_MAX_SPREAD: {
      doc: 'Quotes are refused while the two sources differ by more than this.',
      default: `${PRICE_GUARD_DEFAULTS.maxSpreadBps / 100}%`,
      percentBps: [100, 10_000],
    },
  },
  read(r, needs: { demo: boolean; port: number }): Pick<Settings, 'price'> {
    const { demo: isDemo, port } = needs;
    const apiUrl =
      r.url('PRICE_API_URL', isDemo ? `http://127.0.0.1:${port}/demo/dexscreener` : undefined) ?? '';
    if (!isDemo && !r.get('PRICE_API_URL'))
      r.problem('PRICE_API_URL: required outside demo mode (e.g. https://api.dexscreener.com)');
    const pairAddress = r.get('PRICE_PAIR_ADDRESS') ?? DEFAULT_PAIR_ADDRESS;
    if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(pairAddress))
      r.problem('PRICE_PAIR_ADDRESS: must be a base58 address');

    const refreshMs = r.int('PRICE_REFRESH_MS');
    const timeoutMs = r.int('PRICE_TIMEOUT_MS');
    const windowMs = r.int('PRICE_REFERENCE_WINDOW_MS');
    const rule = r.get('PRICE_REFERENCE_RULE') ?? PRICE_GUARD_DEFAULTS.reference.rule;
    if (rule !== 'median' && rule !== 'twap')
      r.problem(`PRICE_REFERENCE_RULE: must be 'median' or 'twap' (got '${rule}')`);
    const minLiquidityUsd = r.int('PRICE_MIN_LIQUIDITY_USD');
    const secondSourceUrl = r.url(
      'PRICE_SECOND_SOURCE_URL',
      isDemo ? `http://127.0.0.1:${port}/demo/geckoterminal` : undefined,
    );
    const maxSpreadBps = r.percentBps('PRICE_MAX_SPREAD');
    return {
      price: {
        apiUrl,
        pairAddress,
        refreshMs,
        maxAgeMs: 60_000,
        timeoutMs,
        reference: { rule: rule === 'twap' ? 'twap' : 'median', windowMs },
        minLiquidityUsd,
        ...(secondSourceUrl !== undefined ? { secondSourceUrl } : {}),
        maxSpreadBps,
      },
    };
  },
});
