/**
 * Fake DexScreener and GeckoTerminal feeds on 127.0.0.1, in their real response shapes, both on one loopback
 * server: /dex/latest/dex/pairs/solana/:pair and /gecko/networks/solana/pools/:pool. `market` decides the answers.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Keypair } from '@solana/web3.js';

export const PAIR = 'DemoPair111111111111111111111111111111111111';
export const MINT = Keypair.generate().publicKey.toBase58();
const SOL = 'So11111111111111111111111111111111111111112';

/** What the fakes answer; a field set to `undefined` is left out of the JSON. */
export interface Market {
  dexPrice: unknown;
  dexLiquidity: unknown;
  geckoPrice: unknown;
  geckoReserve: unknown;
}

export const dexBody = (m: Market) =>
  JSON.stringify({
    schemaVersion: '1.0.0',
    pairs: [
      {
        chainId: 'solana',
        dexId: 'raydium',
        url: `https://dexscreener.com/solana/${PAIR.toLowerCase()}`,
        pairAddress: PAIR,
        baseToken: { address: MINT, name: 'Reclaim', symbol: 'CLAIM' },
        quoteToken: { address: SOL, name: 'Wrapped SOL', symbol: 'SOL' },
        priceNative: '0.00003',
        priceUsd: m.dexPrice,
        txns: { m5: { buys: 3, sells: 2 }, h1: { buys: 20, sells: 18 } },
        volume: { h24: 5120.4, h6: 900.1, h1: 120.7, m5: 10.2 },
        liquidity:
          m.dexLiquidity === undefined ? undefined : { usd: m.dexLiquidity, base: 5739350, quote: 171.3 },
        fdv: 420000,
      },
    ],
    pair: null,
  });

export const geckoBody = (m: Market) =>
  JSON.stringify({
    data: {
      id: `solana_${PAIR}`,
      type: 'pool',
      attributes: {
        address: PAIR,
        name: 'CLAIM / SOL',
        base_token_price_usd: m.geckoPrice,
        quote_token_price_usd: '140.12',
        reserve_in_usd: m.geckoReserve,
        pool_created_at: '2025-01-01T00:00:00Z',
      },
      relationships: {
        base_token: { data: { id: `solana_${MINT}`, type: 'token' } },
        quote_token: { data: { id: `solana_${SOL}`, type: 'token' } },
        dex: { data: { id: 'raydium', type: 'dex' } },
      },
    },
  });

export class Feeds {
  market: Market = {
    dexPrice: '0.004',
    dexLiquidity: 48210.55,
    geckoPrice: '0.00401',
    geckoReserve: '48150.10',
  };
  requests: string[] = [];
  server: Server = createServer((req, res) => {
    const url = req.url ?? '';
    this.requests.push(url);
    res.setHeader('content-type', 'application/json');
    if (url === `/dex/latest/dex/pairs/solana/${PAIR}`) return res.end(dexBody(this.market));
    if (url === `/gecko/networks/solana/pools/${PAIR}`) return res.end(geckoBody(this.market));
    res.statusCode = 404;
    res.end('{}');
  });
  base = '';
  async listen() {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  async close() {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}
