/**
 * A real HTTPS webhook receiver on loopback for the webhook tests: its certificate is made at test time by
 * openssl (a throwaway CA and a server certificate for localhost, hooks.vendor.test and 127.0.0.1), and the
 * sender trusts that CA through its explicit test-only `extraCa` (server override), never by turning
 * verification off. Every delivery is verified with the reference library `standardwebhooks` against the secret
 * the test registered for its path, and kept.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';

export interface Received {
  path: string;
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  /** standardwebhooks verified it against the path's secret(s) (any one of them). */
  verified: boolean;
  /** The parsed, verified body (undefined when not verified). */
  event?: { type: string; version: number; timestamp: string; data: Record<string, unknown> };
  status: number;
  at: number;
}

export interface Receiver {
  /** https://localhost:<port> */
  origin: string;
  port: number;
  /** The CA certificate (PEM) the sender is told to trust. */
  ca: string;
  /** The secrets a path's deliveries are verified with (replaces earlier ones). */
  secrets(path: string, ...secrets: string[]): void;
  /** The statuses the next requests to `path` get, in order ('hang': no answer at all); then 200. */
  answer(path: string, ...statuses: (number | 'hang')[]): void;
  /** Each answer to `path` waits this long (ms). */
  slow(path: string, ms: number): void;
  /** The most requests to `path` that were open at once. */
  maxInFlight(path: string): number;
  /** A request to `path` arrived (called before it is answered). */
  onRequest?: (r: Received) => void;
  received(path?: string): Received[];
  waitFor(path: string, n: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const dir = mkdtempSync(join(tmpdir(), 'claim-hooks-'));
  const pem = certificatesWithSubject(dir);
  const secretsOf = new Map<string, string[]>();
  const scripts = new Map<string, (number | 'hang')[]>();
  const got: Received[] = [];
  const delays = new Map<string, number>();
  const open = new Map<string, number>();
  const most = new Map<string, number>();
  const hanging = new Set<import('node:http').ServerResponse>();
  const self: { me?: Receiver } = {};
  const server: Server = createServer({ key: pem.key, cert: pem.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = {
        'webhook-id': String(req.headers['webhook-id'] ?? ''),
        'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
        'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
      };
      let event: Received['event'];
      let verified = false;
      for (const secret of secretsOf.get(path) ?? []) {
        try {
          event = new Webhook(secret).verify(body, headers) as Received['event'];
          verified = true;
          break;
        } catch {
          // try the next secret
        }
      }
      const script = scripts.get(path) ?? [];
      const next = script.shift() ?? 200;
      const r: Received = {
        path,
        id: headers['webhook-id'],
        timestamp: headers['webhook-timestamp'],
        signature: headers['webhook-signature'],
        body,
        verified,
        ...(event ? { event } : {}),
        status: next === 'hang' ? 0 : next,
        at: Date.now(),
      };
      got.push(r);
      self.me?.onRequest?.(r);
      if (next === 'hang') {
        hanging.add(res);
        return;
      }
      const now = (open.get(path) ?? 0) + 1;
      open.set(path, now);
      most.set(path, Math.max(most.get(path) ?? 0, now));
      setTimeout(
        () => {
          open.set(path, (open.get(path) ?? 1) - 1);
          res.writeHead(next, { 'content-type': 'text/plain' }).end(next < 300 ? 'ok' : 'no');
        },
        delays.get(path) ?? 0,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const me: Receiver = {
    origin: `https://localhost:${port}`,
    port,
    ca: pem.ca,
    secrets(path, ...secrets) {
      secretsOf.set(path, secrets);
    },
    answer(path, ...statuses) {
      scripts.set(path, statuses);
    },
    slow(path, ms) {
      delays.set(path, ms);
    },
    maxInFlight: (path) => most.get(path) ?? 0,
    received: (path) => (path ? got.filter((r) => r.path === path) : [...got]),
    async waitFor(path, n, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const mine = got.filter((r) => r.path === path);
        if (mine.length >= n) return mine;
        if (Date.now() > deadline)
          throw new Error(`receiver: ${mine.length} of ${n} deliveries to ${path} arrived in time`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  self.me = me;
  return me;
}

function certificatesWithSubject(dir: string) {
  // openssl req -x509 asks for a subject unless given one: the CA's.
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  run([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=claim-test-webhooks-ca',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  writeFileSync(
    join(dir, 'ext.cnf'),
    'subjectAltName=DNS:localhost,DNS:hooks.vendor.test,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n',
  );
  run([
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'server.key',
    '-out',
    'server.csr',
    '-subj',
    '/CN=localhost',
  ]);
  run([
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '2',
    '-extfile',
    'ext.cnf',
  ]);
  return {
    ca: readFileSync(join(dir, 'ca.pem'), 'utf8'),
    key: readFileSync(join(dir, 'server.key'), 'utf8'),
    cert: readFileSync(join(dir, 'server.pem'), 'utf8'),
  };
}
