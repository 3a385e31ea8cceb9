/**
 * One order in the seller console: the short order number, items, shipping, payments and who made them (from
 * the chain, ./payers.ts), what is owed back and the refunds recorded (src/core/refunds.ts), the latest
 * tracking with its carrier's link, the seller's note, the paid-late USD value, history, e-mails, the seller's
 * actions. Reads only: the seller's actions are the order service's (src/server/orders/fulfilment.ts).
 */
import { trackingUrl } from '../../core/carriers';
import { explorerTxUrl } from '../../core/explorer';
import { addressLines } from '../../core/address-lines';
import { joinShippingAddress } from '../../core/order';
import type { SellerException, SellerOrderDetail } from '../../core/seller-api';
import { exceptionFactsOf, RESOLVING_ACTIONS, sellerOrder } from '../orders/exceptions';
import { owedOf } from '../../core/refunds';
import { owedInputOf } from '../orders/money';
import { countedUsdCents } from '../orders/ledger';
import { itemsOf, orderNumberOf } from '../orders/rows';
import { unreadablePaymentsOf } from '../orders/unreadable';
import type { PaymentRpc } from '../payments/rpc';
import type { ReferenceConfig } from '../price/reference';
import { openActionDetail, openError, openMail, openShipping } from '../privacy/order-data';
import type { Settings } from '../settings';
import type { PayerCache } from '../payments/payers';
import { payerKey } from '../payments/payers';
import { sellerPayers, sendersOf } from './payers';
import { detailsOf, dueBeforeOf, NO_FACTS, summaryOf, type SellerViewDeps } from './views';

export interface OrderDetailDeps extends SellerViewDeps {
  /** The payments' RPC port on the process's budget: who paid is read from the ledger's transactions. */
  rpc?: PaymentRpc;
  payers: PayerCache;
  /** The cluster, for explorer links. */
  solana: Pick<Settings['solana'], 'cluster' | 'rpcUrl'>;
  /** The price rule the paid-late value uses (settings.price.reference). */
  reference: ReferenceConfig;
  /** The shop a vendor's packing slips name: its name and return address (settings.returnAddresses). */
  shopOf: (vendorId: string) => { shopName: string; returnAddress: string[] };
}

/** Seller actions that set the order's tracking: Mark shipped, then any change of it. */
const TRACKING_ACTIONS = ['shipped', 'tracking'];

export async function orderDetail(
  deps: OrderDetailDeps,
  vendorIds: readonly string[],
  orderId: string,
): Promise<SellerOrderDetail> {
  const db = deps.store.db;
  const o = await sellerOrder(db, vendorIds, orderId);
  const [payments, history, emails, actions] = await Promise.all([
    db.selectFrom('payments').selectAll().where('order_id', '=', o.id).orderBy('seq').execute(),
    db.selectFrom('order_history').selectAll().where('order_id', '=', o.id).orderBy('seq').execute(),
    db
      .selectFrom('outbox')
      .selectAll()
      .where('order_id', '=', o.id)
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('seller_actions')
      .selectAll()
      .where('order_id', '=', o.id)
      .orderBy('at')
      .orderBy('id')
      .execute(),
  ]);
  const parsedActions = actions.map((a) => ({
    action: a.action,
    detail: openActionDetail(deps.sealer, o.id, a.detail_json),
    address: a.address,
    at: a.at,
  }));
  const resolved = parsedActions
    .filter((a) => RESOLVING_ACTIONS.includes(a.action) && a.detail.exception)
    .map((a) => a.detail.exception as SellerException);
  const { shipping } = detailsOf(deps.sealer, o);
  const latest = (names: string[]) => [...parsedActions].reverse().find((a) => names.includes(a.action));
  const shippedAction = latest(['shipped']);
  const trackingAction = latest(TRACKING_ACTIONS);
  const noteAction = latest(['note']);
  const explorer = { cluster: deps.solana.cluster, rpcUrl: deps.solana.rpcUrl };
  const [senders, refunds, paidLateUsdCents, facts, unreadable] = await Promise.all([
    sendersOf(
      deps.rpc,
      deps.payers,
      o.mint,
      payments.map((p) => p.signature),
    ),
    db.selectFrom('refunds').selectAll().where('order_id', '=', o.id).orderBy('at').execute(),
    history.some((h) => h.status === 'paid_late')
      ? countedUsdCents(db, payments, deps.reference)
      : Promise.resolve(undefined),
    exceptionFactsOf(db, [o], dueBeforeOf(deps)),
    unreadablePaymentsOf(db, [o.id]),
  ]);
  // What is owed, in all and to each payer: the rule the refund check applies (src/core/refunds.ts).
  const input = await owedInputOf(
    db,
    o,
    senders ? new Map([...senders].map(([s, p]) => [s, p && payerKey(p)])) : undefined,
  );
  const owed = owedOf(input);
  const summary = summaryOf(deps.sealer, o, facts.get(o.id) ?? NO_FACTS, resolved, input.closed ?? false);
  const payers = senders
    ? sellerPayers(
        senders,
        input,
        summary.exceptions.filter((x) => x !== 'no_shipping_details'),
        explorer,
      )
    : null;
  const trackingNumber = trackingAction?.detail.trackingNumber ?? '';
  const carrier = trackingAction?.detail.carrier;
  const link = trackingAction ? trackingUrl(carrier, trackingNumber) : undefined;
  return {
    ...summary,
    orderNumber: orderNumberOf(o.id),
    reference: o.reference,
    recipient: o.recipient,
    mint: o.mint,
    expiresAt: o.expires_at,
    payers: payers ?? [],
    payersKnown: payers !== null,
    owed: {
      receivedBaseUnits: owed.receivedBaseUnits.toString(),
      owedBaseUnits: owed.owedBaseUnits.toString(),
      refundedBaseUnits: owed.refundedBaseUnits.toString(),
      remainingBaseUnits: owed.remainingBaseUnits.toString(),
      refundableBaseUnits: owed.refundableBaseUnits.toString(),
    },
    refunds: refunds.map((r) => ({
      signature: r.signature,
      amountBaseUnits: r.amount_base_units,
      exception: r.exception,
      to: r.payer,
      at: r.at,
      transactionUrl: explorerTxUrl(r.signature, explorer),
    })),
    ...(noteAction?.detail.note ? { note: { text: noteAction.detail.note, at: noteAction.at } } : {}),
    ...(paidLateUsdCents !== undefined ? { paidLateUsdCents } : {}),
    items: itemsOf(o).map((i) => ({
      name: i.name,
      ...(i.variantLabel ? { variantLabel: i.variantLabel } : {}),
      quantity: i.quantity,
      unitCents: i.unitCents,
      lineCents: i.lineCents,
    })),
    shipping: Object.fromEntries(Object.entries(shipping ?? {}).map(([k, v]) => [k, String(v)])),
    shippingDetails: openShipping(deps.sealer, o.id, o.shipping_json).state,
    shippingAddress: shipping?.fullName ? joinShippingAddress(shipping) : '',
    packingSlip: {
      ...deps.shopOf(o.vendor_id),
      shipTo: shipping?.fullName ? [shipping.fullName, ...addressLines(shipping)] : [],
    },
    payments: payments.map((p) => ({
      signature: p.signature,
      receivedBaseUnits: p.received_base_units,
      role: p.role,
      at: p.block_time !== null ? new Date(p.block_time * 1000).toISOString() : p.recorded_at,
      confirmation: p.confirmation,
    })),
    unreadablePayments: (unreadable.get(o.id) ?? []).map((u) => ({
      signature: u.signature,
      reason: u.reason,
      at: u.at,
      transactionUrl: explorerTxUrl(u.signature, explorer),
    })),
    history: history.map((h) => ({ status: h.status, event: h.event, at: h.at })),
    emails: emails.map((e) => {
      const opened = openMail(deps.sealer, o.id, e);
      return {
        id: e.id,
        kind: e.kind,
        recipient: e.role,
        // Sealed; 'erased' or 'unreadable' when it is not there any more.
        to: opened.state === 'readable' ? opened.to : opened.state,
        state: e.state,
        attempts: e.attempts,
        lastError: openError(deps.sealer, o.id, e.last_error),
        deliveredAt: e.delivered_at,
        createdAt: e.created_at,
      };
    }),
    actions: parsedActions,
    ...(shippedAction && trackingAction
      ? {
          shipment: {
            trackingNumber,
            ...(carrier ? { carrier } : {}),
            ...(link ? { trackingUrl: link } : {}),
            at: trackingAction.at,
            shippedAt: shippedAction.at,
          },
        }
      : {}),
  };
}
