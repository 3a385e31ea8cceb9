/**
 * What GET /api/qr.svg may draw: this shop's own payment links only (issue 28, finding 9). A Solana Pay transfer
 * request of $CLAIM to one of our vendors' payout wallets, with the reference of an order that exists and was
 * made for that wallet, labelled and worded as the shop words it (the order's own link, or its top-up link). A
 * transaction request (`solana:https://…`, which would make the wallet fetch a transaction from another server),
 * a transfer to any other wallet or of another token, and any text the shop did not write are refused in words:
 * the route cannot draw someone else's payment request under the shop's name.
 */
import type { Kysely } from 'kysely';
import type { Catalog } from '../../core/catalog';
import { DomainError } from '../../core/errors';
import { orderNumberOf } from '../../core/order-number';
import type { Settings } from '../settings';
import { PAY_REQUEST_PATH, referenceOfPayToken, transactionRequestUrlOf } from './pay-requests';
import type { Database } from '../store/schema';

/** Resolves when `link` is one of the shop's payment links; throws a DomainError (400) in words otherwise. */
export type QrLinkCheck = (link: string) => Promise<void>;

const refuse = (why: string) =>
  new DomainError(
    'invalid',
    'not_a_shop_payment_link',
    `This QR code is drawn only for this shop's payment links: ${why}`,
    {
      field: 'data',
    },
  );

const KNOWN = new Set(['amount', 'spl-token', 'reference', 'label', 'message']);
const AMOUNT = /^(?:0|[1-9]\d*)(?:\.\d{1,6})?$/;

/** label and message of a link the shop wrote (URLSearchParams decoding, as the drawn link is read). */
function wordsOf(link: string | null): { label: string | null; message: string | null } {
  const q = link?.indexOf('?') ?? -1;
  const params = new URLSearchParams(link && q >= 0 ? link.slice(q + 1) : '');
  return { label: params.get('label'), message: params.get('message') };
}

export function shopPaymentLinks(deps: {
  db: Kysely<Database>;
  settings: Pick<Settings, 'recipients' | 'claimMint' | 'quote'>;
  catalog: Pick<Catalog, 'vendors'>;
  /** The shop's public origin: its own transaction-request links (HTTPS) are drawn too. */
  publicUrl?: () => string;
}): QrLinkCheck {
  const wallets = new Set(Object.values(deps.settings.recipients));
  return async (link) => {
    const m = /^solana:([^?]*)(?:\?(.*))?$/s.exec(link);
    if (!m) throw refuse('this is not a Solana Pay link.');
    let target: string;
    try {
      target = decodeURIComponent(m[1] ?? '');
    } catch {
      throw refuse('this is not a Solana Pay link.');
    }
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
      // The shop's own transaction request (orders/pay-requests.ts): exactly its link for an existing order.
      const base = deps.publicUrl?.();
      const reference =
        base && m[2] === undefined && target.startsWith(`${base.replace(/\/+$/, '')}${PAY_REQUEST_PATH}`)
          ? referenceOfPayToken(deps.settings.quote.secret, target.slice(target.lastIndexOf('/') + 1))
          : undefined;
      const own =
        reference &&
        transactionRequestUrlOf(deps.settings.quote.secret, base ?? '', reference) === link &&
        (await deps.db
          .selectFrom('orders')
          .select('id')
          .where('reference', '=', reference)
          .executeTakeFirst());
      if (own) return;
      throw refuse('a transaction request to another server is not one.');
    }
    if (!wallets.has(target))
      throw refuse("a payment to a wallet that is not one of this shop's vendors is not one.");
    const params = new URLSearchParams(m[2] ?? '');
    for (const key of new Set(params.keys())) {
      if (!KNOWN.has(key)) throw refuse(`the shop's links have no '${key}' field.`);
      if (params.getAll(key).length > 1) throw refuse(`the shop's links name '${key}' once.`);
    }
    if (params.get('spl-token') !== deps.settings.claimMint) throw refuse('only $CLAIM payments are.');
    const amount = params.get('amount') ?? '';
    if (!AMOUNT.test(amount) || !/[1-9]/.test(amount))
      throw refuse('the amount must be a positive $CLAIM amount.');
    const reference = params.get('reference');
    const order = reference
      ? await deps.db
          .selectFrom('orders')
          .select(['id', 'recipient', 'mint', 'vendor_id', 'solana_pay_url'])
          .where('reference', '=', reference)
          .executeTakeFirst()
      : undefined;
    if (!order || order.recipient !== target || order.mint !== deps.settings.claimMint)
      throw refuse("the reference must be one of this shop's orders, for this vendor.");
    // The words: the order's own link's, or its top-up link's (notifications.ts topUpUrlOf).
    const own = wordsOf(order.solana_pay_url);
    const vendorName = deps.catalog.vendors.find((v) => v.id === order.vendor_id)?.name ?? order.vendor_id;
    const labels = new Set([own.label, vendorName]);
    const messages = new Set([own.message, `Top-up for order ${orderNumberOf(order.id)}`]);
    const label = params.get('label');
    const message = params.get('message');
    if (label !== null && !labels.has(label)) throw refuse('its label is not the one the shop wrote.');
    if (message !== null && !messages.has(message))
      throw refuse('its message is not the one the shop wrote.');
  };
}
