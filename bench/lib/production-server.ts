/**
 * The store in the production composition, as src/server/main.ts runs it: startServer with request logging and
 * every limit on, startPayments (the payment watcher with its RPC budget) as a service, production settings
 * (SOLANA_RPC_URL set). Forked by `startProductionServer` (./production.ts) with:
 *   --rpc URL --ws URL --price URL --dir DIR [--pg-url URL --schema NAME]
 *   [--drop-start ISO --drop-units N --drop-hold-minutes M --trust-proxy HOPS] (bench:drop)
 * It sends `{ port }` once listening, answers `{ stats: true }` with the RPC counters, and exits when its IPC
 * channel closes (dropping its PostgreSQL schema, if any).
 */
import { openStore } from '../../src/server/store/store';
import { TEST_DATA_KEYS } from '../../test/support/fixtures';
import { join } from 'node:path';
import { startServer } from '../../src/server/server';
import { paymentsService, type RunningPayments } from '../../src/server/payments/index';
import { loadSettings } from '../../src/server/settings';
import { demoKeys } from '../../test/support/demo-keypairs';
import { BENCH_DROP, BENCH_PAIR, BENCH_PRODUCT } from './production';
import { catalog as shopCatalog } from '../../catalog';

const args = process.argv.slice(2);
const arg = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const dir = arg('dir') ?? '.';
const pgUrl = arg('pg-url');
const schema = arg('schema') ?? 'bench';
const keys = demoKeys();
const settings = loadSettings({
  PORT: '0',
  DATA_KEYS: TEST_DATA_KEYS,
  SOLANA_RPC_URL: arg('rpc'),
  SOLANA_WS_URL: arg('ws'),
  SOLANA_CLUSTER: 'localnet',
  PRICE_API_URL: arg('price'),
  PRICE_PAIR_ADDRESS: BENCH_PAIR,
  CLAIM_MINT: keys.mint.toBase58(),
  RECIPIENT_COOPERSGLASS: keys.recipients.coopersglass.toBase58(),
  RECIPIENT_GORILLA: keys.recipients.gorilla.toBase58(),
  QUOTE_SECRET: 'bench-secret-0123456789-0123456789-abcdef',
  SELLER_EMAIL: 'seller@shop.test',
  MAIL_TRANSPORT: 'file',
  MAIL_DIR: join(dir, 'mail'),
  DATABASE_URL: pgUrl ?? join(dir, 'store.sqlite'),
  // A fleet's instances keep their pools warm (docs/deploy.md); SQLite ignores it.
  DATABASE_POOL_WARM: '1',
  // The order route's own limit is per client IP. bench:drop's buyers each have their own address (X-Forwarded-For
  // from the load generator, one proxy hop): the production default stays. The other benches send the whole load
  // from one address: set out of reach so they measure the route, not the limiter (which still runs every request).
  ...(arg('trust-proxy') ? { TRUST_PROXY: arg('trust-proxy') } : { RATE_LIMIT_ORDERS_PER_MINUTE: '1000000' }),
});
// bench:drop: the shop's catalogue with one drop (a one-of-a-kind glass product with --drop-units pieces).
const dropStart = arg('drop-start');
const catalog = dropStart
  ? {
      vendors: shopCatalog.vendors,
      products: [
        ...shopCatalog.products,
        {
          ...shopCatalog.products.find((p) => p.id === BENCH_PRODUCT)!,
          id: BENCH_DROP,
          name: 'Bench Drop',
          routes: ['/vendors/coopersglass/bench-drop'],
          initialStock: Number(arg('drop-units') ?? 20),
          drop: { startsAt: dropStart, holdMinutes: Number(arg('drop-hold-minutes') ?? 1) },
        },
      ],
    }
  : undefined;
let payments: RunningPayments | undefined;
const storeConfig = pgUrl ? { kind: 'postgres' as const, url: pgUrl, schema } : settings.database;
// The release step first, as a deploy runs it (`npm run migrate`): production settings leave MIGRATE_ON_START off.
await (await openStore(storeConfig)).close();
const server = await startServer(settings, {
  logger: true,
  ...(pgUrl ? { store: storeConfig } : {}),
  ...(catalog ? { catalog } : {}),
  services: [paymentsService({}, (p) => (payments = p))],
});
// Every order reserves its unit: give the bench's (one of a kind) product enough stock for the whole run.
await server.stock.set({ productId: BENCH_PRODUCT }, 1_000_000, 'bench', new Date().toISOString());
process.send?.({ port: Number(new URL(server.url).port) });
process.on('message', (m: { stats?: boolean }) => {
  if (m.stats) process.send?.({ rpc: payments?.rpcStats() });
});
process.on('disconnect', () => {
  void (async () => {
    await server.close();
    if (pgUrl) {
      const s = await openStore({ kind: 'postgres', url: pgUrl, schema });
      await s.db.schema
        .dropSchema(schema)
        .ifExists()
        .cascade()
        .execute()
        .catch(() => undefined);
      await s.close();
    }
    process.exit(0);
  })();
});
