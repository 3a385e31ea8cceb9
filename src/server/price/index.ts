export {
  fetchDexScreenerPrice,
  parseDexScreenerPairs,
  dexScreenerPairUrl,
  type PriceFetchResult,
  type PriceFetchErrorKind,
} from './dexscreener';
export { parsePositiveDecimal } from './decimal';
export {
  createMemoryPriceHistoryStore,
  downsample,
  RingBuffer,
  type PriceHistoryStore,
  type PricePoint,
} from './history';
export {
  createPriceService,
  PRICE_UNAVAILABLE_MESSAGE,
  type PriceService,
  type PriceServiceDeps,
  type CurrentPrice,
  type PriceSource,
  type DisagreementEvent,
} from './service';
export { fetchGeckoTerminalPrice, parseGeckoTerminalPool, geckoTerminalPoolUrl } from './geckoterminal';
export {
  judgePrice,
  spreadBps,
  LOW_LIQUIDITY_MESSAGE,
  SOURCES_DISAGREE_MESSAGE,
  type PriceRefusal,
  type RefusalReason,
} from './guards';
export { referencePrice, type ReferenceConfig, type ReferencePrice, type ReferenceRule } from './reference';
export { referencePriceAt, usdCentsAt } from './reference-at';
export {
  demoPriceAt,
  createDemoMarket,
  DEMO_MARKET_MODES,
  type DemoMarket,
  type DemoMarketMode,
} from './demo-feed';
