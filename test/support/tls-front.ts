/**
 * HTTPS in tests, as production has it behind its TLS proxy: a certificate for 127.0.0.1 made for the run
 * (`openssl`, its own trust anchor: CA:TRUE, so NODE_EXTRA_CA_CERTS can trust it) and a TLS front on a loopback
 * port that forwards every request as is to the server's own HTTP address.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TlsFront {
  /** https://127.0.0.1:<port> */
  url: string;
  /** The certificate (PEM file): NODE_EXTRA_CA_CERTS for a child process that must trust it. */
  certFile: string;
  /** Where requests go (the server's http:// URL), set once the server listens. */
  target: string;
  close(): Promise<void>;
}

export async function startTlsFront(): Promise<TlsFront> {
  const dir = mkdtempSync(join(tmpdir(), 'claim-tls-'));
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'pipe' },
  );
  const front: TlsFront = {
    url: '',
    certFile,
    target: '',
    close: async () => {
      await new Promise((r) => server.close(() => r(undefined)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  const server = createHttpsServer(
    { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8') },
    (req, res) => {
      const to = new URL(front.target);
      const up = httpRequest(
        { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers },
        (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        },
      );
      up.on('error', () => res.destroy());
      req.pipe(up);
    },
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  server.closeIdleConnections?.();
  front.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return front;
}
