import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DomainError } from '../../core/errors';
import { parseEmailParam, parseSessionParam } from './seller-schemas';
import { optionalBody, orderIdParam, pageTokenParam, parseWith } from './validate';

function refusal(fn: () => unknown): { kind: string; body: ReturnType<DomainError['body']> } {
  try {
    fn();
  } catch (err) {
    if (err instanceof DomainError) return { kind: err.kind, body: err.body() };
    throw err;
  }
  throw new Error('not refused');
}

const ID = '3f2b8c1e-9d4a-4b7e-8f00-1a2b3c4d5e6f';

describe('parseWith: one idiom for params, queries and bodies', () => {
  const Body = z.object({ note: z.string().max(3, 'At most 3.') }).strict();
  const opts = { whole: 'The body must be a JSON object.', codes: { note: 'invalid_note' } };

  it('answers the parsed value', () => {
    expect(parseWith(Body, { note: 'abc' }, opts)).toEqual({ note: 'abc' });
  });
  it("names the field and its code, with the schema's words", () => {
    expect(refusal(() => parseWith(Body, { note: 'abcd' }, opts))).toEqual({
      kind: 'invalid',
      body: { error: 'invalid_note', message: 'At most 3.', field: 'note' },
    });
  });
  it('refuses an unknown field by name, and a value that is not an object as a whole', () => {
    expect(refusal(() => parseWith(Body, { note: 'a', admin: true }, opts)).body).toEqual({
      error: 'invalid_request',
      message: 'Unknown field admin.',
      field: 'admin',
    });
    expect(refusal(() => parseWith(Body, [], opts)).body).toEqual({
      error: 'invalid_request',
      message: 'The body must be a JSON object.',
    });
  });
  it('`refuse` replaces every problem with one error', () => {
    const r = refusal(() =>
      parseWith(
        Body,
        { note: 'abcd' },
        { ...opts, refuse: (e) => new DomainError('not_found', 'gone', e.issues[0]!.message) },
      ),
    );
    expect(r).toEqual({ kind: 'not_found', body: { error: 'gone', message: 'At most 3.' } });
  });
  it('an absent body is an empty object', () => {
    expect(optionalBody(undefined)).toEqual({});
    expect(optionalBody(null)).toEqual({});
    expect(optionalBody({ a: 1 })).toEqual({ a: 1 });
  });
});

describe('path params', () => {
  it('an order id is a UUID, else 400 invalid_order_id', () => {
    expect(orderIdParam({ id: ID })).toBe(ID);
    for (const id of ['abc', ID.toUpperCase(), `${ID}0`, "1' or 1=1", ''])
      expect(refusal(() => orderIdParam({ id }))).toEqual({
        kind: 'invalid',
        body: { error: 'invalid_order_id', message: 'That is not an order id.', field: 'id' },
      });
  });
  it('a malformed page token, session handle or e-mail id is the same 404 as an unknown one', () => {
    expect(pageTokenParam({ token: 'a'.repeat(32) })).toBe('a'.repeat(32));
    expect(refusal(() => pageTokenParam({ token: 'a'.repeat(129) }))).toEqual({
      kind: 'not_found',
      body: { error: 'order_not_found', message: 'No such order.' },
    });
    expect(refusal(() => pageTokenParam({}))).toMatchObject({ kind: 'not_found' });
    expect(parseSessionParam({ id: 'f'.repeat(64) })).toBe('f'.repeat(64));
    expect(refusal(() => parseSessionParam({ id: 'f'.repeat(129) }))).toEqual({
      kind: 'not_found',
      body: { error: 'no_such_session', message: 'That session has already ended.' },
    });
    expect(parseEmailParam({ id: ID, emailId: ID })).toBe(ID);
    expect(refusal(() => parseEmailParam({ emailId: '' }))).toEqual({
      kind: 'not_found',
      body: { error: 'email_not_found', message: 'No such e-mail for this order.' },
    });
  });
});
