/**
 * The housekeeping timer: every `everyMs` (30 s by default) awaiting orders past their expiry expire, the seller
 * is told of paid QR records whose details are overdue, expired QR records with nothing paid are deleted, and
 * expired seller sessions and sign-in nonces are purged. Each task logs its own failure (redacted) and the others
 * still run; the timer does not keep the process alive. In a fleet only the instance holding the 'housekeeping'
 * lease runs them (`leading`, server.ts); the others skip their ticks.
 */
import type { OrderService } from '../orders/service';
import { redactError } from '../redact';
import { purgeExpiredSignIns } from '../seller/auth';
import type { Store } from '../store/store';

export interface HousekeepingDeps {
  orders: Pick<OrderService, 'expireOrders' | 'notifyMissingDetails' | 'cleanupRecords'>;
  store: Store;
  now: () => Date;
  everyMs: number;
  /** Whether this instance runs the tasks now (holds the fleet's lease). Default: always. */
  leading?: () => boolean;
}

/** Starts the timer; returns what stops it. */
export function startHousekeeping(deps: HousekeepingDeps): () => void {
  const { orders, store, now } = deps;
  const t = setInterval(() => {
    if (deps.leading && !deps.leading()) return;
    orders.expireOrders().catch((err: unknown) => console.error('expire orders:', redactError(err)));
    orders
      .notifyMissingDetails()
      .catch((err: unknown) => console.error('missing shipping details:', redactError(err)));
    orders.cleanupRecords().catch((err: unknown) => console.error('QR record cleanup:', redactError(err)));
    purgeExpiredSignIns({ store, now }).catch((err: unknown) =>
      console.error('seller sign-in purge:', redactError(err)),
    );
  }, deps.everyMs);
  t.unref();
  return () => clearInterval(t);
}
