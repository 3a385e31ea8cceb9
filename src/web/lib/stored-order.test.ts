import { describe, expect, it } from 'vitest';
import { walletOrderHolds } from './stored-order';

const NOW = Date.parse('2026-11-26T12:00:00Z');
const open = new Date(NOW + 10 * 60_000).toISOString();
/** A stored wallet order as the wallet checkout saves it (../checkout/wallet/open-order.ts OpenOrder). */
const stored = (o: object) =>
  JSON.stringify({ orderId: 'o-1', savedAt: NOW - 60_000, orderPath: '/order/abc', ...o });
const unpaid = (order: object) => ({
  unpaid: { inputHash: 'h', key: 'k', order: { orderId: 'o-1', ...order } },
});

describe('walletOrderHolds: only a hold counts as "held for an unpaid order" on the product page', () => {
  it('an unpaid wallet order the server said holds, its quote open: it may be what holds the piece', () => {
    expect(walletOrderHolds(stored(unpaid({ held: true, expiresAt: open })), NOW)).toBe(true);
  });

  it.each<[string, string | null]>([
    ['nothing stored', null],
    ['made without the wallet’s proof (held: false)', stored(unpaid({ held: false, expiresAt: open }))],
    ['an answer without `held` (no claim of a hold)', stored(unpaid({ expiresAt: open }))],
    [
      'paid: the transfer was sent (sold, not held)',
      stored({ signature: 'sig', ...unpaid({ held: true, expiresAt: open }) }),
    ],
    ['stored without the unpaid attempt', stored({})],
    ['its quote ran out', stored(unpaid({ held: true, expiresAt: new Date(NOW - 1).toISOString() }))],
    ['not JSON', '{'],
  ])('%s: holds nothing', (_why, raw) => {
    expect(walletOrderHolds(raw, NOW)).toBe(false);
  });
});
