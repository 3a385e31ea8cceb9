/**
 * Validation at the edge, one idiom for every /api route's input: its params, its query and its body are each
 * parsed by a zod schema (`parseWith`) before any domain code runs, so a refused request changes nothing. The
 * first problem becomes a DomainError `invalid` (400) naming the field. A check can name its own ApiError code
 * (`params: { code }`); otherwise the field's code from `codes`, else `invalid_request`. An unknown field is
 * refused by name. `refuse` replaces every problem with one error: a route whose refusal must not say what was
 * wrong (a capability token in the path: the same 404 as an unknown one) or that answers one fixed message.
 *
 * The demo and dev routes (demo-price-*.ts, dev-mail-routes.ts) answer as the services they imitate and are not
 * part of the store's API.
 */
import { z } from 'zod';
import { DomainError } from '../../core/errors';
import { ORDER_ID } from '../orders/service';

export interface ParseOptions {
  /** The message when the problem has no field (the whole value is wrong). */
  whole: string;
  /** The ApiError code of a problem in a field (by its dotted path). */
  codes?: Record<string, string>;
  /** Every problem is this error instead. */
  refuse?: (error: z.ZodError) => DomainError;
}

export function parseWith<T>(
  schema: z.ZodType<T, z.ZodTypeDef, unknown>,
  raw: unknown,
  opts: ParseOptions,
): T {
  const r = schema.safeParse(raw);
  if (r.success) return r.data;
  if (opts.refuse) throw opts.refuse(r.error);
  const issue = r.error.issues[0];
  if (!issue) throw new DomainError('invalid', 'invalid_request', opts.whole);
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    throw new DomainError('invalid', 'invalid_request', `Unknown field ${key}.`, { field: key });
  }
  const field = issue.path.join('.');
  if (!field) throw new DomainError('invalid', 'invalid_request', opts.whole);
  const own = issue.code === 'custom' ? (issue.params as { code?: string } | undefined)?.code : undefined;
  throw new DomainError('invalid', own ?? opts.codes?.[field] ?? 'invalid_request', issue.message, { field });
}

/** A JSON body that may be absent (no body, or `null`): parsed as `{}`. */
export const optionalBody = (raw: unknown): unknown => raw ?? {};

// ---- Path params shared by several routes ----

const OrderIdParams = z.object({ id: z.string().regex(ORDER_ID, 'That is not an order id.') });

/** `:id` of /api/orders/:id/… and /api/seller/orders/:id/…: an order id (a UUID) or 400 invalid_order_id. */
export function orderIdParam(params: unknown): string {
  return parseWith(OrderIdParams, params, {
    whole: 'That is not an order id.',
    codes: { id: 'invalid_order_id' },
  }).id;
}

/**
 * The longest capability token (an order page's) the routes look up; anything else is the same 404 as an unknown
 * token, so nothing tells a guess apart.
 */
const TokenParams = z.object({ token: z.string().min(1).max(128) });

export function pageTokenParam(params: unknown): string {
  return parseWith(TokenParams, params, {
    whole: 'No such order.',
    refuse: () => new DomainError('not_found', 'order_not_found', 'No such order.'),
  }).token;
}
