import type { FastifyPluginAsync } from 'fastify';

/**
 * Demo mode's stand-in for DexScreener: the same response shape, a gently moving price that is a pure
 * function of time (base 0.0042 USD, within about ±4 %), as a decimal string with at most 8 significant digits.
 * Computed in integer units of 1e-10 USD.
 */

const BASE_UNITS = 42_000_000; // 0.0042 USD in 1e-10 USD

export function demoPriceAt(timeMs: number): string {
  const t = timeMs / 1000;
  const wobble = 0.03 * Math.sin((2 * Math.PI * t) / 900) + 0.01 * Math.sin((2 * Math.PI * t) / 97);
  const units = Math.max(1, Math.round(BASE_UNITS * (1 + wobble)));
  const s = String(units).padStart(11, '0');
  return `${s.slice(0, -10).replace(/^0+(?=\d)/, '')}.${s.slice(-10)}`.replace(/0+$/, '').replace(/\.$/, '');
}

export function demoPairsResponse(pairAddress: string, timeMs: number): unknown {
  const priceUsd = demoPriceAt(timeMs);
  const pair = {
    chainId: 'solana',
    dexId: 'raydium',
    url: `https://dexscreener.com/solana/${pairAddress.toLowerCase()}`,
    pairAddress,
    baseToken: {
      address: 'DemoC1aim11111111111111111111111111111111111',
      name: 'Reclaim (demo)',
      symbol: 'CLAIM',
    },
    quoteToken: {
      address: 'So11111111111111111111111111111111111111112',
      name: 'Wrapped SOL',
      symbol: 'SOL',
    },
    priceNative: '0.00003',
    priceUsd,
  };
  return { schemaVersion: '1.0.0', pairs: [pair], pair };
}

export interface DemoPriceFeedOptions {
  now?: () => number;
}

/** GET /demo/dexscreener/latest/dex/pairs/solana/:pair — register in demo mode only. */
export const demoPriceFeedPlugin: FastifyPluginAsync<DemoPriceFeedOptions> = async (app, opts) => {
  const now = opts.now ?? Date.now;
  app.get<{ Params: { pair: string } }>('/demo/dexscreener/latest/dex/pairs/solana/:pair', (req, reply) => {
    const pair = req.params.pair;
    if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(pair))
      return reply.status(200).send({ schemaVersion: '1.0.0', pairs: null, pair: null });
    return reply.header('cache-control', 'no-store').send(demoPairsResponse(pair, now()));
  });
};
