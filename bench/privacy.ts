/**
 * The cost of sealing personal data, against the same store without it, in one run: `npm run bench:privacy`.
 *
 * (a) Order creation: `--orders` (default 1,000) wallet orders one after another through the order service on a
 *     SQLite file with durable commits, with the real sealer and with an identity "sealer" that stores the details
 *     in clear as before sealing (each on its own fresh store): p50/p99 of createOrder, and the sealing alone.
 * (b) Seller console search at `--sizes` (default 10,000 and 100,000) orders of one vendor, each with its own
 *     buyer: as before sealing (SQL LIKE over the plain JSON, count + first page, the query this store used) and
 *     now (the console's listOrders: the vendor's ids and change times, details opened in the server — cold, the
 *     first search after a start, and warm, with the opened text in memory). Rows are copies of one real order
 *     with their own ids and buyers (the benches' usual seeding).
 *
 * Prints the figures; nothing is asserted. SQLite only (the search path is the same on PostgreSQL).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { sql } from 'kysely';
import { catalog } from '../catalog';
import { demoDefaults } from '../src/server/demo-defaults';
import { createQuote } from '../src/server/orders/quotes';
import { createOrderService } from '../src/server/orders/service';
import { sealShipping } from '../src/server/privacy/order-data';
import { createSealer, type Sealer } from '../src/server/privacy/seal';
import { createSearchCache } from '../src/server/privacy/search';
import { listOrders } from '../src/server/seller/views';
import { loadSettings } from '../src/server/settings';
import { createStockRepository } from '../src/server/stock/repository';
import { openStore, type Store } from '../src/server/store/store';
import { cliArg, cliNumber, percentile } from './lib/load';

const args = process.argv.slice(2);
const ordersN = cliNumber(args, 'orders', 1_000, 100_000);
const sizes = (cliArg(args, 'sizes') ?? '10000,100000').split(',').map(Number);
const PRODUCT = 'sonic-crushed-opal-spillproof';

/** Stores the value as it is: the store before sealing. */
const PLAIN: Sealer = {
  currentKeyId: 'plain',
  keyIds: ['plain'],
  seal: (plain) => plain,
  open: (text) => text,
};

function buyer(i: number) {
  return {
    kind: 'international' as const,
    fullName: `Buyer Number${i} Surname${(i * 7919) % 100_003}`,
    email: `buyer${i}@mail${i % 97}.example`,
    address1: `${(i % 999) + 1} Bench Street ${i}`,
    city: `Town${i % 1_000}`,
    stateProvince: 'Benchshire',
    postalCode: `BX${i % 10_000}`,
    country: 'Testland',
  };
}

async function withStore<T>(run: (store: Store, dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-privacy-'));
  const store = await openStore({ kind: 'sqlite', file: join(dir, 'store.sqlite') });
  try {
    return await run(store, dir);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const settings = loadSettings({ PORT: '0', RATE_LIMIT_ORDERS_PER_MINUTE: '0' }, demoDefaults());
const sealer = createSealer(settings.privacy.dataKeys);
const now = () => new Date();
const fmt = (ms: number) => `${ms.toFixed(ms < 10 ? 2 : 1)} ms`;

async function orderCreation(label: string, s: Sealer): Promise<void> {
  await withStore(async (store) => {
    const stock = createStockRepository(store, catalog);
    await stock.seed(catalog, now().toISOString());
    await stock.set({ productId: PRODUCT }, ordersN + 10, 'bench', now().toISOString());
    const orders = createOrderService({ store, catalog, settings, now, stock, sealer: s });
    const priceSource = { current: () => ({ priceUsd: '1.00', fetchedAt: now() }) };
    const times: number[] = [];
    for (let i = 0; i < ordersN; i++) {
      const { token } = createQuote(
        { catalog, settings, priceSource, now },
        { items: [{ productId: PRODUCT, quantity: 1 }] },
      );
      const t0 = performance.now();
      await orders.createOrder(
        { quote: token, paymentMethod: 'wallet', shipping: buyer(i) },
        `bench-${label}-${i}`,
      );
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    console.log(
      `  ${label.padEnd(16)} ${ordersN} orders: p50 ${fmt(percentile(times, 50))}, p99 ${fmt(percentile(times, 99))}`,
    );
  });
}

/** n orders of one vendor, each its own buyer, sealed with `s`; returns a term that finds exactly one. */
async function seed(store: Store, s: Sealer, n: number): Promise<string> {
  const stock = createStockRepository(store, catalog);
  await stock.seed(catalog, now().toISOString());
  await stock.set({ productId: PRODUCT }, 5, 'bench', now().toISOString());
  const orders = createOrderService({ store, catalog, settings, now, stock, sealer: s });
  const { token } = createQuote(
    { catalog, settings, priceSource: { current: () => ({ priceUsd: '1.00', fetchedAt: now() }) }, now },
    { items: [{ productId: PRODUCT, quantity: 1 }] },
  );
  const created = await orders.createOrder(
    { quote: token, paymentMethod: 'wallet', shipping: buyer(0) },
    'bench-seed',
  );
  const row = await store.db
    .selectFrom('orders')
    .selectAll()
    .where('id', '=', created.body.orderId)
    .executeTakeFirstOrThrow();
  const t0 = Date.parse(row.created_at);
  for (let i = 1; i < n; i += 500) {
    const rows = Array.from({ length: Math.min(500, n - i) }, (_, k) => {
      const id = randomUUID();
      const at = new Date(t0 - (i + k) * 1000).toISOString();
      return {
        ...row,
        id,
        reference: Keypair.generate().publicKey.toBase58(),
        public_token: randomBytes(16).toString('hex'),
        shipping_json: sealShipping(s, id, buyer(i + k)),
        created_at: at,
        updated_at: at,
      };
    });
    await store.db.insertInto('orders').values(rows).execute();
  }
  return `Surname${(Math.floor(n / 2) * 7919) % 100_003}`;
}

/** The console's search as it was before sealing: SQL LIKE over the JSON text, count and first page. */
async function likeSearch(store: Store, vendorId: string, term: string): Promise<number> {
  const pattern = `%${term.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const scoped = () =>
    store.db
      .selectFrom('orders')
      .where('vendor_id', 'in', [vendorId])
      .where((eb) =>
        eb.or([
          eb(sql`lower(orders.shipping_json)`, 'like', sql`${pattern} escape '\\'`),
          eb(sql`lower(orders.id)`, 'like', sql`${pattern} escape '\\'`),
        ]),
      );
  const count = await scoped()
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirst();
  await scoped().selectAll('orders').orderBy('created_at', 'desc').limit(25).execute();
  return Number(count?.n ?? 0);
}

async function timed(runs: number, f: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await f();
    out.push(performance.now() - t0);
  }
  return out.sort((a, b) => a - b);
}

async function main(): Promise<void> {
  const vendorId = catalog.products.find((p) => p.id === PRODUCT)?.vendorId ?? '';
  console.log(`bench:privacy (${new Date().toISOString()}), SQLite file, durable commits`);

  console.log(`(a) order creation, one after another (POST /api/orders' service call):`);
  const seal1 = performance.now();
  for (let i = 0; i < 10_000; i++) sealShipping(sealer, randomUUID(), buyer(i));
  const sealUs = ((performance.now() - seal1) / 10_000) * 1000;
  await orderCreation('before sealing', PLAIN);
  await orderCreation('sealed', sealer);
  console.log(`  sealing one order's details alone: ${sealUs.toFixed(1)} µs`);

  console.log('(b) seller console search (count + first page of 25), one vendor:');
  for (const n of sizes) {
    await withStore(async (store) => {
      const term = await seed(store, PLAIN, n);
      await likeSearch(store, vendorId, term); // warm the page cache
      const t = await timed(5, () => likeSearch(store, vendorId, term));
      console.log(`  ${n} orders, before sealing (SQL LIKE): median ${fmt(percentile(t, 50))}`);
    });
    await withStore(async (store) => {
      const term = await seed(store, sealer, n);
      const deps = {
        store,
        sealer,
        search: createSearchCache(sealer),
        now: () => new Date(),
        detailsGraceMs: 1_800_000,
      };
      const t0 = performance.now();
      const first = await listOrders(deps, [vendorId], { search: term });
      const cold = performance.now() - t0;
      const warm = await timed(5, () => listOrders(deps, [vendorId], { search: term }));
      const rss = process.memoryUsage().rss / 1e6;
      console.log(
        `  ${n} orders, sealed (opened in the server): cold ${fmt(cold)}, warm median ${fmt(percentile(warm, 50))} (found ${first.total}; cache ${deps.search.size} entries, RSS ${rss.toFixed(0)} MB)`,
      );
    });
  }
}

await main();
