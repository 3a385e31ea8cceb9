/**
 * The seller console's request bodies, queries and params, validated at the edge (./validate.ts) with the ApiError
 * codes the console has always answered. (An order id in the path is ./validate.ts's `orderIdParam`.)
 */
import { z } from 'zod';
import { ORDER_STATUSES } from '../../core/order-status';
import {
  NOTE_MAX_LENGTH,
  SELLER_EXCEPTIONS,
  SELLER_QUEUES,
  type SellerException,
  type SellerQueue,
  type SellerStatusFilter,
} from '../../core/seller-api';
import { addDays, isCalendarDate, isTimeZone, startOfDay } from '../../core/zone-dates';
import { isStockCount, type StockKey } from '../../core/stock';
import { isSignature } from '../payments/signature';
import type { OrderQuery } from '../seller/query';
import { MAX_PAGE_SIZE } from '../seller/query';
import { DomainError } from '../../core/errors';
import { parseWith } from './validate';

/** 1–64 printable ASCII characters, no space at either end (tracking numbers, carriers). */
const PRINTABLE = /^[\x21-\x7e](?:[\x20-\x7e]{0,62}[\x21-\x7e])?$/;
/** A catalogue id (product or variant). */
const ID = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** A required text field: trimmed; empty → `required`; not matching → `invalid`. */
function text(
  required: [code: string, message: string],
  invalid: [code: string, message: string],
  ok: (v: string) => boolean,
) {
  return z
    .unknown()
    .transform((v) => (typeof v === 'string' ? v.trim() : ''))
    .superRefine((v, ctx) => {
      if (!v) ctx.addIssue({ code: 'custom', message: required[1], params: { code: required[0] } });
      else if (!ok(v)) ctx.addIssue({ code: 'custom', message: invalid[1], params: { code: invalid[0] } });
    });
}

const exception = z.enum(SELLER_EXCEPTIONS as [SellerException, ...SellerException[]], {
  errorMap: () => ({ message: `exception must be one of ${SELLER_EXCEPTIONS.join(', ')}.` }),
});

const ShipBody = z
  .object({
    trackingNumber: text(
      ['tracking_required', 'The tracking number is required.'],
      ['invalid_tracking_number', 'The tracking number must be 1–64 printable characters.'],
      (v) => PRINTABLE.test(v),
    ),
    carrier: z
      .string({ invalid_type_error: 'The carrier must be text.' })
      .transform((v) => v.trim())
      .refine((v) => v === '' || PRINTABLE.test(v), 'The carrier must be 1–64 printable characters.')
      .optional(),
  })
  .strict();

export function parseShipBody(raw: unknown): { trackingNumber: string; carrier?: string } {
  const b = parseWith(ShipBody, raw, {
    whole: 'Send the tracking number as JSON.',
    codes: { carrier: 'invalid_carrier' },
  });
  return { trackingNumber: b.trackingNumber, ...(b.carrier ? { carrier: b.carrier } : {}) };
}

const ResolveBody = z
  .object({
    exception,
    note: z
      .unknown()
      .transform((v) => (typeof v === 'string' ? v.trim() : ''))
      .refine((v) => v.length > 0 && v.length <= 500, 'Say what you did (1–500 characters).'),
  })
  .strict();

export function parseResolveBody(raw: unknown): { exception: SellerException; note: string } {
  return parseWith(ResolveBody, raw, {
    whole: 'Send the exception and what you did as JSON.',
    codes: { exception: 'invalid_exception', note: 'note_required' },
  });
}

const isControl = (ch: string) => {
  const c = ch.charCodeAt(0);
  return (c < 0x20 && ch !== '\n' && ch !== '\r' && ch !== '\t') || c === 0x7f;
};

const NoteBody = z
  .object({
    note: z
      .string({ required_error: 'Send the note.', invalid_type_error: 'The note must be text.' })
      .transform((v) => v.trim())
      .refine(
        (v) => [...v].length <= NOTE_MAX_LENGTH,
        `The note is too long (at most ${NOTE_MAX_LENGTH.toLocaleString('en-US')} characters).`,
      )
      // Control characters other than line breaks and tabs are not text a person typed.
      .refine((v) => ![...v].some(isControl), 'The note has characters that are not text.'),
  })
  .strict();

/** POST /api/seller/orders/:id/note: free text (trimmed; '' clears the note). */
export function parseNoteBody(raw: unknown): string {
  return parseWith(NoteBody, raw, { whole: 'Send the note as JSON.', codes: { note: 'invalid_note' } }).note;
}

const RefundBody = z
  .object({
    exception,
    signature: text(
      ['signature_required', 'The refund transaction signature is required.'],
      ['invalid_signature', 'That is not a Solana transaction signature.'],
      isSignature,
    ),
  })
  .strict();

export function parseRefundBody(raw: unknown): { exception: SellerException; signature: string } {
  return parseWith(RefundBody, raw, {
    whole: 'Send the refund transaction signature as JSON.',
    codes: { exception: 'invalid_exception' },
  });
}

const NAME_PRODUCT = 'Name the product (its id).';
const NAME_VARIANT = 'The variant must be one of the product’s variant ids.';

const StockBody = z
  .object({
    productId: z
      .string({ required_error: NAME_PRODUCT, invalid_type_error: NAME_PRODUCT })
      .refine((v) => ID.test(v) && v.length <= 100, NAME_PRODUCT),
    variantId: z
      .string({ invalid_type_error: NAME_VARIANT })
      .refine((v) => ID.test(v) && v.length <= 100, NAME_VARIANT)
      .optional(),
    onHand: z.unknown().refine(isStockCount, 'The stock must be a whole number from 0 to 1000000.'),
  })
  .strict();

/** POST /api/seller/stock/release: the line whose holds the vendor releases. */
const ReleaseBody = StockBody.omit({ onHand: true });

export function parseReleaseBody(raw: unknown): StockKey {
  const b = parseWith(ReleaseBody, raw, {
    whole: 'Send the product (and its variant) as JSON.',
    codes: { productId: 'invalid_product', variantId: 'invalid_variant' },
  });
  return b.variantId !== undefined
    ? { productId: b.productId, variantId: b.variantId }
    : { productId: b.productId };
}

export function parseStockBody(raw: unknown): { key: StockKey; onHand: number } {
  const b = parseWith(StockBody, raw, {
    whole: 'Send the product and its stock as JSON.',
    codes: { productId: 'invalid_product', variantId: 'invalid_variant', onHand: 'invalid_stock' },
  });
  return {
    key:
      b.variantId !== undefined
        ? { productId: b.productId, variantId: b.variantId }
        : { productId: b.productId },
    onHand: b.onHand as number,
  };
}

const SIGNED = 'Send the signed message and its signature.';
const signedText = (max: number) =>
  z.string({ required_error: SIGNED, invalid_type_error: SIGNED }).max(max, SIGNED);
/** POST /api/seller/session: the SIWS text and its base64 signature. */
export const SessionBody = z.object({ message: signedText(2_000), signature: signedText(200) });
/** POST /api/seller/demo-session (demo mode). */
export const DemoSessionBody = z.object({
  vendorId: z.string({ required_error: 'No such vendor.', invalid_type_error: 'No such vendor.' }).max(100),
});

/** GET /api/seller/orders and orders.csv: each parameter at most once; unknown parameters are ignored. */
const once = (k: string) =>
  z
    .union([z.string(), z.array(z.string())])
    .optional()
    .refine((v) => !Array.isArray(v), `${k} must be given once.`)
    .transform((v) => (v === '' ? undefined : (v as string | undefined)));

function int(k: string, min: number, max: number) {
  return once(k).refine(
    (v) => v === undefined || (/^\d{1,6}$/.test(v) && Number(v) >= min && Number(v) <= max),
    `${k} must be a whole number from ${min} to ${max}.`,
  );
}

const STATUS_FILTERS: readonly string[] = [...ORDER_STATUSES, 'exceptions'];

const date = (k: string) =>
  once(k).refine((v) => v === undefined || isCalendarDate(v), `${k} must be a date, YYYY-MM-DD.`);
const zone = once('tz').refine(
  (v) => v === undefined || isTimeZone(v),
  'tz must be a time zone name, such as Europe/Berlin or UTC.',
);

const OrderQuerySchema = z
  .object({
    queue: once('queue').refine(
      (v) => v === undefined || (SELLER_QUEUES as readonly string[]).includes(v),
      `queue must be one of ${SELLER_QUEUES.join(', ')}.`,
    ),
    status: once('status').refine(
      (v) => v === undefined || STATUS_FILTERS.includes(v),
      `status must be one of ${STATUS_FILTERS.join(', ')}.`,
    ),
    q: once('q').refine(
      (v) => v === undefined || v.length <= 200,
      'The search is too long (at most 200 characters).',
    ),
    from: date('from'),
    to: date('to'),
    tz: zone,
    page: int('page', 1, 100_000),
    pageSize: int('pageSize', 1, MAX_PAGE_SIZE),
  })
  .refine((v) => v.from === undefined || v.to === undefined || v.from <= v.to, {
    message: 'The range ends before it starts (from is after to).',
    path: ['to'],
  });

/**
 * The list's query: `queue`, `status`, `q` (search), `from`/`to` (dates, both days included, in the time zone
 * `tz`, UTC when not given), `page`, `pageSize`.
 */
export function parseOrderQuery(raw: unknown): OrderQuery {
  const codes = {
    queue: 'invalid_query',
    status: 'invalid_query',
    q: 'invalid_query',
    from: 'invalid_query',
    to: 'invalid_query',
    tz: 'invalid_query',
    page: 'invalid_query',
    pageSize: 'invalid_query',
  };
  const v = parseWith(OrderQuerySchema, raw ?? {}, { whole: 'Bad query.', codes });
  const tz = v.tz ?? 'UTC';
  return {
    ...(v.queue !== undefined ? { queue: v.queue as SellerQueue } : {}),
    ...(v.status !== undefined ? { status: v.status as SellerStatusFilter } : {}),
    ...(v.q !== undefined ? { search: v.q } : {}),
    ...(v.from !== undefined ? { from: startOfDay(v.from, tz) } : {}),
    ...(v.to !== undefined ? { to: startOfDay(addDays(v.to, 1), tz) } : {}),
    ...(v.page !== undefined ? { page: Number(v.page) } : {}),
    ...(v.pageSize !== undefined ? { pageSize: Number(v.pageSize) } : {}),
  };
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

const ChangesQuery = z.object({
  since: once('since').refine(
    (v) => v === undefined || (ISO_INSTANT.test(v) && Number.isFinite(Date.parse(v))),
    'since must be an instant as the last answer gave it (ISO-8601 UTC).',
  ),
});

/** GET /api/seller/changes: `since`, the cursor of the previous answer (none: from now). */
export function parseChangesQuery(raw: unknown): { since?: string } {
  const v = parseWith(ChangesQuery, raw ?? {}, { whole: 'Bad query.', codes: { since: 'invalid_query' } });
  return v.since !== undefined ? { since: new Date(v.since).toISOString() } : {};
}

/** GET /api/seller/summary: `tz`, the time zone whose midnights start the periods (UTC when not given). */
export function parseSummaryQuery(raw: unknown): { timeZone: string } {
  const v = parseWith(z.object({ tz: zone }), raw ?? {}, {
    whole: 'Bad query.',
    codes: { tz: 'invalid_query' },
  });
  return { timeZone: v.tz ?? 'UTC' };
}

/** DELETE /api/seller/sessions/:id: a session's handle as the list gave it; anything else is no such session. */
export function parseSessionParam(raw: unknown): string {
  return parseWith(z.object({ id: z.string().min(1).max(128) }), raw, {
    whole: 'That session has already ended.',
    refuse: () => new DomainError('not_found', 'no_such_session', 'That session has already ended.'),
  }).id;
}

/** POST /api/seller/orders/:id/emails/:emailId/resend: an e-mail of the order's list; anything else is none. */
export function parseEmailParam(raw: unknown): string {
  return parseWith(z.object({ emailId: z.string().min(1).max(128) }), raw, {
    whole: 'No such e-mail for this order.',
    refuse: () => new DomainError('not_found', 'email_not_found', 'No such e-mail for this order.'),
  }).emailId;
}
