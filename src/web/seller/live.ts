/**
 * The console's live list: polls GET /api/seller/changes every few seconds while the console is open, and tells
 * the console when something is new (so it reloads) and which orders the vendor has not looked at yet (new or
 * changed since the console opened, not opened since, and paid: a checkout awaiting payment or expired unpaid is
 * not an order yet): the unseen badge and the tab title count.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { OrderStatus } from '../../core/api';
import { sellerApi } from './api';

export const POLL_MS = 3000;
const UNPAID: ReadonlySet<OrderStatus> = new Set(['awaiting_payment', 'expired']);

export interface LiveOrders {
  /** Order ids new or changed since the vendor last looked. */
  unseen: ReadonlySet<string>;
  /** Bumped whenever a poll found something the console does not know yet: reload the list. */
  version: number;
  /** The vendor looked at these (opened the order, or "Mark as seen"). */
  markSeen: (ids: Iterable<string>) => void;
}

export function useLiveOrders(openId: string | null): LiveOrders {
  const [unseen, setUnseen] = useState<ReadonlySet<string>>(new Set());
  const [version, setVersion] = useState(0);
  /** Changes already handled, as "id@at". */
  const known = useRef(new Set<string>());
  /** Per order, the server time up to which the vendor has seen it. */
  const seenUntil = useRef(new Map<string, string>());
  /** Orders looked at since the last answer: seen up to that answer's cursor. */
  const lookedAt = useRef(new Set<string>());
  const openRef = useRef(openId);
  openRef.current = openId;

  const markSeen = useCallback((ids: Iterable<string>) => {
    const list = [...ids];
    for (const id of list) lookedAt.current.add(id);
    setUnseen((u) => {
      const next = new Set(u);
      for (const id of list) next.delete(id);
      return next;
    });
  }, []);

  useEffect(() => {
    let stopped = false;
    let cursor: string | undefined;
    let openedAt: string | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const looked = [...lookedAt.current];
        const r = await sellerApi.changes(cursor);
        if (stopped) return;
        cursor = r.cursor;
        openedAt ??= r.cursor;
        const open = openRef.current;
        for (const id of [...looked, ...(open ? [open] : [])]) {
          seenUntil.current.set(id, r.cursor);
          lookedAt.current.delete(id);
        }
        let fresh = false;
        const newlyUnseen: string[] = [];
        for (const c of r.changes) {
          const key = `${c.orderId}@${c.at}`;
          if (known.current.has(key)) continue;
          known.current.add(key);
          fresh = true;
          const seen = seenUntil.current.get(c.orderId);
          // A checkout not paid (yet, or ever) is not an order to look at: it reloads the list, no badge.
          if (UNPAID.has(c.status)) continue;
          if (c.at >= openedAt && (seen === undefined || c.at > seen)) newlyUnseen.push(c.orderId);
        }
        if (newlyUnseen.length) setUnseen((u) => new Set([...u, ...newlyUnseen]));
        if (fresh) setVersion((v) => v + 1);
      } catch {
        // Offline or signed out: the next poll tries again; the list shows its own errors.
      } finally {
        if (!stopped) timer = setTimeout(() => void poll(), POLL_MS);
      }
    };
    void poll();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  }, []);

  return { unseen, version, markSeen };
}
