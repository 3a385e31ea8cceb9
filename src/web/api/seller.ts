/**
 * The seller console's calls to /api/seller/* (same origin; the session cookie is HttpOnly, the browser sends
 * it). Each call returns the parsed body or throws SellerApiError with the server's message.
 */
import type { ApiError } from '../../core/api';
import type {
  SellerMe,
  SellerOrderDetail,
  SellerOrderList,
  SellerShipBody,
  SellerSignInBody,
  SellerSignInRequest,
  SellerStatusFilter,
  SellerStock,
  SellerStockBody,
} from '../../core/seller-api';

export class SellerApiError extends Error {
  override name = 'SellerApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function call<T>(method: string, url: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      credentials: 'same-origin',
      cache: 'no-store',
      headers: {
        accept: 'application/json',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  } catch {
    throw new SellerApiError(0, 'network', 'The store could not be reached. Please try again.');
  }
  const json = (await res.json().catch(() => null)) as unknown;
  if (!res.ok) {
    const e = (json ?? {}) as Partial<ApiError>;
    throw new SellerApiError(res.status, e.error ?? 'http_error', e.message ?? `HTTP ${res.status}`);
  }
  return json as T;
}

export interface OrderFilter {
  status?: SellerStatusFilter | '';
  q?: string;
  page?: number;
}

export function ordersQuery(f: OrderFilter): string {
  const p = new URLSearchParams();
  if (f.status) p.set('status', f.status);
  if (f.q?.trim()) p.set('q', f.q.trim());
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
  orders: (f: OrderFilter) => call<SellerOrderList>('GET', `/api/seller/orders${ordersQuery(f)}`),
  csvUrl: (f: OrderFilter) => `/api/seller/orders.csv${ordersQuery({ ...f, page: 1 })}`,
  order: (id: string) => call<SellerOrderDetail>('GET', `/api/seller/orders/${encodeURIComponent(id)}`),
  ship: (id: string, body: SellerShipBody) =>
    call<SellerOrderDetail>('POST', `/api/seller/orders/${encodeURIComponent(id)}/ship`, body),
  delivered: (id: string) =>
    call<SellerOrderDetail>('POST', `/api/seller/orders/${encodeURIComponent(id)}/delivered`, {}),
  resolve: (id: string, exception: string, note: string) =>
    call<SellerOrderDetail>('POST', `/api/seller/orders/${encodeURIComponent(id)}/resolve`, {
      exception,
      note,
    }),
  refund: (id: string, exception: string, signature: string) =>
    call<SellerOrderDetail>('POST', `/api/seller/orders/${encodeURIComponent(id)}/refund`, {
      exception,
      signature,
    }),
  stock: () => call<SellerStock>('GET', '/api/seller/stock'),
  setStock: (body: SellerStockBody) => call<SellerStock>('POST', '/api/seller/stock', body),
  resend: (id: string, emailId: string) =>
    call<SellerOrderDetail>(
      'POST',
      `/api/seller/orders/${encodeURIComponent(id)}/emails/${encodeURIComponent(emailId)}/resend`,
      {},
    ),
};
