/**
 * Validation at the edge: a body (or query) is parsed by its zod schema before any domain code runs, and the
 * first problem becomes a DomainError `invalid` (400) naming the field. A check can name its own ApiError code
 * (`params: { code }`); otherwise the field's code from `codes`, else `invalid_request`. An unknown field is
 * refused by name.
 */
import type { z } from 'zod';
import { DomainError } from '../../core/errors';

export function parseWith<T>(
  schema: z.ZodType<T, z.ZodTypeDef, unknown>,
  raw: unknown,
  opts: { whole: string; codes?: Record<string, string> },
): T {
  const r = schema.safeParse(raw);
  if (r.success) return r.data;
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
