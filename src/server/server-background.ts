/**
 * The background work of startServer (./server.ts), started once the server listens: the price service, the mail
 * outbox and the webhook sender (each first hands back the rows this instance held when it was killed), the
 * caller's services (the payment watcher), the retention job and the housekeeping timer behind its fleet lease.
 * Each start pushes its stop onto `cleanups`, which close() runs in reverse order.
 */
import type { OutboxWorker } from './mail/outbox';
import { startHousekeeping } from './ops/housekeeping';
import { holdLease, type HeldLease } from './ops/lease';
import { mergeProbes, type OpsProbes } from './ops/probes';
import type { OrderService } from './orders/service';
import type { RpcBudget } from './payments/budget';
import type { WatchLanes } from './payments/lanes';
import type { PriceService } from './price/index';
import { startRetentionJob, type RetentionJob } from './privacy/retention-job';
import { redactError } from './redact';
import type { ServerOverrides } from './server-types';
import type { Settings } from './settings';
import type { Store } from './store/store';
import type { WebhookWorker } from './webhooks/worker';

export type Cleanups = (() => Promise<void> | void)[];

/** A lease's error, logged without secrets. */
export const leaseError = (what: string) => (err: unknown) =>
  console.warn(`${what} lease: ${redactError(err)}`);

export interface BackgroundDeps {
  settings: Settings;
  overrides: ServerOverrides;
  store: Store;
  orders: OrderService;
  now: () => Date;
  url: string;
  budget: RpcBudget;
  lanes: WatchLanes;
  probes: OpsProbes;
  price: PriceService | undefined;
  outbox: OutboxWorker;
  webhooks: WebhookWorker;
  /** ops/lease.ts's holder id of this process. */
  leaseHolder: string;
}

export interface Background {
  retention?: RetentionJob;
  /** The housekeeping's fleet lease (PostgreSQL only). */
  housekeepingLease?: HeldLease;
  /** The housekeeping's interval, ms (0: off). */
  expireEvery: number;
}

export async function startBackground(deps: BackgroundDeps, cleanups: Cleanups): Promise<Background> {
  const { settings, overrides, store, orders, now, price, outbox, webhooks } = deps;
  if (price) {
    await price.start();
    cleanups.push(() => price.stop());
  }
  if (overrides.startOutbox !== false) {
    // Rows this instance claimed before it was killed go out now, not when their lease runs out.
    await outbox.releaseOwnLeases();
    outbox.start();
    cleanups.push(() => outbox.stop());
  }
  if (overrides.webhooks?.start !== false) {
    // Deliveries this instance held when it was killed go out now, with the same webhook-id.
    await webhooks.releaseOwnLeases();
    webhooks.start();
    cleanups.push(() => webhooks.stop());
  }
  for (const startService of overrides.services ?? []) {
    const { url, budget, lanes } = deps;
    const running = await startService({ settings, orders, store, now, url, budget, lanes });
    if (running) {
      cleanups.push(() => running.stop());
      mergeProbes(deps.probes, running.probes);
    }
  }
  let retention: RetentionJob | undefined;
  if (overrides.retention !== false) {
    // Daily, logged (privacy/retention-job.ts); one instance at a time through its lease.
    const job = startRetentionJob({
      store,
      orders,
      now,
      ...(overrides.retention?.everyMs !== undefined ? { everyMs: overrides.retention.everyMs } : {}),
      ...(overrides.retention?.firstAfterMs !== undefined
        ? { firstAfterMs: overrides.retention.firstAfterMs }
        : {}),
    });
    retention = job;
    cleanups.push(() => job.stop());
  }
  const expireEvery = overrides.expireEveryMs ?? 30_000;
  const housekeepingLease =
    store.dialect === 'postgres' && expireEvery > 0
      ? await holdLease({
          db: store.db,
          name: 'housekeeping',
          holder: deps.leaseHolder,
          onError: leaseError('housekeeping'),
        })
      : undefined;
  if (housekeepingLease) cleanups.push(() => housekeepingLease.release());
  if (expireEvery > 0)
    cleanups.push(
      startHousekeeping({
        orders,
        store,
        now,
        everyMs: expireEvery,
        ...(housekeepingLease ? { leading: () => housekeepingLease.held() } : {}),
      }),
    );
  return {
    ...(retention ? { retention } : {}),
    ...(housekeepingLease ? { housekeepingLease } : {}),
    expireEvery,
  };
}
