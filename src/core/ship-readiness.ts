/**
 * Whether a fully paid order can be marked shipped as far as its address goes, and in plain words why not. One
 * rule for the seller console (which offers "Mark shipped" only when it can ship, and says what is missing
 * instead) and the order service (which refuses the same cases in the same words: src/server/orders/fulfilment.ts).
 * The order's status is checked first, by the transition function (src/core/order-status.ts): this is the address.
 */

/** What the order holds of the buyer's shipping details (src/server/privacy/order-data.ts openShipping). */
export type ShippingDetailsState = 'given' | 'none' | 'erased' | 'unreadable';

/** Why an order cannot ship for want of an address: the refusal's code and its sentence. */
export interface ShipBlock {
  code: 'no_shipping_details' | 'details_erased' | 'details_unreadable';
  message: string;
}

const BLOCKS: Record<Exclude<ShippingDetailsState, 'given'>, ShipBlock> = {
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

/** undefined: the address is there; else what is missing, in words. */
export function shipBlockOf(details: ShippingDetailsState): ShipBlock | undefined {
  return details === 'given' ? undefined : BLOCKS[details];
}
