/**
 * The order service: the one writer of orders, their payments, history, the seller's actions on them and their
 * e-mails (the outbox rows). Every operation is a function of the order context in one part:
 * - create.ts: creating an order (signed quote, shipping form, Idempotency-Key: created or replayed);
 * - ledger.ts: recording verified payments and expiring unpaid quotes (the pure transition function of
 *   src/core/order-status.ts; every transition stored with its time);
 * - notifications.ts: the e-mails a change causes (decided by src/core/order-emails.ts), written to the outbox
 *   in the same transaction;
 * - buyer-actions.ts: the buyer's pages (view, "Send Order Confirmation" with a QR record's details, requote of
 *   an open QR record, the order page by capability token, the wallet's payment hint);
 * - records.ts: QR records over time ("paid, shipping details missing" after the grace delay; cleanup);
 * - fulfilment.ts: the seller's actions (ship, deliver, tracking, note, resend an e-mail);
 * - exception-actions.ts: the seller's exceptions (resolve one, record a refund, what is owed back, cancel at the
 *   buyer's request);
 * - watch.ts: what the payment watcher reads; unreadable.ts: its note of a transaction it could not read that
 *   may pay an order;
 * - personal-data.ts, data-export.ts, reseal.ts: the buyer's personal data (erasure by retention or by the
 *   buyer, "cancel instead", "Download my data", sealing under the current key; docs/decisions/privacy.md).
 * Refusals are DomainErrors (src/core/errors.ts); the HTTP edge maps them to statuses. The OrderService
 * interface (types.ts) documents each operation.
 */
import { createStockRepository } from '../stock/repository';
import { createSealer } from '../privacy/seal';
import { exportMyData } from './data-export';
import { cancelInstead, deleteMyDetails, runRetention } from './personal-data';
import { sealedValuesByKey, sealStoredData } from './reseal';
import { noteAwaited } from './awaited';
import { getOrder, getOrderPage, paymentHint, requestConfirmation, requote } from './buyer-actions';
import { createOrder } from './create';
import { cancelOrder, recordRefund, refundTarget, resolveException } from './exception-actions';
import { markDelivered, markShipped, resendEmail, setNote, updateTracking } from './fulfilment';
import { expireOrders, recordPayment } from './ledger';
import { cleanupRecords, notifyMissingDetails } from './records';
import type { OrderContext, OrderService, OrderServiceDeps } from './types';
import { noteUnreadablePayment } from './unreadable';
import { findOrder, isSignatureUsed, ordersByReferences, ordersToWatch, unfinalizedPayments } from './watch';

export type {
  CheckedRefund,
  CreateOrderResult,
  OrderService,
  OrderServiceDeps,
  ChainClock,
  OrderLanes,
  PaymentHintHandler,
  PaymentReport,
  PaymentTarget,
  RecordPaymentResult,
  RefundTarget,
  SellerActor,
  Shipment,
  WatchedOrder,
} from './types';
export { ORDER_ID } from './types';

const OPERATIONS = {
  createOrder,
  getOrder,
  findOrder,
  recordPayment,
  requestConfirmation,
  requote,
  getOrderPage,
  notifyMissingDetails,
  cleanupRecords,
  expireOrders,
  ordersToWatch,
  isSignatureUsed,
  ordersByReferences,
  unfinalizedPayments,
  noteUnreadablePayment,
  paymentHint,
  markShipped,
  markDelivered,
  cancelOrder,
  resolveException,
  refundTarget,
  recordRefund,
  resendEmail,
  updateTracking,
  setNote,
  exportMyData,
  deleteMyDetails,
  cancelInstead,
  runRetention,
  sealStoredData,
  sealedValuesByKey,
};

/** Each operation without its first parameter, the context (the compiler checks these against OrderService). */
type Bound<T> = {
  [K in keyof T]: T[K] extends (ctx: OrderContext, ...args: infer A) => infer R ? (...args: A) => R : never;
};

export function createOrderService(deps: OrderServiceDeps): OrderService {
  const ctx: OrderContext = {
    deps,
    db: deps.store.db,
    isPg: deps.store.dialect === 'postgres',
    stock: deps.stock ?? createStockRepository(deps.store, deps.catalog),
    sealer: deps.sealer ?? createSealer(deps.settings.privacy.dataKeys),
  };
  const bound = Object.fromEntries(
    Object.entries(OPERATIONS).map(([name, op]) => [
      name,
      (...args: unknown[]) => (op as (c: OrderContext, ...a: unknown[]) => unknown)(ctx, ...args),
    ]),
  ) as Bound<typeof OPERATIONS>;
  return {
    ...bound,
    async getOrder(orderId, poll) {
      const order = await bound.getOrder(orderId);
      // Someone with the page token waits on this order: the payment watcher checks its reference first (the id
      // alone makes nothing awaited: orders/awaited.ts).
      if (order?.status === 'awaiting_payment' && poll)
        await noteAwaited(ctx, poll.pageToken, poll.client, order.orderId);
      return order;
    },
    async getOrderPage(token, client) {
      const view = await bound.getOrderPage(token);
      if (view && client) await noteAwaited(ctx, token, client);
      return view;
    },
  };
}
