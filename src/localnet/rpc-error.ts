/** A JSON-RPC error raised by a method (code, message, optional data), answered as the node would. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}
