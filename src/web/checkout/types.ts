import type { ReactNode } from 'react';
import type { Shipping } from '../../core/api';
import type { Product, Vendor } from '../../core/catalog';
import type { PriceState } from '../api/price';

/**
 * The seam between the product page and the checkouts (wallet: src/web/checkout/wallet/WalletPay.tsx,
 * QR: src/web/checkout/qr/QrPay.tsx). The page owns the product, the form, the quantity and the price; a
 * checkout owns the pay button(s) and everything after.
 */
export interface CheckoutProps {
  product: Product;
  vendor: Vendor;
  /** Chosen variant (BathSalts: '18ths' | 'zips'); undefined for products without variants. */
  variantId: string | undefined;
  /** Whole number ≥ 1, or null while the quantity input holds something else (0, empty, text). */
  quantity: number | null;
  /** Unit price × quantity in USD cents; null when quantity is null. */
  totalCents: number | null;
  /** The live $CLAIM price state (loading | known | unavailable | error). */
  price: PriceState;
  /** Exact $CLAIM total in base units (6 decimals) at the current price; null unless > 0. */
  claimBaseUnits: bigint | null;
  /** Checks the shipping form. On failure it alerts the spec's text itself and returns null. */
  validateShipping: () => Shipping | null;
  /** After a finished purchase ("Buy another"): clears the shipping form and puts focus in its first field. */
  startOver?: () => void;
  /** Re-reads the live stock at once (after any refusal or purchase: the page is always current). */
  refreshStock?: () => void;
  /** A resumed order (after a reload) sets the page's quantity to its own. */
  resumeQuantity?: (quantity: number) => void;
  /** The order was placed (details sent / order made): the form's saved copy in this tab is dropped. */
  orderPlaced?: () => void;
  /** Why the quantity cannot be bought ("Only 3 left…"), or undefined: pay buttons stay disabled meanwhile. */
  quantityProblem?: string | undefined;
  /** Nothing of the product (or chosen variant) is available now (live stock): a finished purchase offers no more. */
  nothingLeft?: boolean;
  /**
   * The buyer's own order on this page is paid (the receipt shows): the page then shows no stock banner, since
   * "Sold out" after buying the last piece is the buyer's own good news, not bad news.
   */
  paidChanged?: (paid: boolean) => void;
  /**
   * QR pages: the checkout shows the amount to pay (its record's exact amount, or the receipt's): the page then
   * hides its approximate price, so one screen shows one amount.
   */
  payAmountShown?: (shown: boolean) => void;
}

/** QR checkout: `children` (the page's purchase instructions and US form) go between the QR area and the button. */
export interface QrCheckoutProps extends CheckoutProps {
  children?: ReactNode;
  /** False while the page's stock read is under way: the QR and its links wait for it (view.ts). */
  stockKnown?: boolean;
  /**
   * Whether this tab's stored record is a purchase the page must keep showing when the product is sold out
   * (`qrPurchase`, view.ts: money arrived for it, or its confirmation went out). An open record with nothing paid
   * holds nothing and is not one: a sold-out page then shows Sold out, no QR and no button.
   */
  purchaseChanged?: (purchase: boolean) => void;
}
