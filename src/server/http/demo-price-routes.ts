import type { FastifyPluginAsync } from 'fastify';
import {
  createDemoMarket,
  DEMO_MINT_FALLBACK,
  demoGeckoPoolResponse,
  demoPairsResponse,
  type DemoMarket,
} from '../price/demo-feed';

export interface DemoPriceFeedOptions {
  now?: () => number;
  /** Shared with the /dev/price control. Default: a market of its own. */
  market?: DemoMarket;
  /** The demo $CLAIM mint (the token ids the feeds name). */
  mint?: string;
}

const POOL = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/**
 * GET /demo/dexscreener/latest/dex/pairs/solana/:pair and GET /demo/geckoterminal/networks/solana/pools/:pool —
 * register in demo mode only.
 */
export const demoPriceFeedPlugin: FastifyPluginAsync<DemoPriceFeedOptions> = async (app, opts) => {
  const now = opts.now ?? Date.now;
  const market = opts.market ?? createDemoMarket();
  const mint = opts.mint ?? DEMO_MINT_FALLBACK;
  app.get<{ Params: { pair: string } }>('/demo/dexscreener/latest/dex/pairs/solana/:pair', (req, reply) => {
    const pair = req.params.pair;
    if (!POOL.test(pair)) return reply.status(200).send({ schemaVersion: '1.0.0', pairs: null, pair: null });
    return reply.header('cache-control', 'no-store').send(demoPairsResponse(pair, now(), market, mint));
  });
  app.get<{ Params: { pool: string } }>('/demo/geckoterminal/networks/solana/pools/:pool', (req, reply) => {
    const pool = req.params.pool;
    if (!POOL.test(pool)) return reply.status(404).send({ errors: [{ status: '404', title: 'Not Found' }] });
    return reply.header('cache-control', 'no-store').send(demoGeckoPoolResponse(pool, now(), market, mint));
  });
};
