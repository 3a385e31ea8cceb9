/** JSON-RPC 2.0 envelope handling: parse errors, invalid requests, batches, method dispatch. */
import { RpcParamError } from './accounts.js';
import { RpcError } from './rpc-error.js';

export type JsonRpcId = string | number | null;

export interface JsonRpcResponse {
  jsonrpc: '2.0';
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
  id: JsonRpcId;
}

export function errorResponse(id: JsonRpcId, code: number, message: string, data?: unknown): JsonRpcResponse {
  return { jsonrpc: '2.0', error: data === undefined ? { code, message } : { code, message, data }, id };
}

function validId(v: unknown): v is JsonRpcId {
  return v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
}

/** Handles one request object; `undefined` for a well-formed notification that expects no answer (WebSocket). */
export function handleOne(
  req: unknown,
  call: (method: string, params: unknown[]) => unknown,
): JsonRpcResponse {
  if (typeof req !== 'object' || req === null || Array.isArray(req))
    return errorResponse(null, -32600, 'Invalid request');
  const r = req as Record<string, unknown>;
  const id = validId(r.id) ? r.id : null;
  if (r.jsonrpc !== '2.0' || typeof r.method !== 'string' || (r.id !== undefined && !validId(r.id))) {
    return errorResponse(id, -32600, 'Invalid request');
  }
  let params: unknown[];
  if (r.params === undefined || r.params === null) params = [];
  else if (Array.isArray(r.params)) params = r.params;
  else return errorResponse(id, -32602, 'Invalid params: expected an array of positional parameters.');
  try {
    return { jsonrpc: '2.0', result: call(r.method, params), id };
  } catch (e) {
    if (e instanceof RpcError || e instanceof RpcParamError)
      return errorResponse(id, e.code, e.message, e.data);
    console.error('[localnet] internal error in', r.method, e);
    return errorResponse(id, -32603, 'Internal error');
  }
}

/** Parses a request body (single or batch) and returns the response to send. */
export function handleBody(
  text: string,
  call: (method: string, params: unknown[]) => unknown,
): JsonRpcResponse | JsonRpcResponse[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return errorResponse(null, -32700, 'Parse error');
  }
  if (Array.isArray(parsed)) {
    if (parsed.length === 0) return errorResponse(null, -32600, 'Invalid request');
    return parsed.map((one) => handleOne(one, call));
  }
  return handleOne(parsed, call);
}

export function methodNotFound(): RpcError {
  return new RpcError(-32601, 'Method not found');
}
