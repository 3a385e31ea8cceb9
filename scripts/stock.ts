/**
 * npm run stock -- <productId>[:<variantId>] <n>   sets the units in stock of one line, without a deploy.
 * npm run stock -- <productId>[:<variantId>]       shows the line and its change log.
 * npm run stock                                      lists every line.
 *
 * Uses the store of DATABASE_URL (as the server does). Every change is recorded with who (`cli:<system user>`)
 * and when. The seller console's stock page (/seller, "Stock") does the same for a signed-in vendor.
 */
import { userInfo } from 'node:os';
import { catalog } from '../catalog';
import { availableOf, isStockCount, parseStockTarget } from '../src/core/stock';
import { demoDefaults } from '../src/server/demo-defaults';
import { isDemoEnv, loadSettings, type DemoDefaults } from '../src/server/settings';
import { DomainError } from '../src/core/errors';
import { createStockRepository } from '../src/server/stock/repository';
import { openStore } from '../src/server/store/store';

function usage(msg?: string): never {
  if (msg) console.error(msg);
  console.error('usage: npm run stock -- [<productId>[:<variantId>] [<n>]]');
  process.exit(2);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.length > 2) usage('Too many arguments.');
  const target = args[0] !== undefined ? parseStockTarget(args[0]) : undefined;
  if (args[0] !== undefined && !target) usage(`'${args[0]}' is not <productId>[:<variantId>].`);
  let count: number | undefined;
  if (args[1] !== undefined) {
    count = /^\d+$/.test(args[1]) ? Number(args[1]) : Number.NaN;
    if (!isStockCount(count)) usage(`'${args[1]}' is not a stock count (a whole number from 0 to 1000000).`);
  }
  // The server's settings, demo defaults included (as src/server/main.ts), so the script opens the same store.
  const demo: DemoDefaults | undefined = isDemoEnv(process.env) ? demoDefaults() : undefined;
  const settings = loadSettings(process.env, demo);
  const store = await openStore(settings.database);
  try {
    const stock = createStockRepository(store, catalog);
    const now = new Date().toISOString();
    await stock.seed(catalog, now);
    if (target && count !== undefined) {
      const actor = `cli:${userInfo().username}`;
      const level = await stock.set(target, count, actor, now);
      console.log(
        `${args[0]}: ${level.onHand} in stock, ${level.reserved} reserved, ${availableOf(level)} available (by ${actor} at ${now})`,
      );
      return;
    }
    const lines = (await stock.levels()).filter(
      (l) =>
        !target || (l.productId === target.productId && (target.variantId ?? l.variantId) === l.variantId),
    );
    if (target && lines.length === 0) usage(`No stock line '${args[0]}'.`);
    for (const l of lines)
      console.log(
        `${l.productId}${l.variantId ? `:${l.variantId}` : ''}\t${l.onHand} in stock\t${l.reserved} reserved\t${availableOf(l)} available`,
      );
    if (target && lines.length === 1) {
      for (const c of await stock.changes(target))
        console.log(
          `  ${c.at}  ${c.kind.padEnd(8)} on hand ${c.onHandDelta >= 0 ? '+' : ''}${c.onHandDelta} → ${c.onHandAfter}, reserved ${c.reservedDelta >= 0 ? '+' : ''}${c.reservedDelta} → ${c.reservedAfter}  by ${c.actor}${c.orderId ? ` (order ${c.orderId})` : ''}`,
        );
    }
  } catch (err) {
    if (err instanceof DomainError) usage(err.message);
    throw err;
  } finally {
    await store.close();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
