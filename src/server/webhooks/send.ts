/**
 * One webhook request, safe to point anywhere (issue 35): the host is resolved by our own lookup at connect time
 * and every address is checked (./address.ts), so a DNS answer that changed since the endpoint was added reaches
 * nothing internal; an IP literal is checked before connecting. Redirects are not followed (a 3xx is an answer
 * like any other), the whole request has a short deadline, and at most `maxResponseBytes` of the answer are read.
 * TLS is verified against the system's roots, plus the extra CA a test names explicitly (`extraCa`).
 */
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { rootCertificates } from 'node:tls';
import {
  addressAllowed,
  classifyAddress,
  DestinationRefused,
  refusedAddressMessage,
  resolveAll,
  type DestinationPolicy,
} from './address';

export interface SendOptions {
  policy: DestinationPolicy;
  timeoutMs: number;
  maxResponseBytes: number;
  /** PEM certificates trusted besides the system's roots (tests: the loopback receiver's own CA). */
  extraCa?: readonly string[];
  userAgent?: string;
}

export interface SendResult {
  /** The answer's status; null when none came (refused, timeout, connection error). */
  status: number | null;
  /** What went wrong, in words (no answer body, no address of ours). */
  error?: string;
  durationMs: number;
}

function checkAddress(address: string, url: URL, allowPrivate: boolean): void {
  const cls = classifyAddress(address);
  if (!addressAllowed(cls, allowPrivate)) throw new DestinationRefused('address', refusedAddressMessage(cls));
  if (url.protocol === 'http:' && cls === 'public')
    throw new DestinationRefused('scheme', 'Plain http is only allowed to a private address.');
}

/** A lookup for net/tls that resolves with the policy's resolver and refuses what the policy refuses. */
export function guardedLookup(url: URL, policy: DestinationPolicy): LookupFunction {
  return (hostname, options, callback) => {
    resolveAll(hostname, policy.resolve).then(
      (found) => {
        try {
          for (const a of found) checkAddress(a.address, url, policy.allowPrivate);
        } catch (err) {
          callback(err as Error, '', 4);
          return;
        }
        const wanted = options.family === 4 || options.family === 6 ? options.family : undefined;
        const usable = wanted ? found.filter((a) => a.family === wanted) : found;
        if (usable.length === 0) {
          callback(new DestinationRefused('unresolved', 'The host has no usable address.'), '', 4);
          return;
        }
        if (options.all) (callback as unknown as (e: null, a: typeof usable) => void)(null, usable);
        else callback(null, usable[0]!.address, usable[0]!.family);
      },
      (err: unknown) => callback(err as Error, '', 4),
    );
  };
}

export async function postWebhook(
  url: URL,
  headers: Record<string, string>,
  body: string,
  opts: SendOptions,
): Promise<SendResult> {
  const started = Date.now();
  const done = (r: Omit<SendResult, 'durationMs'>): SendResult => ({
    ...r,
    durationMs: Date.now() - started,
  });
  const host = url.hostname.replace(/^\[|\]$/g, '');
  try {
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      throw new DestinationRefused('scheme', 'A webhook URL must start with https://.');
    // An IP literal is connected to without a lookup: checked here.
    if (isIP(host) !== 0) checkAddress(host, url, opts.policy.allowPrivate);
  } catch (err) {
    return done({ status: null, error: (err as Error).message });
  }
  const options: RequestOptions & { ca?: string[]; servername?: string } = {
    method: 'POST',
    protocol: url.protocol,
    hostname: host,
    port: url.port || (url.protocol === 'https:' ? 443 : 80),
    path: `${url.pathname}${url.search}`,
    headers: {
      ...headers,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'user-agent': opts.userAgent ?? 'CLAIM-Store-Webhooks/1',
      connection: 'close',
    },
    lookup: guardedLookup(url, opts.policy),
    agent: false,
  };
  if (url.protocol === 'https:' && opts.extraCa?.length) options.ca = [...rootCertificates, ...opts.extraCa];
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const finish = (r: Omit<SendResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(done(r));
    };
    const req = send(options, (res) => {
      let read = 0;
      const status = res.statusCode ?? null;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        // Enough: the answer's status is what counts; a receiver streaming without end is cut here.
        if (read >= opts.maxResponseBytes) {
          finish({ status });
          res.destroy();
          req.destroy();
        }
      });
      res.on('end', () => finish({ status }));
      res.on('error', () => finish({ status }));
      res.on('close', () => finish({ status }));
    });
    const timer = setTimeout(() => {
      finish({ status: null, error: `No answer within ${Math.round(opts.timeoutMs / 100) / 10} s.` });
      req.destroy();
    }, opts.timeoutMs);
    req.on('error', (err: Error & { code?: string }) => {
      finish({
        status: null,
        error:
          err instanceof DestinationRefused
            ? err.message
            : `The connection failed (${err.code ?? err.name}).`,
      });
    });
    req.end(body);
  });
}
