import { describe, expect, it } from 'vitest';
import { dueOrders } from './awaited';

describe('dueOrders: which awaited order is checked by reference first', () => {
  it('polled pages, then hinted orders, then expiring ones; each order once, at its highest kind', () => {
    const due = dueOrders(['page-1'], ['hint-1', 'page-1'], ['soon-1', 'hint-1', 'soon-2'], () => 0);
    expect(due).toEqual(['page-1', 'hint-1', 'soon-1', 'soon-2']);
  });

  it('within a kind, the one checked longest ago (or never) first; expiring ones keep their expiry order on a tie', () => {
    const checked = new Map([
      ['page-a', 300],
      ['page-b', 100],
      ['soon-1', 50],
    ]);
    const due = dueOrders(
      ['page-a', 'page-b', 'page-c'],
      [],
      ['soon-1', 'soon-2', 'soon-3'],
      (id) => checked.get(id) ?? 0,
    );
    expect(due).toEqual(['page-c', 'page-b', 'page-a', 'soon-2', 'soon-3', 'soon-1']);
  });
});
