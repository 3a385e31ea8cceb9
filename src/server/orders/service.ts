/**
 * The order service: the one place that writes orders, composed of single-purpose parts:
 * - create.ts: creating an order (signed quote, shipping form, Idempotency-Key);
 * - ledger.ts: recording verified payments and expiring unpaid quotes (the pure transition function of
 *   src/core/order-status.ts; every transition stored with its time);
 * - notifications.ts: the e-mails a change causes, written to the outbox in the same transaction;
 * - public-view.ts: the public view of an order;
 * - buyer-actions.ts: the buyer's pages (view, "Send Order Confirmation" with a QR record's details, requote of
 *   an open QR record, the order page by capability token, the wallet's payment hint);
 * - records.ts: QR records over time ("paid, shipping details missing" after the grace delay; cleanup);
 * - watch.ts: what the payment watcher reads.
 * Refusals are domain errors (errors.ts); the HTTP edge maps them to statuses.
 */
import { createStockRepository } from '../stock/repository';
import { createOrder } from './create';
import { getOrder, getOrderPage, paymentHint, requestConfirmation, requote } from './buyer-actions';
import { cleanupRecords, notifyMissingDetails } from './records';
import { expireOrders, recordPayment } from './ledger';
import type { OrderContext, OrderService, OrderServiceDeps, PaymentHintHandler } from './types';
import { findOrder, isSignatureUsed, ordersByReferences, ordersToWatch, unfinalizedPayments } from './watch';

export type {
  CreateOrderResult,
  OrderService,
  OrderServiceDeps,
  PaymentHintHandler,
  PaymentReport,
  PaymentTarget,
  RecordPaymentResult,
  WatchedOrder,
} from './types';
export { ORDER_ID } from './types';

export function createOrderService(deps: OrderServiceDeps): OrderService {
  const ctx: OrderContext = {
    deps,
    db: deps.store.db,
    isPg: deps.store.dialect === 'postgres',
    stock: deps.stock ?? createStockRepository(deps.store, deps.catalog),
  };
  let hintHandler: PaymentHintHandler | undefined = deps.onPaymentHint;
  return {
    createOrder: (body, key) => createOrder(ctx, body, key),
    getOrder: (orderId) => getOrder(ctx, orderId),
    findOrder: (target) => findOrder(ctx, target),
    recordPayment: (target, report) => recordPayment(ctx, target, report),
    requestConfirmation: (orderId, shipping) => requestConfirmation(ctx, orderId, shipping),
    requote: (orderId, quote) => requote(ctx, orderId, quote),
    getOrderPage: (token) => getOrderPage(ctx, token),
    notifyMissingDetails: (now) => notifyMissingDetails(ctx, now),
    cleanupRecords: (now) => cleanupRecords(ctx, now),
    expireOrders: (now) => expireOrders(ctx, now),
    ordersToWatch: (opts) => ordersToWatch(ctx, opts),
    isSignatureUsed: (signature, exceptOrderId) => isSignatureUsed(ctx, signature, exceptOrderId),
    ordersByReferences: (references) => ordersByReferences(ctx, references),
    unfinalizedPayments: (limit) => unfinalizedPayments(ctx, limit),
    paymentHint: (orderId, signature) => paymentHint(ctx, orderId, signature, hintHandler),
    setPaymentHintHandler(handler) {
      hintHandler = handler;
    },
  };
}
