/**
 * The store's price service as the server runs it: the configured sources (DexScreener, and GeckoTerminal when
 * set), history kept in the store (it survives a restart), and the sellers e-mailed once per episode of
 * disagreeing sources (./alerts.ts, through the outbox). In demo mode the configured sources are our own demo
 * feeds, reached at the address the server actually bound (PORT=0 in tests): `boundUrl()` is '' until it listens.
 */
import type { Kysely } from 'kysely';
import type { Sealer } from '../privacy/seal';
import type { Settings } from '../settings';
import type { Database } from '../store/schema';
import { closePriceAlert, openPriceAlert } from './alerts';
import { createKyselyPriceHistoryStore } from './kysely-history';
import { createPriceService, type PriceService, type PriceShare } from './service';

export interface ShopPriceDeps {
  db: Kysely<Database>;
  settings: Pick<Settings, 'price' | 'demo' | 'claimMint' | 'mail' | 'recipients'>;
  /** The address the server bound ('' before it listens): the demo feeds are reached there. */
  boundUrl: () => string;
  /** Seals the alert e-mails (as every stored message). */
  sealer: Sealer;
  /** Alerts were queued: wake the outbox worker. */
  onAlertQueued: () => void;
  log?: { warn(msg: string): void };
  /** The fleet's one poller (./shared.ts, PostgreSQL): absent, this instance polls. */
  share?: PriceShare;
}

export function createShopPrice(deps: ShopPriceDeps): PriceService {
  const { settings, db } = deps;
  const demoFeeds: [string, string][] = [[settings.price.apiUrl, '/demo/dexscreener']];
  if (settings.price.secondSourceUrl) demoFeeds.push([settings.price.secondSourceUrl, '/demo/geckoterminal']);
  return createPriceService(settings.price, {
    source: settings.demo ? 'demo' : 'dexscreener',
    claimMint: settings.claimMint,
    store: createKyselyPriceHistoryStore(db),
    onDisagreement: async (e) => {
      if (e.state === 'ended') await closePriceAlert({ db });
      else if ((await openPriceAlert({ db, settings, sealer: deps.sealer }, e)) > 0) deps.onAlertQueued();
    },
    ...(deps.log ? { log: deps.log } : {}),
    ...(deps.share ? { share: deps.share } : {}),
    ...(settings.demo
      ? {
          fetch: ((input: string | URL | Request, init?: RequestInit) => {
            const u = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
            const bound = deps.boundUrl();
            const feed = bound ? demoFeeds.find(([configured]) => u.startsWith(configured)) : undefined;
            return fetch(feed ? `${bound}${feed[1]}${u.slice(feed[0].length)}` : u, init);
          }) as typeof fetch,
        }
      : {}),
  });
}
