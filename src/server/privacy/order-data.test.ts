import { describe, expect, it } from 'vitest';
import {
  eraseActionDetail,
  ERASED,
  openActionDetail,
  openMail,
  openShipping,
  resealed,
  resealedActionDetail,
  sealActionDetail,
  sealMail,
  sealShipping,
} from './order-data';
import { createSearchCache } from './search';
import { createSealer, sealedKeyId } from './seal';

const ORDER = '0f8a1c2e-3b4d-4e5f-8a9b-0c1d2e3f4a5b';
const OTHER = '9e8d7c6b-5a49-4837-a261-5f4e3d2c1b0a';
const k1 = createSealer([{ id: 'k1', key: Buffer.alloc(32, 1) }]);
const k2 = createSealer([
  { id: 'k2', key: Buffer.alloc(32, 2) },
  { id: 'k1', key: Buffer.alloc(32, 1) },
]);
const SHIPPING = {
  kind: 'us',
  fullName: 'Zelda Quixotic-Brambleworth',
  email: 'zelda.qb@example.net',
  address1: '77 Marmalade Lane',
  city: 'Springfield',
  state: 'IL',
  zip: '62704',
} as never;

describe('personal data columns', () => {
  it('shipping: sealed, opened, erased, unreadable when tampered or moved (never throws)', () => {
    const sealed = sealShipping(k1, ORDER, SHIPPING);
    expect(sealed).not.toContain('Zelda');
    expect(openShipping(k1, ORDER, sealed)).toEqual({ state: 'given', shipping: SHIPPING });
    expect(openShipping(k1, ORDER, null)).toEqual({ state: 'none' });
    expect(openShipping(k1, ORDER, ERASED)).toEqual({ state: 'erased' });
    expect(openShipping(k1, OTHER, sealed)).toEqual({ state: 'unreadable' });
    const bent = sealed.slice(0, -3) + (sealed.endsWith('A') ? 'B' : 'A') + sealed.slice(-2);
    expect(openShipping(k1, ORDER, bent)).toEqual({ state: 'unreadable' });
    // A plain value in the sealed column was not written by the order module: unreadable, not taken as written.
    expect(openShipping(k1, ORDER, JSON.stringify(SHIPPING))).toEqual({ state: 'unreadable' });
  });

  it('outbox rows: recipient and body sealed separately, each bound to the order', () => {
    const payload = { from_name: 'Zelda', email: 'zelda.qb@example.net' } as never;
    const row = sealMail(k1, ORDER, { to: 'zelda.qb@example.net', payload });
    expect(JSON.stringify(row)).not.toContain('zelda');
    expect(openMail(k1, ORDER, row)).toEqual({ state: 'readable', to: 'zelda.qb@example.net', payload });
    expect(openMail(k1, OTHER, row)).toEqual({ state: 'unreadable' });
    expect(openMail(k1, ORDER, { ...row, payload_json: ERASED })).toEqual({ state: 'erased' });
    // Plain values (an attacker's text where a sealed body belongs) are unreadable: the mailer sends nothing.
    expect(openMail(k1, ORDER, { ...row, payload_json: JSON.stringify(payload) })).toEqual({
      state: 'unreadable',
    });
    expect(openMail(k1, ORDER, { ...row, recipient_email: 'victim@example.net' })).toEqual({
      state: 'unreadable',
    });
  });

  it('seller actions: bookkeeping fields readable, free text sealed, erasable', () => {
    const json = sealActionDetail(k1, ORDER, { exception: 'oversold', note: 'Called Zelda at home' });
    expect(json).not.toContain('Zelda');
    expect(JSON.parse(json)).toMatchObject({ exception: 'oversold' });
    expect(openActionDetail(k1, ORDER, json)).toEqual({
      exception: 'oversold',
      note: 'Called Zelda at home',
    });
    expect(openActionDetail(k1, OTHER, json)).toEqual({ exception: 'oversold', unreadable: 'true' });
    const erased = eraseActionDetail(json);
    expect(openActionDetail(k1, ORDER, erased)).toEqual({ exception: 'oversold', erased: 'true' });
    // Nothing free-text: stays plain JSON.
    expect(sealActionDetail(k1, ORDER, { emailId: 'x' })).toBe('{"emailId":"x"}');
    // A free-text field in clear was not written by the order module: not shown, the detail says unreadable.
    expect(openActionDetail(k1, ORDER, '{"exception":"oversold","note":"planted"}')).toEqual({
      exception: 'oversold',
      unreadable: 'true',
    });
  });

  it('re-sealing under the current key: old key and legacy plain values move, current ones stay', () => {
    const old = sealShipping(k1, ORDER, SHIPPING);
    const moved = resealed(k2, ORDER, 'shipping', old);
    expect(moved && sealedKeyId(moved)).toBe('k2');
    expect(resealed(k2, ORDER, 'shipping', moved!)).toBeUndefined();
    // Plain: sealed only when its row predates sealing (legacy); otherwise unreadable, never adopted.
    expect(sealedKeyId(resealed(k2, ORDER, 'shipping', JSON.stringify(SHIPPING), true)!)).toBe('k2');
    expect(() => resealed(k2, ORDER, 'shipping', JSON.stringify(SHIPPING))).toThrow(/could not be opened/);
    expect(resealed(k2, ORDER, 'shipping', ERASED)).toBeUndefined();
    const action = sealActionDetail(k1, ORDER, { trackingNumber: '1Z999' });
    const next = resealedActionDetail(k2, ORDER, action)!;
    expect(openActionDetail(k2, ORDER, next)).toEqual({ trackingNumber: '1Z999' });
    expect(resealedActionDetail(k2, ORDER, next)).toBeUndefined();
    expect(openActionDetail(k2, ORDER, resealedActionDetail(k2, ORDER, '{"note":"plain"}', true)!)).toEqual({
      note: 'plain',
    });
    expect(() => resealedActionDetail(k2, ORDER, '{"note":"plain"}')).toThrow(/could not be opened/);
  });

  it('search cache: finds by name, e-mail or address substring, re-opens a changed row only', async () => {
    const cache = createSearchCache(k1);
    const rows = [
      { id: ORDER, updated_at: 't1', shipping_json: sealShipping(k1, ORDER, SHIPPING) },
      { id: OTHER, updated_at: 't1', shipping_json: null },
    ];
    let loads = 0;
    const load = async (ids: string[]) => {
      loads += ids.length;
      return rows.filter((r) => ids.includes(r.id));
    };
    expect([...(await cache.matching(rows, 'marmalade', load))]).toEqual([ORDER]);
    expect([...(await cache.matching(rows, 'ZELDA.QB@', load))]).toEqual([ORDER]);
    expect([...(await cache.matching(rows, '9e8d7c6b', load))]).toEqual([OTHER]);
    expect(loads).toBe(2);
    rows[0] = { id: ORDER, updated_at: 't2', shipping_json: ERASED };
    expect([...(await cache.matching(rows, 'marmalade', load))]).toEqual([]);
    expect(loads).toBe(3);
  });
});
