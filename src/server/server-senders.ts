/**
 * The two senders of startServer (./server.ts): the mail outbox worker and the webhook sender, each on its own
 * table, with this instance's id (so a restart hands back the rows its previous life claimed) and redacted error
 * logs. Composition only.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Catalog } from '../core/catalog';
import { createOutboxWorker, type OutboxWorker } from './mail/outbox';
import type { MailTransport } from './mail/types';
import type { Sealer } from './privacy/seal';
import { redactError } from './redact';
import type { ServerOverrides } from './server-types';
import type { Settings } from './settings';
import type { Store } from './store/store';
import { systemResolver, type Resolver } from './webhooks/address';
import { createWebhookWorker, type WebhookWorker } from './webhooks/worker';

/**
 * The same on every restart of this instance (host and fixed port), so a restart releases its old leases; with
 * PORT=0 (tests) every life is its own instance.
 */
export function instanceId(settings: Settings): string {
  return settings.port > 0
    ? `${hostname()}:${settings.port}`
    : `${hostname()}:${process.pid}:${randomUUID()}`;
}

export interface SenderDeps {
  settings: Settings;
  overrides: ServerOverrides;
  store: Store;
  transport: MailTransport;
  sealer: Sealer;
  catalog: Catalog;
  now: () => Date;
}

export function createSenders(deps: SenderDeps): {
  outbox: OutboxWorker;
  webhooks: WebhookWorker;
  resolve: Resolver;
} {
  const { settings, overrides, store, sealer, now } = deps;
  const outbox = createOutboxWorker({
    store,
    transport: deps.transport,
    now,
    sealer,
    instanceId: instanceId(settings),
    onError: (err) => {
      // Redacted: a transport error may quote the recipient's address or the SMTP URL.
      if (overrides.logger) console.warn('outbox:', redactError(err));
    },
    ...overrides.outbox,
  });
  const resolve = overrides.webhooks?.resolve ?? systemResolver;
  const webhooks = createWebhookWorker({
    store,
    sealer,
    settings,
    catalog: deps.catalog,
    resolve,
    now,
    instanceId: instanceId(settings),
    onMailQueued: () => outbox.nudge(),
    onError: (err) => {
      if (overrides.logger) console.warn('webhooks:', redactError(err));
    },
    ...overrides.webhooks,
  });
  return { outbox, webhooks, resolve };
}
