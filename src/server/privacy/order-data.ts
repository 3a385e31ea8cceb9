/**
 * How an order's personal data is stored: the forms of the sealed columns, in one place, for the order module
 * (which writes them) and for the readers (outbox worker, seller console, the buyer's download).
 *
 * - orders.shipping_json: NULL (a QR record without details yet), a sealed ShippingInput JSON, or ERASED after
 *   the retention job or the buyer erased it (the order had details; they are gone).
 *
 * A value that is not sealed where a sealed one belongs (plain JSON, plain text, a plain free-text field in a
 * seller action) reads as unreadable: it was not written by the order module. Only rows written before sealing
 * existed are sealed as they are, by the start-up pass (orders/reseal.ts, `legacy`); see privacy.md "Sealing".
 * - outbox.recipient_email and outbox.payload_json: sealed (the payload quotes the buyer's name, e-mail and
 *   address; the seller's address is sealed too, for one rule), ERASED once erased.
 * - outbox.last_error: redacted and sealed (an SMTP answer may quote the buyer's address).
 * - seller_actions.detail_json: JSON whose bookkeeping fields (exception, refund signature and amount, e-mail id)
 *   stay readable, and whose free text (tracking number, carrier, the seller's note) is sealed under `sealed`.
 */
import type { OrderEmailPayload } from '../../core/email-payload';
import type { ShippingInput } from '../../core/order';
import { isSealed, UnreadableSealError, type Sealer } from './seal';

/** What an erased personal column holds. */
export const ERASED = 'erased';

export type OpenedShipping =
  | { state: 'none' }
  | { state: 'given'; shipping: ShippingInput }
  | { state: 'erased' }
  | { state: 'unreadable' };

export function sealShipping(sealer: Sealer, orderId: string, shipping: ShippingInput): string {
  return sealer.seal(JSON.stringify(shipping), orderId, 'shipping');
}

/** Never throws: a value that cannot be opened is `unreadable` (the order shows "details unreadable"). */
export function openShipping(sealer: Sealer, orderId: string, text: string | null): OpenedShipping {
  if (text === null) return { state: 'none' };
  if (text === ERASED) return { state: 'erased' };
  try {
    const parsed = JSON.parse(sealer.open(text, orderId, 'shipping')) as unknown;
    if (typeof parsed !== 'object' || parsed === null) return { state: 'unreadable' };
    return { state: 'given', shipping: parsed as ShippingInput };
  } catch (err) {
    if (err instanceof UnreadableSealError || err instanceof SyntaxError) return { state: 'unreadable' };
    throw err;
  }
}

export interface StoredMail {
  recipient_email: string;
  payload_json: string;
}

/** Outbox rows about no order (seller alerts) bind their values to the empty order id. */
const orderOf = (orderId: string | null): string => orderId ?? '';

export function sealMail(
  sealer: Sealer,
  orderId: string | null,
  mail: { to: string; payload: OrderEmailPayload },
): StoredMail {
  return {
    recipient_email: sealer.seal(mail.to, orderOf(orderId), 'outbox.recipient'),
    payload_json: sealer.seal(JSON.stringify(mail.payload), orderOf(orderId), 'outbox.payload'),
  };
}

export type OpenedMail =
  | { state: 'readable'; to: string; payload: OrderEmailPayload }
  | { state: 'erased' }
  | { state: 'unreadable' };

export function openMail(sealer: Sealer, orderId: string | null, row: StoredMail): OpenedMail {
  if (row.payload_json === ERASED) return { state: 'erased' };
  try {
    return {
      state: 'readable',
      to: sealer.open(row.recipient_email, orderOf(orderId), 'outbox.recipient'),
      payload: JSON.parse(
        sealer.open(row.payload_json, orderOf(orderId), 'outbox.payload'),
      ) as OrderEmailPayload,
    };
  } catch (err) {
    if (err instanceof UnreadableSealError || err instanceof SyntaxError) return { state: 'unreadable' };
    throw err;
  }
}

/** A stored delivery error, sealed (null stays null). */
export function sealError(sealer: Sealer, orderId: string | null, error: string | null): string | null {
  return error === null ? null : sealer.seal(error, orderOf(orderId), 'outbox.error');
}

export function openError(sealer: Sealer, orderId: string | null, stored: string | null): string | null {
  if (stored === null) return null;
  if (stored === ERASED) return 'erased';
  try {
    return sealer.open(stored, orderOf(orderId), 'outbox.error');
  } catch (err) {
    if (err instanceof UnreadableSealError) return 'unreadable';
    throw err;
  }
}

/** Seller action fields that are free text (may name the buyer or their address): sealed. */
const SEALED_ACTION_FIELDS = ['note', 'trackingNumber', 'carrier'];

export function sealActionDetail(sealer: Sealer, orderId: string, detail: Record<string, unknown>): string {
  const open: Record<string, unknown> = {};
  const hidden: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(detail)) (SEALED_ACTION_FIELDS.includes(k) ? hidden : open)[k] = v;
  if (Object.keys(hidden).length === 0) return JSON.stringify(open);
  return JSON.stringify({ ...open, sealed: sealer.seal(JSON.stringify(hidden), orderId, 'action.detail') });
}

/**
 * The detail with its sealed fields opened; `unreadable: 'true'` when they cannot be, `erased: 'true'` when
 * they were erased (the bookkeeping fields stay).
 */
export function openActionDetail(sealer: Sealer, orderId: string, json: string): Record<string, string> {
  const raw = JSON.parse(json) as Record<string, unknown>;
  const { sealed, ...open } = raw;
  // A free-text field stored in clear was not written by the order module (it seals them): not shown.
  const plainFree = Object.keys(open).some((k) => SEALED_ACTION_FIELDS.includes(k));
  const out = Object.fromEntries(
    Object.entries(open)
      .filter(([k]) => !SEALED_ACTION_FIELDS.includes(k))
      .map(([k, v]) => [k, String(v)]),
  );
  if (plainFree) return { ...out, unreadable: 'true' };
  if (sealed === undefined) return out;
  if (sealed === ERASED) return { ...out, erased: 'true' };
  try {
    const hidden = JSON.parse(sealer.open(String(sealed), orderId, 'action.detail')) as Record<
      string,
      unknown
    >;
    return { ...out, ...Object.fromEntries(Object.entries(hidden).map(([k, v]) => [k, String(v)])) };
  } catch (err) {
    if (err instanceof UnreadableSealError || err instanceof SyntaxError)
      return { ...out, unreadable: 'true' };
    throw err;
  }
}

/** The detail with its sealed part erased (bookkeeping fields kept). */
export function eraseActionDetail(json: string): string {
  const raw = JSON.parse(json) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) if (!SEALED_ACTION_FIELDS.includes(k)) out[k] = v;
  if ('sealed' in raw || Object.keys(raw).some((k) => SEALED_ACTION_FIELDS.includes(k))) out.sealed = ERASED;
  return JSON.stringify(out);
}

/**
 * Re-seals one stored value under the sealer's current key; undefined when already current. A plain value is
 * sealed only when `legacy` (its row was written before sealing existed); otherwise it is unreadable (throws).
 */
export function resealed(
  sealer: Sealer,
  orderId: string | null,
  field: Parameters<Sealer['seal']>[2],
  stored: string,
  legacy = false,
): string | undefined {
  if (stored === ERASED) return undefined;
  if (isSealed(stored) && stored.startsWith(`sealed:v1:${sealer.currentKeyId}:`)) return undefined;
  if (!isSealed(stored) && !legacy) throw new UnreadableSealError('malformed');
  const plain = isSealed(stored) ? sealer.open(stored, orderOf(orderId), field) : stored;
  return sealer.seal(plain, orderOf(orderId), field);
}

/**
 * Re-seals a seller action's detail: its sealed part under the current key, plain free-text fields sealed when
 * `legacy` (written before sealing existed; otherwise they are unreadable: throws).
 */
export function resealedActionDetail(
  sealer: Sealer,
  orderId: string,
  json: string,
  legacy = false,
): string | undefined {
  const raw = JSON.parse(json) as Record<string, unknown>;
  const plainFree = Object.keys(raw).some((k) => SEALED_ACTION_FIELDS.includes(k));
  if (plainFree && !legacy) throw new UnreadableSealError('malformed');
  const sealed = raw.sealed;
  if (!plainFree && (sealed === undefined || sealed === ERASED)) return undefined;
  if (!plainFree && typeof sealed === 'string' && sealed.startsWith(`sealed:v1:${sealer.currentKeyId}:`))
    return undefined;
  const { sealed: _s, ...rest } = raw;
  const hidden =
    typeof sealed === 'string' && sealed !== ERASED
      ? (JSON.parse(sealer.open(sealed, orderId, 'action.detail')) as Record<string, unknown>)
      : {};
  return sealActionDetail(sealer, orderId, { ...rest, ...hidden });
}
