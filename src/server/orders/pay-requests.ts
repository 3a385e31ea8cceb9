/**
 * Solana Pay transaction requests (docs/decisions/transaction-requests.md): the secret token of an order's
 * transaction-request link, and what the two routes need to know about the order behind a token. Reads only.
 *
 * The token is the order's reference and a MAC of it under the quote secret (`<reference>.<22 base64url chars>`):
 * unguessable, bound to this store, and never the order id nor the buyer's page token. Whoever holds it can only
 * see the vendor's name and be given a transaction that pays this order (the QR is shown on screens, photographed,
 * fetched by wallets and their servers: its link must give nothing else). No column, no migration: the reference
 * is UNIQUE and indexed.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Catalog } from '../../core/catalog';
import { DomainError } from '../../core/errors';
import { formatBaseUnits } from '../../core/money';
import { orderNumberOf } from '../../core/order-number';
import { isBase58Address } from '../../core/solana-pay';
import type { Settings } from '../settings';
import type { Database } from '../store/schema';
import { publicBase } from './rows';
import type { OrderContext } from './types';

/** The path of the two routes; the token follows. */
export const PAY_REQUEST_PATH = '/api/pay/';
const TOKEN = /^([1-9A-HJ-NP-Za-km-z]{32,44})\.([A-Za-z0-9_-]{22})$/;

function macOf(secret: string, reference: string): string {
  return createHmac('sha256', secret)
    .update(`solana-pay-transaction-request:${reference}`)
    .digest()
    .subarray(0, 16)
    .toString('base64url');
}

/** The token of an order's transaction-request link. */
export function payTokenOf(secret: string, reference: string): string {
  return `${reference}.${macOf(secret, reference)}`;
}

/** The reference a token names, or undefined when it is not one this store made. */
export function referenceOfPayToken(secret: string, token: string): string | undefined {
  const m = TOKEN.exec(token);
  if (!m) return undefined;
  const [, reference = '', mac = ''] = m;
  const want = Buffer.from(macOf(secret, reference));
  const got = Buffer.from(mac);
  return want.length === got.length && timingSafeEqual(want, got) ? reference : undefined;
}

/** Transaction requests are offered only when the shop is reached over HTTPS (wallets fetch nothing else). */
export function offersTransactionRequests(publicUrl: string): boolean {
  return publicUrl.startsWith('https://');
}

/**
 * The transaction-request link of an order (`solana:<https URL>`; no query, so nothing to percent-encode), or
 * undefined when `base` is not HTTPS (the plain-HTTP demo keeps the transfer request).
 */
export function transactionRequestUrlOf(secret: string, base: string, reference: string): string | undefined {
  if (!offersTransactionRequests(base)) return undefined;
  return `solana:${base.replace(/\/+$/, '')}${PAY_REQUEST_PATH}${payTokenOf(secret, reference)}`;
}

/** `{transactionRequestUrl}` of an order when the shop is reached over HTTPS, else nothing (OrderCreated). */
export function transactionRequestOf(
  ctx: OrderContext,
  reference: string,
): { transactionRequestUrl?: string } {
  const url = transactionRequestUrlOf(ctx.deps.settings.quote.secret, publicBase(ctx), reference);
  return url ? { transactionRequestUrl: url } : {};
}

/** What the POST route builds a transaction from. */
export interface PayableOrder {
  orderNumber: string;
  vendorName: string;
  payoutGroup: string;
  /** The vendor's payout wallet (the owner of the token account paid). */
  recipient: string;
  mint: string;
  reference: string;
  /** What is still owed: the amount less what the ledger has received while the window is open. */
  dueBaseUnits: bigint;
  /** Words for the wallet: the vendor, the amount and the short order number. */
  message: string;
}

export interface PayRequests {
  /** The vendor's name for GET (404 for a token that names no order of this store). */
  label(token: string): Promise<string>;
  /** The order to pay now; refuses in words: 404 unknown, 409 paid or closed, 410 time run out. */
  payable(token: string): Promise<PayableOrder>;
}

const unknown = () =>
  new DomainError(
    'not_found',
    'payment_request_not_found',
    "This payment code is not one of this shop's, or its order no longer exists. Go back to the shop's page for a new one.",
  );

const PAID_OR_CLOSED = new Set([
  'paid',
  'final',
  'paid_late',
  'shipped',
  'delivered',
  'oversold',
  'cancelled',
]);

export function createPayRequests(deps: {
  db: Kysely<Database>;
  settings: Pick<Settings, 'quote'>;
  catalog: Pick<Catalog, 'vendors'>;
  now: () => Date;
}): PayRequests {
  const vendorName = (id: string) => deps.catalog.vendors.find((v) => v.id === id)?.name ?? 'the seller';

  const load = async (token: string) => {
    const reference = referenceOfPayToken(deps.settings.quote.secret, token);
    if (!reference || !isBase58Address(reference)) throw unknown();
    const o = await deps.db
      .selectFrom('orders')
      .select([
        'id',
        'vendor_id',
        'payout_group',
        'recipient',
        'mint',
        'reference',
        'amount_base_units',
        'status',
        'expires_at',
      ])
      .where('reference', '=', reference)
      .executeTakeFirst();
    if (!o) throw unknown();
    return o;
  };

  return {
    async label(token) {
      return vendorName((await load(token)).vendor_id);
    },
    async payable(token) {
      const o = await load(token);
      const number = orderNumberOf(o.id);
      const vendor = vendorName(o.vendor_id);
      if (o.amount_base_units === null)
        throw new DomainError(
          'conflict',
          'order_unpriced',
          `Order ${number} has no price: ${vendor} will arrange the payment with you.`,
        );
      if (PAID_OR_CLOSED.has(o.status))
        throw new DomainError(
          'conflict',
          'order_already_paid',
          `Order ${number} is already paid or closed: there is nothing more to pay.`,
        );
      // A scan after the window never becomes a late payment: expired, underpaid at the close, or simply past it.
      if (o.status !== 'awaiting_payment' || Date.parse(o.expires_at) <= deps.now().getTime())
        throw new DomainError(
          'gone',
          'quote_expired',
          `The time to pay order ${number} has run out. Go back to the shop's page for a new QR code.`,
        );
      const received = await deps.db
        .selectFrom('payments')
        .select('received_base_units')
        .where('order_id', '=', o.id)
        .execute();
      const due =
        BigInt(o.amount_base_units) - received.reduce((s, p) => s + BigInt(p.received_base_units), 0n);
      if (due <= 0n)
        throw new DomainError(
          'conflict',
          'order_already_paid',
          `Order ${number} is already paid: there is nothing more to pay.`,
        );
      return {
        orderNumber: number,
        vendorName: vendor,
        payoutGroup: o.payout_group,
        recipient: o.recipient,
        mint: o.mint,
        reference: o.reference,
        dueBaseUnits: due,
        message: `Pay ${vendor} ${formatBaseUnits(due)} $CLAIM for order ${number}.`,
      };
    },
  };
}
