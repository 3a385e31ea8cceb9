import { section } from './schema';
import type { Settings } from './types';

/**
 * The HTTP server: where it listens, its public address, the proxy in front of it, the request time limit, and how
 * it stops (the drain on SIGTERM: docs/decisions/deploy.md).
 */
export const httpSection = section({
  title: 'HTTP',
  settings: {
    PORT: { doc: 'The port the store listens on.', default: 3000, int: [0, 65535] },
    HOST: {
      doc: 'The address the store listens on: 127.0.0.1 answers this machine only (the demo); 0.0.0.0 every interface (a container: the Dockerfile sets it).',
      default: '127.0.0.1',
    },
    PUBLIC_URL: {
      doc: "The site's public base URL: the order page links in every e-mail; https enables HSTS.",
      defaultDoc: 'http://HOST:PORT',
    },
    TRUST_PROXY: {
      doc: 'Behind a reverse proxy: the client IP (rate limits, hold cap) then comes from X-Forwarded-For. `true` (trust every hop: any client could choose its address) is refused outside demo mode.',
      default: 'false',
      values: 'false, a number of proxy hops, proxy IPs/CIDRs (comma-separated); true in demo mode',
    },
    REQUEST_TIMEOUT_MS: {
      doc: 'A request (headers and body) must arrive within this many ms; a slow body is cut with 408.',
      default: 30_000,
      int: [1_000, 30_000],
    },
    DRAIN_MS: {
      doc: 'On SIGTERM, readiness answers 503 at once and the store keeps serving for this many ms (the load balancer stops sending traffic meanwhile) before it closes.',
      default: 5_000,
      int: [0, 120_000],
    },
    SHUTDOWN_DEADLINE_MS: {
      doc: "On SIGTERM the process exits by this many ms at the latest, closed or not (nothing is lost: outbox rows stay queued, leases expire); keep it below the platform's grace period before SIGKILL and above DRAIN_MS.",
      default: 25_000,
      int: [1_000, 600_000],
    },
  },
  read(
    r,
    needs: { demo: boolean },
  ): Pick<
    Settings,
    'port' | 'host' | 'publicUrl' | 'trustProxy' | 'requestTimeoutMs' | 'drainMs' | 'shutdownDeadlineMs'
  > {
    const port = r.int('PORT');
    const host = r.get('HOST') ?? '127.0.0.1';
    const publicUrl = r.url('PUBLIC_URL', `http://${host}:${port}`) ?? '';

    let trustProxy: Settings['trustProxy'] = false;
    const trustRaw = r.get('TRUST_PROXY');
    if (trustRaw !== undefined) {
      if (/^(false|0|no|off)$/i.test(trustRaw)) trustProxy = false;
      else if (/^(true|yes|on)$/i.test(trustRaw)) {
        // Trusting every hop lets any client name its own address in X-Forwarded-For (a new client per request).
        if (needs.demo) trustProxy = true;
        else
          r.problem(
            `TRUST_PROXY: '${trustRaw}' trusts every X-Forwarded-For hop, so any client could choose its own address; give the number of proxies in front of the store (e.g. 1) or their addresses (e.g. 10.0.0.0/8)`,
          );
      } else if (/^\d{1,2}$/.test(trustRaw)) trustProxy = Number(trustRaw);
      else {
        const list = trustRaw.split(',').map((x) => x.trim());
        if (
          list.every(
            (x) => /^[0-9a-f.:]+(\/\d{1,3})?$/i.test(x) || /^(loopback|linklocal|uniquelocal)$/.test(x),
          )
        )
          trustProxy = list;
        else
          r.problem(
            `TRUST_PROXY: must be true, false, a number of proxy hops, or a comma-separated list of proxy IPs/CIDRs (got '${trustRaw}')`,
          );
      }
    }
    const drainMs = r.int('DRAIN_MS');
    const shutdownDeadlineMs = r.int('SHUTDOWN_DEADLINE_MS');
    if (shutdownDeadlineMs <= drainMs)
      r.problem(
        `SHUTDOWN_DEADLINE_MS: must be more than DRAIN_MS (${drainMs}), or the drain never ends in a close (got '${shutdownDeadlineMs}')`,
      );
    return {
      port,
      host,
      publicUrl,
      trustProxy,
      requestTimeoutMs: r.int('REQUEST_TIMEOUT_MS'),
      drainMs,
      shutdownDeadlineMs,
    };
  },
});
