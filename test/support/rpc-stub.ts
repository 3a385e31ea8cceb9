/**
 * A JSON-RPC stub in front of a real node (the localnet): every request is passed through as it came (status,
 * Retry-After and body passed back), except `getTransaction` for the signatures a test poisons, which the stub
 * answers itself — as a node that cannot serve that transaction to us (-32015, a version above the one we declare)
 * or with a malformed answer. It counts those requests, so a test can see the bounded retries.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Poison = 'unsupported_version' | 'garbage';

export interface RpcStub {
  url: string;
  port: number;
  poison(signature: string, how: Poison): void;
  /** getTransaction requests the stub answered itself for `signature`. */
  attempts(signature: string): number;
  close(): Promise<void>;
}

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function poisoned(how: Poison, id: unknown): unknown {
  if (how === 'unsupported_version')
    return {
      jsonrpc: '2.0',
      error: {
        code: -32015,
        message:
          'Transaction version (2) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 2',
      },
      id,
    };
  // An answer that is JSON but not a transaction: ill-typed slot, a message without keys.
  return { jsonrpc: '2.0', result: { slot: 'soon', transaction: { message: 7 }, meta: [] }, id };
}

export async function startRpcStub(target: string): Promise<RpcStub> {
  const poisons = new Map<string, Poison>();
  const counts = new Map<string, number>();
  const server = createServer((req, res) => {
    void (async () => {
      const text = await body(req);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      const one = parsed as { method?: unknown; params?: unknown[]; id?: unknown } | undefined;
      const signature = one?.method === 'getTransaction' ? one.params?.[0] : undefined;
      const how = typeof signature === 'string' ? poisons.get(signature) : undefined;
      if (how && typeof signature === 'string') {
        counts.set(signature, (counts.get(signature) ?? 0) + 1);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(poisoned(how, one?.id ?? null)));
        return;
      }
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      for (const h of ['x-localnet-client', 'solana-client'])
        if (typeof req.headers[h] === 'string') headers[h] = req.headers[h];
      const upstream = await fetch(target, {
        method: req.method ?? 'POST',
        headers,
        body: text || undefined,
      });
      const out: Record<string, string> = {
        'content-type': upstream.headers.get('content-type') ?? 'application/json',
      };
      const retryAfter = upstream.headers.get('retry-after');
      if (retryAfter) out['retry-after'] = retryAfter;
      res.writeHead(upstream.status, out);
      res.end(Buffer.from(await upstream.arrayBuffer()));
    })().catch(() => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    poison: (signature, how) => void poisons.set(signature, how),
    attempts: (signature) => counts.get(signature) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
