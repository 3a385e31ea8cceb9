/**
 * The seller console's list reads at scale: `npm run bench:seller-list`. One vendor's orders on a SQLite file
 * (`--sizes`, default 10,000 and 100,000; copies of one real order with their own ids, buyers, times and a spread
 * of statuses, one in 50 with an extra payment, one in 20 shipped with a seller action), then:
 * - the landing view: the To ship queue's first page of 25 with every queue's count (listOrders, no search);
 * - the All queue's first page with a date range of one day;
 * - the "changed since" poll the open console makes every 3 s (changesSince), with 10 orders changed since;
 * - the sales summary (today, 7, 30 days; the orders span about 20 days).
 * Prints medians of 5 runs after one warm-up; nothing is asserted. SQLite only (the SQL is the same on PostgreSQL).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { catalog } from '../catalog';
import type { OrderStatus } from '../src/core/api';
import { demoDefaults } from '../src/server/demo-defaults';
import { createQuote } from '../src/server/orders/quotes';
import { createOrderService } from '../src/server/orders/service';
import { createSealer } from '../src/server/privacy/seal';
import { createSearchCache } from '../src/server/privacy/search';
import { changesSince } from '../src/server/seller/live';
import { salesSummary } from '../src/server/seller/summary';
import { listOrders } from '../src/server/seller/views';
import { loadSettings } from '../src/server/settings';
import { createStockRepository } from '../src/server/stock/repository';
import { openStore, type Store } from '../src/server/store/store';
import { cliArg, percentile } from './lib/load';

const args = process.argv.slice(2);
const sizes = (cliArg(args, 'sizes') ?? '10000,100000').split(',').map(Number);
const PRODUCT = 'sonic-crushed-opal-spillproof';
const STATUSES: OrderStatus[] = ['paid', 'final', 'shipped', 'delivered', 'awaiting_payment', 'expired'];
const settings = loadSettings({ PORT: '0', RATE_LIMIT_ORDERS_PER_MINUTE: '0' }, demoDefaults());
const sealer = createSealer(settings.privacy.dataKeys);
const fmt = (ms: number) => `${ms.toFixed(ms < 10 ? 2 : 1)} ms`;

async function seed(store: Store, n: number, nowMs: number): Promise<string> {
  const now = () => new Date(nowMs);
  const stock = createStockRepository(store, catalog);
  await stock.seed(catalog, now().toISOString());
  await stock.set({ productId: PRODUCT }, 5, 'bench', now().toISOString());
  const orders = createOrderService({ store, catalog, settings, now, stock, sealer });
  const { token } = createQuote(
    { catalog, settings, priceSource: { current: () => ({ priceUsd: '1.00', fetchedAt: now() }) }, now },
    { items: [{ productId: PRODUCT, quantity: 1 }] },
  );
  const shipping = {
    kind: 'international' as const,
    fullName: 'Bench Buyer',
    email: 'bench@buyer.example',
    address1: '1 Bench Street',
    city: 'Town',
    stateProvince: 'Benchshire',
    postalCode: 'BX1',
    country: 'Testland',
  };
  const created = await orders.createOrder({ quote: token, paymentMethod: 'wallet', shipping }, 'bench-seed');
  const row = await store.db
    .selectFrom('orders')
    .selectAll()
    .where('id', '=', created.body.orderId)
    .executeTakeFirstOrThrow();
  // Spread over ~20 days, newest first; the 10 newest changed within the last second.
  const stepMs = Math.floor((20 * 86_400_000) / n);
  for (let i = 1; i < n; i += 500) {
    const batch = Array.from({ length: Math.min(500, n - i) }, (_, k) => {
      const j = i + k;
      const at = new Date(nowMs - (j < 10 ? 500 : j * stepMs)).toISOString();
      return {
        ...row,
        id: randomUUID(),
        reference: Keypair.generate().publicKey.toBase58(),
        public_token: randomBytes(16).toString('hex'),
        status: STATUSES[j % STATUSES.length]!,
        created_at: at,
        updated_at: at,
      };
    });
    await store.db.insertInto('orders').values(batch).execute();
    const extras = batch.filter((_, k) => (i + k) % 50 === 0);
    if (extras.length)
      await store.db
        .insertInto('payments')
        .values(
          extras.map((o) => ({
            signature: randomBytes(32).toString('hex'),
            order_id: o.id,
            seq: 1,
            received_base_units: '1000',
            slot: null,
            block_time: null,
            confirmation: 'finalized' as const,
            role: 'extra' as const,
            recorded_at: o.created_at,
          })),
        )
        .execute();
    const shipped = batch.filter((o, k) => o.status === 'shipped' && (i + k) % 20 === 2);
    if (shipped.length)
      await store.db
        .insertInto('seller_actions')
        .values(
          shipped.map((o) => ({
            id: randomUUID(),
            order_id: o.id,
            action: 'shipped',
            detail_json: JSON.stringify({}),
            address: 'bench',
            at: o.created_at,
          })),
        )
        .execute();
  }
  return row.vendor_id;
}

async function timed(f: () => Promise<unknown>): Promise<number> {
  await f();
  const out: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    await f();
    out.push(performance.now() - t0);
  }
  return percentile(
    out.sort((a, b) => a - b),
    50,
  );
}

async function main(): Promise<void> {
  console.log(`bench:seller-list (${new Date().toISOString()}), SQLite file, one vendor, medians of 5`);
  for (const n of sizes) {
    const dir = mkdtempSync(join(tmpdir(), 'bench-seller-list-'));
    const store = await openStore({ kind: 'sqlite', file: join(dir, 'store.sqlite') });
    try {
      const nowMs = Date.now();
      const vendorId = await seed(store, n, nowMs);
      const deps = {
        store,
        sealer,
        search: createSearchCache(sealer),
        now: () => new Date(nowMs),
        detailsGraceMs: 1_800_000,
      };
      const day = new Date(nowMs - 3 * 86_400_000).toISOString().slice(0, 10);
      const landing = await timed(() => listOrders(deps, [vendorId], { queue: 'to_ship' }));
      const counts = (await listOrders(deps, [vendorId], { queue: 'to_ship' })).counts;
      const ranged = await timed(() =>
        listOrders(deps, [vendorId], {
          queue: 'all',
          from: `${day}T00:00:00.000Z`,
          to: new Date(Date.parse(`${day}T00:00:00.000Z`) + 86_400_000).toISOString(),
        }),
      );
      const since = new Date(nowMs - 1_000).toISOString();
      const poll = await timed(() => changesSince(store.db, [vendorId], since, new Date(nowMs)));
      const summary = await timed(() => salesSummary(deps, [vendorId], 'UTC'));
      console.log(
        `  ${n} orders (to ship ${counts.to_ship}, exceptions ${counts.exceptions}, shipped ${counts.shipped}):` +
          ` To ship page + counts ${fmt(landing)}; one day of All ${fmt(ranged)};` +
          ` changed-since poll ${fmt(poll)}; summary ${fmt(summary)}`,
      );
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

await main();
