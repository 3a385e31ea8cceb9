/**
 * A QR product page's record, asked for by the entry before the page's own code has loaded (docs/decisions/
 * performance.md, "A phone on Slow 4G"). The server sends the page's first quote with the page when the product is
 * on sale (src/server/http/boot-page.ts: one unit of the first variant, priced); the QR checkout would turn exactly
 * that quote into its record (POST /api/orders without details, checkout/qr/useQrRecord.ts) once hydrated, a
 * round trip after the scripts. main.tsx starts that POST at once instead, while the page's chunks still load,
 * and useQrRecord takes its answer (and its Idempotency-Key) when its quote is that one.
 *
 * The request the page makes on load anyway, made earlier: only with the page's quote (none when sold out, without
 * a price, or when POST /api/quotes would refuse), only while the page is young, never when this browser holds a
 * record of the product (the page resumes that one). A record holds no stock (qr-checkout.md). Small on purpose:
 * it is in the entry every page loads (the reply is checked where it is taken); no key without crypto.randomUUID
 * (a secure context), and then no early record: the page makes its own.
 */
import { bootBlock, BOOT_MAX_AGE_MS } from '../api/boot-block';
import { storedReferrer } from './referral';

/** The localStorage key of a product's QR record (checkout/qr/order-store.ts). */
export const qrOrderKey = (productId: string) => `qr-order:${productId}`;

export interface EarlyRecord {
  /** The quote token the record is made from. */
  quote: string;
  /** Its Idempotency-Key (a retry of the same quote replays it). */
  key: string;
  answer: Promise<Response>;
}

let early: EarlyRecord | undefined;

/** Starts the record of the page's quote for `productId` (a QR product page), when the page carries one. */
export function startEarlyRecord(productId: string): void {
  const { qrQuote, price } = bootBlock() as {
    qrQuote?: { quote?: unknown; items?: { productId?: unknown }[] };
    price?: unknown;
  };
  const quote = qrQuote?.quote;
  try {
    if (
      typeof quote !== 'string' ||
      !price ||
      qrQuote?.items?.[0]?.productId !== productId ||
      performance.now() > BOOT_MAX_AGE_MS ||
      localStorage.getItem(qrOrderKey(productId)) !== null
    )
      return;
    const key = crypto.randomUUID();
    const referrer = storedReferrer(localStorage);
    const answer = fetch('/api/orders', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ quote, paymentMethod: 'qr', ...(referrer ? { referrer } : {}) }),
    });
    // Handled where it is taken; never an unhandled rejection when the page does not take it.
    answer.catch(() => undefined);
    early = { quote, key, answer };
  } catch {
    // No storage or no randomUUID: the page makes its own record.
  }
}

/** The early record of this quote token, once; undefined when there is none (then the page makes its own). */
export function takeEarlyRecord(quote: string): EarlyRecord | undefined {
  if (early?.quote !== quote) return undefined;
  const taken = early;
  early = undefined;
  return taken;
}
