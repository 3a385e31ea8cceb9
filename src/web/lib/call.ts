/**
 * The browser's JSON fetch wrapper: the features' API calls (checkout, orders, the seller console) go through
 * `call`. It resolves to the parsed reply or throws an ApiRequestError (HTTP refusal with the server's message,
 * network failure, or a reply that fails `check`); an aborted request rejects with the AbortError as fetch does.
 * The shared public reads in src/web/api (config, stock, price and its history) call fetch themselves: they never
 * throw to their callers, a failure is one of their states (null, 'unavailable', 'failed', 'none').
 */
import type { ApiError } from '../../core/api';

export class ApiRequestError extends Error {
  override name = 'ApiRequestError';
  constructor(
    /** HTTP status, or 0 when the request never got an answer. */
    readonly status: number,
    /** The ApiError code ('price_unavailable', 'quote_expired', …), 'network', 'http_error' or 'bad_reply'. */
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const isAbort = (err: unknown): boolean => err instanceof DOMException && err.name === 'AbortError';

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export const UNREACHABLE = 'The store could not be reached.';

export interface CallOptions<T> {
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** The reply's shape; without it the reply is trusted as T (same-origin calls whose types core defines). */
  check?: (body: unknown) => body is T;
  /** The message of a network failure (default UNREACHABLE). */
  unreachable?: string;
}

export async function call<T>(
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  opts: CallOptions<T> = {},
): Promise<T> {
  const send = async () =>
    fetch(path, {
      method,
      credentials: 'same-origin',
      cache: 'no-store',
      headers: {
        accept: 'application/json',
        ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...opts.headers,
      },
      ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
  return replyOf(send(), opts);
}

/**
 * The reply of a request already sent (`call` sends its own; the entry sends a QR page's early record,
 * lib/early-record.ts), read as `call` reads it.
 */
export async function replyOf<T>(
  sent: Promise<Response>,
  opts: Pick<CallOptions<T>, 'check' | 'unreachable'> = {},
): Promise<T> {
  let res: Response;
  try {
    res = await sent;
  } catch (err) {
    if (isAbort(err)) throw err;
    throw new ApiRequestError(0, 'network', opts.unreachable ?? UNREACHABLE);
  }
  let body: unknown;
  try {
    body = await res.json();
  } catch (err) {
    if (isAbort(err)) throw err;
    body = undefined;
  }
  if (!res.ok) {
    const e = isObject(body) ? (body as Partial<ApiError>) : {};
    throw new ApiRequestError(
      res.status,
      typeof e.error === 'string' ? e.error : 'http_error',
      typeof e.message === 'string' ? e.message : `HTTP ${res.status}`,
    );
  }
  if (opts.check && !opts.check(body))
    throw new ApiRequestError(res.status, 'bad_reply', 'The store sent an unexpected reply.');
  return body as T;
}
