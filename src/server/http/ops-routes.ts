/**
 * The store's own routes: health (GET /api/health, /api/health/live, /api/health/ready, /api/health/deps),
 * Prometheus metrics (GET /metrics, with the request-latency hook), the catalogue and the browser's configuration.
 *
 * Which probe is which (docs/deploy.md): live = the process answers (restart it otherwise); ready = the database
 * answers and the instance has started and is not draining (route to it otherwise not); deps = the outside services per part
 * (alert on it, never route on it).
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { notReadyMessage, readiness, type ReadinessDeps } from '../ops/health';
import { dependencyReport, type DependencyDeps } from '../ops/dependencies';
import { createMetrics } from '../ops/metrics';
import type { Catalog } from '../../core/catalog';
import { publicConfig, type Settings } from '../settings';

export interface OpsRouteDeps {
  settings: Settings;
  catalog: Catalog;
  /** Readiness for GET /api/health (store open and migrated). Omitted: always ready. */
  health?: () => Promise<boolean> | boolean;
  /**
   * Operations: /api/health/ready reads the store and the draining flag; /api/health/deps and /metrics read the
   * store, the price and the probes.
   */
  ops?: ReadinessDeps & DependencyDeps;
}

function timingSafeEqualText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function opsRoutes(app: FastifyInstance, deps: OpsRouteDeps): void {
  const s = deps.settings;
  app.get('/api/health', async (_req, reply) => {
    const ok = deps.health ? await deps.health() : true;
    return reply
      .status(ok ? 200 : 503)
      .send(ok ? { ok: true } : { ok: false, error: 'not_ready', message: 'The store is not open yet.' });
  });
  // Liveness: the process answers (no dependency checked, so a database outage does not get it restarted).
  app.get('/api/health/live', async () => ({ ok: true }));
  const ops = deps.ops;
  if (ops) {
    app.get('/api/health/ready', async (_req, reply) => {
      const r = await readiness(ops);
      return reply
        .status(r.ready ? 200 : 503)
        .header('cache-control', 'no-store')
        .send({
          ok: r.ready,
          ...(r.ready ? {} : { error: 'not_ready', message: notReadyMessage(r), failing: r.failing }),
          parts: r.parts,
        });
    });
    // Always 200: a report to alert on, not a probe to route on.
    app.get('/api/health/deps', async (_req, reply) =>
      reply.header('cache-control', 'no-store').send(await dependencyReport(ops)),
    );

    const metrics = createMetrics(ops);
    app.addHook('onResponse', async (req, reply) => {
      const route = req.routeOptions.url ?? 'unmatched';
      metrics.observeRequest(req.method, route, reply.statusCode, reply.elapsedTime / 1000);
    });
    // Open in demo mode; otherwise `Authorization: Bearer <METRICS_TOKEN>` (no token configured: closed).
    app.get('/metrics', async (req, reply) => {
      if (!s.demo) {
        const token = s.metricsToken;
        const given = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
        if (!token || !given || !timingSafeEqualText(given, token)) {
          return reply.status(401).header('www-authenticate', 'Bearer realm="metrics"').send({
            error: 'unauthorized',
            message: 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.',
          });
        }
      }
      const body = await metrics.registry.metrics();
      return reply.type(metrics.registry.contentType).header('cache-control', 'no-store').send(body);
    });
  }
  const catalogBody = JSON.stringify(deps.catalog); // serialised once: the catalogue does not change while we run
  app.get('/api/catalog', (_req, reply) => reply.type('application/json; charset=utf-8').send(catalogBody));
  app.get('/api/config', async () => publicConfig(deps.settings));
}
