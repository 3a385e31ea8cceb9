/**
 * Whether a fully paid order can be marked shipped, and in plain words why not. One rule for the seller console
 * (which offers "Mark shipped" only when it can ship, and says why not instead) and the order service (which
 * refuses the same cases in the same words: src/server/orders/fulfilment.ts). The order's status is checked first,
 * by the transition function (src/core/order-status.ts: only paid, paid and settled, or paid late ships; a
 * cancelled or oversold one never): this is the money and the address.
 *
 * - The money: a refund recorded against an exception whose refund returns the whole order (paid late, paid
 *   without shipping details, an unreadable payment: anything but an extra payment or an over-amount,
 *   src/core/refunds.ts REFUND_KEEPS_ORDER) means the vendor is giving the buyer their money back: the order does
 *   not ship, whether that refund settled it ("refunded", the order is closed) or returned only part so far
 *   ("refund begun"). A refund of an extra payment or of an over-amount leaves the goods paid: it ships.
 *   Only refunds the server recorded count; one sent from the payout wallet and not recorded yet is not known.
 * - The address: the buyer's shipping details must be there (never sent, deleted by the buyer, or unreadable:
 *   nowhere to ship, and the buyer's e-mail needs them).
 */

/**
 * The exceptions whose refund returns only money above the price (an extra payment, the over-amount of the
 * completing transfer): the goods stay paid and the order ships. A refund against any other returns the order.
 * src/core/refunds.ts gives the same list to the rule of who is owed what (kept here so that neither module
 * imports the other's dependants).
 */
export const REFUND_KEEPS_ORDER = ['extra_payment', 'overpaid'] as const;

/** What the order holds of the buyer's shipping details (src/server/privacy/order-data.ts openShipping). */
export type ShippingDetailsState = 'given' | 'none' | 'erased' | 'unreadable';

/** What the order needs to know to ship. */
export interface ShipFacts {
  shippingDetails: ShippingDetailsState;
  /** The exceptions the refunds recorded on the order were recorded against (the `refunds` table's). */
  refundedExceptions: readonly string[];
  /**
   * A refund closed the order (a settling `refunded` action against an exception other than an extra payment or
   * an over-amount: src/server/orders/money.ts closedByRefund).
   */
  closedByRefund: boolean;
}

/** Why an order cannot ship: the refusal's code and its sentence. */
export interface ShipBlock {
  code: 'refunded' | 'refund_begun' | 'no_shipping_details' | 'details_erased' | 'details_unreadable';
  message: string;
}

const REFUND_BLOCKS: Record<'refunded' | 'refund_begun', ShipBlock> = {
  refunded: {
    code: 'refunded',
    message:
      "This order does not ship: it was refunded. The buyer's payment went back to them, so there is nothing to send.",
  },
  refund_begun: {
    code: 'refund_begun',
    message:
      "This order does not ship: you have begun refunding the buyer's payment (part of it went back to them). An order whose money goes back is not sent.",
  },
};

const ADDRESS_BLOCKS: Record<Exclude<ShippingDetailsState, 'given'>, ShipBlock> = {
  none: {
    code: 'no_shipping_details',
    message:
      'This order cannot be shipped yet: it has no shipping address. The buyer paid without sending their shipping details; Mark shipped appears here once they send them from their order page.',
  },
  erased: {
    code: 'details_erased',
    message:
      'This order cannot be shipped: it has no shipping address. The buyer deleted their name and address, so there is nowhere to send it.',
  },
  unreadable: {
    code: 'details_unreadable',
    message:
      'This order cannot be shipped from here: its shipping address cannot be read (the key it was sealed with is not configured on this server).',
  },
};

/** A refund against this exception returns the whole order (it will not ship). */
export const refundReturnsOrder = (exception: string): boolean =>
  !(REFUND_KEEPS_ORDER as readonly string[]).includes(exception);

/** undefined: nothing stands in the way (the status allowing); else why not, in words. The money comes first. */
export function shipBlockOf(facts: ShipFacts): ShipBlock | undefined {
  if (facts.closedByRefund) return REFUND_BLOCKS.refunded;
  if (facts.refundedExceptions.some(refundReturnsOrder)) return REFUND_BLOCKS.refund_begun;
  return facts.shippingDetails === 'given' ? undefined : ADDRESS_BLOCKS[facts.shippingDetails];
}
