/**
 * The seller console's calls to /api/seller/* (same origin; the session cookie is HttpOnly, the browser sends
 * it). Each call returns the parsed body or throws ApiRequestError (src/web/lib/call.ts) with the server's message.
 */
import type {
  SellerChanges,
  SellerMe,
  SellerOrderDetail,
  SellerOrderList,
  SellerQueue,
  SellerSessionList,
  SellerShipBody,
  SellerSignInBody,
  SellerSignInRequest,
  SellerStatusFilter,
  SellerStock,
  SellerStockBody,
  SellerSummary,
} from '../../core/seller-api';
import { call as http } from '../lib/call';

const UNREACHABLE = 'The store could not be reached. Please try again.';
const call = <T>(method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown): Promise<T> =>
  http<T>(method, url, { unreachable: UNREACHABLE, ...(body !== undefined ? { body } : {}) });

export interface OrderFilter {
  queue?: SellerQueue;
  status?: SellerStatusFilter | '';
  q?: string;
  /** Calendar dates (YYYY-MM-DD), both included, in `tz`. */
  from?: string;
  to?: string;
  tz?: string;
  page?: number;
}

export function ordersQuery(f: OrderFilter): string {
  const p = new URLSearchParams();
  if (f.queue) p.set('queue', f.queue);
  if (f.status) p.set('status', f.status);
  if (f.q?.trim()) p.set('q', f.q.trim());
  if (f.from) p.set('from', f.from);
  if (f.to) p.set('to', f.to);
  if ((f.from || f.to) && f.tz) p.set('tz', f.tz);
  if (f.page && f.page > 1) p.set('page', String(f.page));
  const s = p.toString();
  return s ? `?${s}` : '';
}

export const sellerApi = {
  me: () => call<SellerMe>('GET', '/api/seller/me'),
  nonce: () => call<SellerSignInRequest>('GET', '/api/seller/nonce'),
  signIn: (body: SellerSignInBody) => call<SellerMe>('POST', '/api/seller/session', body),
  demoSignIn: (vendorId: string) => call<SellerMe>('POST', '/api/seller/demo-session', { vendorId }),
  signOut: () => call<{ ok: true }>('DELETE', '/api/seller/session'),
  sessions: () => call<SellerSessionList>('GET', '/api/seller/sessions'),
  endSession: (id: string) => call<{ ok: true }>('DELETE', `/api/seller/sessions/${encodeURIComponent(id)}`),
  endOtherSessions: () => call<{ ended: number }>('POST', '/api/seller/sessions/end-others', {}),
  orders: (f: OrderFilter) => call<SellerOrderList>('GET', `/api/seller/orders${ordersQuery(f)}`),
  changes: (since?: string) =>
    call<SellerChanges>('GET', `/api/seller/changes${since ? `?since=${encodeURIComponent(since)}` : ''}`),
  summary: (tz: string) => call<SellerSummary>('GET', `/api/seller/summary?tz=${encodeURIComponent(tz)}`),
  csvUrl: (f: OrderFilter) => `/api/seller/orders.csv${ordersQuery({ ...f, page: 1 })}`,
  order: (id: string) => call<SellerOrderDetail>('GET', `/api/seller/orders/${encodeURIComponent(id)}`),
  ship: (id: string, body: SellerShipBody) =>
    call<SellerOrderDetail>('POST', `/api/seller/orders/${encodeURIComponent(id)}/ship`, body),
  delivered: (id: string) =>
    call<SellerOrderDetail>('POST', `/api/seller/orders/${encodeURIComponent(id)}/delivered`, {}),
  cancel: (id: string) =>
    call<SellerOrderDetail>('POST', `/api/seller/orders/${encodeURIComponent(id)}/cancel`, {}),
  resolve: (id: string, exception: string, note: string) =>
    call<SellerOrderDetail>('POST', `/api/seller/orders/${encodeURIComponent(id)}/resolve`, {
      exception,
      note,
    }),
  tracking: (id: string, body: SellerShipBody) =>
    call<SellerOrderDetail>('POST', `/api/seller/orders/${encodeURIComponent(id)}/tracking`, body),
  note: (id: string, note: string) =>
    call<SellerOrderDetail>('POST', `/api/seller/orders/${encodeURIComponent(id)}/note`, { note }),
  refund: (id: string, exception: string, signature: string) =>
    call<SellerOrderDetail>('POST', `/api/seller/orders/${encodeURIComponent(id)}/refund`, {
      exception,
      signature,
    }),
  stock: () => call<SellerStock>('GET', '/api/seller/stock'),
  setStock: (body: SellerStockBody) => call<SellerStock>('POST', '/api/seller/stock', body),
  releaseHolds: (body: Omit<SellerStockBody, 'onHand'>) =>
    call<SellerStock & { released: number }>('POST', '/api/seller/stock/release', body),
  resend: (id: string, emailId: string) =>
    call<SellerOrderDetail>(
      'POST',
      `/api/seller/orders/${encodeURIComponent(id)}/emails/${encodeURIComponent(emailId)}/resend`,
      {},
    ),
};
