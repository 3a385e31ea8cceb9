/**
 * The short order number a person reads: on the order page, the QR page, the console, the CSV and every e-mail.
 * One rule for all of them: the order id's first 8 characters, upper case. Browser-safe.
 */
export function orderNumberOf(orderId: string): string {
  return orderId.slice(0, 8).toUpperCase();
}
