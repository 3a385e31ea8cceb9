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
} from './service';
export { pricePlugin, type PricePluginOptions } from './plugin';
export { demoPriceFeedPlugin, demoPriceAt } from './demo-feed';
