import { describe, expect, it } from 'vitest';
import { dueOrders } from './awaited';

describe('dueOrders: which awaited order is checked by reference first', () => {
  it('waiting pages in their own order (waiting.ts), then hinted orders, then expiring ones; each order once', () => {
    const due = dueOrders(
      ['page-2', 'page-1'],
      ['hint-1', 'page-1'],
      ['soon-1', 'hint-1', 'soon-2'],
      () => 0,
    );
    expect(due).toEqual(['page-2', 'page-1', 'hint-1', 'soon-1', 'soon-2']);
  });

  it('within hinted and expiring, the one checked longest ago (or never) first; expiring ones keep their expiry order on a tie', () => {
    const checked = new Map([
      ['hint-a', 300],
      ['hint-b', 100],
      ['soon-1', 50],
    ]);
    const due = dueOrders(
      [],
      ['hint-a', 'hint-b', 'hint-c'],
      ['soon-1', 'soon-2', 'soon-3'],
      (id) => checked.get(id) ?? 0,
    );
    expect(due).toEqual(['hint-c', 'hint-b', 'hint-a', 'soon-2', 'soon-3', 'soon-1']);
  });
});
