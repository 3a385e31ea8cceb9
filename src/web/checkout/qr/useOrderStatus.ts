import { useEffect, useState } from 'react';
import type { OrderPublic } from '../../../core/api';
import { ApiRequestError, isAbort } from '../../lib/call';
import { getOrder } from '../shared/order-api';

export const STATUS_POLL_MS = 2_000;

/**
 * Nothing changes any more: underpaid, or final with its confirmations settled (none asked for yet: the details
 * nudge a new read; delivered or failed for good). A final order whose e-mails are still on their way keeps
 * being read, or the page would never learn they went ('Confirmation Sent' and its alert wait on that).
 */
function settled(order: OrderPublic): boolean {
  if (order.status === 'underpaid') return true;
  if (order.status !== 'final') return false;
  const mails = order.emails.filter((e) => e.kind === 'order_confirmation');
  return mails.every((e) => e.state === 'sent' || e.state === 'failed' || e.state === 'withheld');
}

export type OrderStatusState =
  | { status: 'none' }
  | { status: 'loading' }
  | { status: 'known'; order: OrderPublic }
  | { status: 'missing' };

/**
 * The order's status as the server sees it, polled every 2 s until it settles (underpaid, or final with its
 * confirmations delivered or failed). The browser
 * only displays it: nothing here can mark an order paid. `nudge` (e.g. after a confirmation request) changes
 * trigger an immediate re-read. `pageToken` (the record's, from its `orderUrl`) goes with each poll: the server
 * then knows someone waits on the payment.
 */
export function useOrderStatus(orderId: string | null, nudge = 0, pageToken = ''): OrderStatusState {
  const [state, setState] = useState<OrderStatusState>({ status: 'none' });
  useEffect(() => {
    if (orderId === null) {
      setState({ status: 'none' });
      return;
    }
    setState((s) => (s.status === 'known' && s.order.orderId === orderId ? s : { status: 'loading' }));
    const controller = new AbortController();
    let timer: number | undefined;
    const load = async () => {
      try {
        const order = await getOrder(orderId, controller.signal, pageToken || undefined);
        if (controller.signal.aborted) return;
        setState({ status: 'known', order });
        if (settled(order)) return;
      } catch (err) {
        if (controller.signal.aborted || isAbort(err)) return;
        if (err instanceof ApiRequestError && (err.status === 404 || err.status === 400)) {
          setState({ status: 'missing' });
          return;
        }
        // network trouble: keep the last known state and try again
      }
      timer = window.setTimeout(() => void load(), STATUS_POLL_MS);
    };
    void load();
    return () => {
      controller.abort();
      if (timer !== undefined) window.clearTimeout(timer);
    };
  }, [orderId, nudge, pageToken]);
  return state;
}
