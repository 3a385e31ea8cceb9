/**
 * The order e-mail payload of the specification, section 3. Field names are the spec's (they are the EmailJS
 * template parameters of the original). Builders live here (pure); transports render or post them.
 */
export interface OrderEmailPayload {
  from_name: string; // buyer full name
  email: string; // buyer e-mail
  shippingAddress: string; // joined by ', '
  product: string; // product name (with variant label where there is one)
  totalUSD: string; // e.g. "325.00"
  totalCLAIM: string; // six decimals, or 'N/A' on QR pages when the price is unknown
  to_name: string; // 'Seller' or the buyer's name
  seller_email?: string; // seller message only
  quantity?: string; // QR orders
  solanaPayURL?: string; // QR orders
}

export type EmailRecipientRole = 'seller' | 'buyer';
/** order_confirmation: the spec's seller+buyer pair. payment_received: our extra note to the seller (QR). */
export type EmailKind = 'order_confirmation' | 'payment_received';
