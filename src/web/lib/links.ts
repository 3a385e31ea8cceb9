/**
 * Outside links. The specification names these places but not their addresses; the values here are ours
 * (docs/decisions/web.md). The price-chart link is built from the pair address of /api/config.
 */
export const TELEGRAM_GROUP_URL = 'https://t.me/reclaim_claim';
export const PHANTOM_DOWNLOAD_URL = 'https://phantom.com/download';
export const dexscreenerUrl = (pairAddress: string) =>
  `https://dexscreener.com/solana/${encodeURIComponent(pairAddress)}`;
export const jupiterSwapUrl = (mint: string) => `https://jup.ag/swap/SOL-${encodeURIComponent(mint)}`;
