/**
 * The localnet: a Solana JSON-RPC + WebSocket endpoint backed by LiteSVM, with a faucet.
 * RPC on `port` (also accepts WebSocket upgrades), WebSocket on `port + 1` like solana-test-validator.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { Chain } from './chain.js';
import { DEMO_MINT_DECIMALS, faucetSigner, type DemoKeys } from './demo-keys.js';
import { airdrop, faucet, FaucetInputError, type FaucetConfig } from './faucet.js';
import { handleBody, methodNotFound } from './jsonrpc.js';
import { methods, type RpcContext } from './rpc-methods.js';
import { fundFaucet, seedDemo } from './seed.js';
import { methodsOf, PerIpLimiter, PUBLIC_LIMITS, type RateLimitStats } from './rate-limit.js';
import { Subscriptions } from './subscriptions.js';

export { demoKeys, type DemoKeys } from './demo-keys.js';

export interface LocalnetOptions {
  /** RPC port; 0 picks a free one (with port + 1 free for the WebSocket). Default 8899. */
  port?: number;
  host?: string;
  /** Milliseconds per slot (default 400). 0 disables the timer (advance with `advanceSlots`). */
  slotMs?: number;
  /** Slots between processed and finalized (default 32). Confirmed is always 1 slot behind processed. */
  finalizeLag?: number;
  /** Create the demo mint and vendor wallets (default true). */
  seed?: boolean;
  /**
   * Payout groups whose $CLAIM token account the seed leaves out (default none: every vendor can receive by QR).
   * Shows the wallet purchase that creates it (two approvals); that vendor's QR pages say it is not set up yet.
   */
  withoutTokenAccount?: readonly string[];
  /** Log each RPC request to stderr. */
  verbose?: boolean;
  /**
   * Enforce the public mainnet endpoint's per-IP limits on JSON-RPC over HTTP: per 10 s, 100 requests in all and
   * 40 per method; above them HTTP 429 with Retry-After (`LOCALNET_PUBLIC_LIMITS=1`). Default false.
   */
  publicLimits?: boolean;
}

export interface Localnet {
  rpcUrl: string;
  wsUrl: string;
  port: number;
  wsPort: number;
  /** Demo keys; `null` when started with `seed: false`. */
  keys: DemoKeys | null;
  /** The recipients' token accounts (created, unless their group is in `withoutTokenAccount`). */
  recipientTokenAccounts: { coopersglass: string; gorilla: string } | null;
  /** Payout groups whose token account the seed left out (`withoutTokenAccount`). */
  withoutTokenAccount: string[];
  /** The ledger (for tests that want to look inside). */
  chain: Chain;
  /** When true every HTTP request (RPC, faucet, health) answers 503 and WebSocket calls fail. */
  setFailing(failing: boolean): void;
  /** Stops the slot timer (time stands still) / restarts it. */
  pause(): void;
  resume(): void;
  /** JSON-RPC requests accepted over HTTP (per method) and refused with 429, since start. */
  rpcStats(): RateLimitStats;
  /** Live WebSocket subscriptions (all kinds, all clients). */
  subscriptionCount(): number;
  /** Terminates every WebSocket connection now (clients see an abnormal close). */
  dropWebSockets(): void;
  /**
   * While true, WebSocket upgrades are refused (HTTP 503) and open connections are dropped: the push feed is
   * down, HTTP JSON-RPC still answers. `false` accepts connections again.
   */
  setWebSocketDown(down: boolean): void;
  /** Advances `n` slots immediately (each one a full tick: new blockhash, commitment notifications). */
  advanceSlots(n: number): void;
  /** Current (processed) slot. */
  slot(): number;
  close(): Promise<void>;
}

const MAX_BODY = 1024 * 1024;
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': 'content-type, solana-client, accept, accept-encoding, x-localnet-client',
  'access-control-max-age': '86400',
};

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...CORS,
  });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        resolve(null);
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (e: Error): void => {
      server.off('listening', onListening);
      reject(e);
    };
    const onListening = (): void => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

export async function startLocalnet(opts: LocalnetOptions = {}): Promise<Localnet> {
  const host = opts.host ?? '127.0.0.1';
  const slotMs = opts.slotMs ?? 400;
  const chain = new Chain({ finalizeLag: opts.finalizeLag ?? 32 });
  fundFaucet(chain);
  const seeded =
    opts.seed === false
      ? null
      : await seedDemo(
          chain,
          opts.withoutTokenAccount ? { withoutTokenAccount: opts.withoutTokenAccount } : {},
        );
  const keys = seeded?.keys ?? null;
  const faucetCfg: FaucetConfig = {
    chain,
    payer: faucetSigner(),
    ...(keys
      ? { mint: { address: keys.mint, authority: keys.mintAuthority, decimals: DEMO_MINT_DECIMALS } }
      : {}),
  };
  const ctx: RpcContext = {
    chain,
    airdrop: (to, lamports) => airdrop(faucetCfg, to, lamports),
    identity: faucetSigner().address,
  };
  const call = (method: string, params: unknown[]): unknown => {
    const handler = Object.hasOwn(methods, method) ? methods[method] : undefined;
    if (!handler) throw methodNotFound();
    return handler(params, ctx);
  };

  let failing = false;
  let wsDown = false;
  const limiter = new PerIpLimiter(
    opts.publicLimits ? PUBLIC_LIMITS : { windowMs: 10_000, total: Infinity, perMethod: Infinity },
  );
  const subs = new Subscriptions(chain, () => failing);
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_BODY });
  wss.on('connection', (socket) => subs.attach(socket));

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'OPTIONS') {
      res.writeHead(204, CORS);
      res.end();
      return;
    }
    if (failing) {
      sendJson(res, 503, { error: 'localnet unavailable (setFailing(true))' });
      return;
    }
    if (req.method === 'GET' && path === '/health') {
      res.writeHead(200, { 'content-type': 'text/plain', ...CORS });
      res.end('ok');
      return;
    }
    if (req.method !== 'POST' || (path !== '/' && path !== '/faucet')) {
      sendJson(res, path === '/' || path === '/faucet' ? 405 : 404, {
        error: 'not found: use POST / (JSON-RPC), POST /faucet or GET /health',
      });
      return;
    }
    const body = await readBody(req);
    if (body === null) {
      sendJson(res, 413, { error: 'request body too large' });
      return;
    }
    if (path === '/faucet') {
      let parsed: unknown;
      try {
        parsed = body.trim() === '' ? undefined : JSON.parse(body);
      } catch {
        sendJson(res, 400, {
          error: 'body must be JSON: {"address": base58, "sol": number, "claim": number}',
        });
        return;
      }
      try {
        sendJson(res, 200, await faucet(faucetCfg, parsed));
      } catch (e) {
        if (e instanceof FaucetInputError) sendJson(res, 400, { error: e.message });
        else {
          console.error('[localnet] faucet failure', e);
          sendJson(res, 500, { error: `faucet failed: ${(e as Error).message}` });
        }
      }
      return;
    }
    // Tests and benches share 127.0.0.1 with the server under test: a client may name itself (a buyer's wallet is
    // another IP on the real network) with `x-localnet-client`; otherwise the limit is per remote address.
    const client = req.headers['x-localnet-client'];
    const who = typeof client === 'string' && client ? `client:${client}` : (req.socket.remoteAddress ?? '');
    const retryAfter = limiter.admit(who, methodsOf(body));
    if (retryAfter > 0) {
      const text = JSON.stringify({
        jsonrpc: '2.0',
        error: { code: 429, message: 'Too many requests for a specific RPC call' },
        id: null,
      });
      res.writeHead(429, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(text),
        'retry-after': String(retryAfter),
        ...CORS,
      });
      res.end(text);
      return;
    }
    if (opts.verbose) console.error('[localnet]', body.slice(0, 200));
    sendJson(res, 200, handleBody(body, call));
  };

  const rpcServer = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      console.error('[localnet] request failed', e);
      if (!res.headersSent) sendJson(res, 500, { error: 'internal error' });
    });
  });
  const wsServer = createServer((_req, res) => {
    res.writeHead(426, { 'content-type': 'text/plain' });
    res.end('WebSocket only');
  });
  for (const s of [rpcServer, wsServer]) {
    s.on('upgrade', (req, socket, head) => {
      if (wsDown) {
        socket.end('HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
    });
  }

  // Find a port pair (p, p + 1). With port 0 retry on random ports until port + 1 is free too.
  let port = 0;
  let wsPort = 0;
  const requested = opts.port ?? 8899;
  for (let attempt = 0; ; attempt += 1) {
    port = await listen(rpcServer, requested, host);
    try {
      wsPort = await listen(wsServer, port + 1, host);
      break;
    } catch (e) {
      await closeServer(rpcServer);
      if (requested !== 0 || attempt >= 50) throw e;
    }
  }

  let timer: NodeJS.Timeout | null = null;
  const resume = (): void => {
    if (timer || slotMs <= 0) return;
    timer = setInterval(() => chain.tick(), slotMs);
    timer.unref();
  };
  const pause = (): void => {
    if (timer) clearInterval(timer);
    timer = null;
  };
  resume();

  const urlHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  return {
    rpcUrl: `http://${urlHost}:${port}`,
    wsUrl: `ws://${urlHost}:${wsPort}`,
    port,
    wsPort,
    keys,
    recipientTokenAccounts: seeded?.recipientTokenAccounts ?? null,
    withoutTokenAccount: seeded?.withoutTokenAccount ?? [],
    chain,
    setFailing: (f) => {
      failing = f;
    },
    pause,
    resume,
    rpcStats: () => limiter.snapshot(),
    subscriptionCount: () => subs.count,
    dropWebSockets: () => {
      for (const client of wss.clients) client.terminate();
    },
    setWebSocketDown: (down) => {
      wsDown = down;
      if (down) for (const client of wss.clients) client.terminate();
    },
    advanceSlots: (n) => {
      for (let i = 0; i < n; i += 1) chain.tick();
    },
    slot: () => chain.slot,
    close: async () => {
      pause();
      subs.closeAll();
      for (const client of wss.clients) client.terminate();
      wss.close();
      await Promise.all([closeServer(rpcServer), closeServer(wsServer)]);
    },
  };
}
