/**
 * bench:rolling's load balancer (../rolling.ts): a small round-robin proxy (node:http) in front of the instances
 * that follows readiness as a load balancer does. It asks each instance's `/api/health/ready` every 500 ms (out of
 * rotation after 2 failed checks in a row, back in after one good one), sends requests only to the ready ones
 * (none ready: to all, failing open), tries a refused connection on another instance (nothing was sent), and sends
 * again a request whose kept-alive connection closed under it before any answer when it is safe (a read, or a
 * request with an Idempotency-Key).
 */
import type { ChildProcess } from 'node:child_process';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { keepAliveAgent } from './load';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Instance {
  name: string;
  port: number;
  /** Readiness checks failed in a row (out of rotation from 2, back in at the first success). */
  fails: number;
  child?: ChildProcess;
  exited?: Promise<number | null>;
  ready: boolean;
}

export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

/** Whether the instance on `port` answers its readiness check with 200 (within 2 s). */
export async function isReady(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/api/health/ready', timeout: 2_000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

export interface LoadBalancer {
  port: number;
  stats: { retriedRefused: number; retriedReused: number; noUpstream: number; failOpen: number };
  /** Stops the health checks and the proxy. */
  close(): Promise<void>;
}

/** Starts the proxy on a free port of 127.0.0.1 in front of `instances` (their `ready` follows its checks). */
export async function startLoadBalancer(instances: Instance[]): Promise<LoadBalancer> {
  const upstreamAgent = keepAliveAgent(128);
  let rr = 0;
  let healthOn = true;
  const healthLoop = (async () => {
    while (healthOn) {
      // As a load balancer's health check: out after 2 failed checks in a row, back in after one good one.
      await Promise.all(
        instances.map(async (i) => {
          i.fails = (await isReady(i.port)) ? 0 : i.fails + 1;
          i.ready = i.fails < 2;
        }),
      );
      await sleep(500);
    }
  })();

  function pick(exclude?: Instance): Instance | undefined {
    let ready = instances.filter((i) => i.ready && i !== exclude);
    // None passes its checks (a starved machine answers them late): fail open, as load balancers do.
    if (ready.length === 0) {
      ready = instances.filter((i) => i !== exclude);
      stats.failOpen++;
    }
    return ready[rr++ % ready.length];
  }

  const stats = { retriedRefused: 0, retriedReused: 0, noUpstream: 0, failOpen: 0 };
  const proxy = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const forward = (target: Instance | undefined, retried: boolean) => {
        if (!target) {
          stats.noUpstream++;
          res.writeHead(503, { 'content-type': 'text/plain' });
          res.end('no ready instance');
          return;
        }
        const up = request(
          {
            host: '127.0.0.1',
            port: target.port,
            method: req.method,
            path: req.url,
            headers: { ...req.headers, host: `127.0.0.1:${target.port}` },
            agent: upstreamAgent,
          },
          (upRes) => {
            res.writeHead(upRes.statusCode ?? 502, upRes.headers);
            upRes.pipe(res);
          },
        );
        up.on('error', (err: NodeJS.ErrnoException) => {
          // Refused: nothing reached the instance, so any request may go to another (as load balancers do).
          if (err.code === 'ECONNREFUSED' && !retried) {
            stats.retriedRefused++;
            target.ready = false;
            forward(pick(target), true);
            return;
          }
          // A kept-alive connection the instance closed as the request went out (no answer began): safe to send
          // again when the request is a read or carries an Idempotency-Key (every POST here does).
          const safe = req.method === 'GET' || req.headers['idempotency-key'] !== undefined;
          if (up.reusedSocket && !res.headersSent && safe && !retried) {
            stats.retriedReused++;
            forward(pick(), true);
            return;
          }
          // Anything else after sending: the client sees it (a reset), as it would behind a real load balancer.
          res.destroy(err);
        });
        up.end(body);
      };
      forward(pick(), false);
    });
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
  return {
    port: (proxy.address() as AddressInfo).port,
    stats,
    async close() {
      healthOn = false;
      await healthLoop;
      proxy.close();
      upstreamAgent.destroy();
    },
  };
}
