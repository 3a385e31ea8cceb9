/**
 * The webhook sender: delivers the rows the order module queued (./queue.ts) on the claimed-row queue it shares
 * with the mail outbox (../ops/claimed-queue.ts: lease, renewal, concurrency, hand-back on stop, backoff), with
 * this table's queries:
 *
 * - claim: a conditional UPDATE (`locked_until` lease + `lock_token` prefixed with the instance id), renewed while
 *   the request runs, so instances sharing PostgreSQL never send one delivery twice at once, and a delivery held
 *   by an instance that died (kill -9) is due again when its lease runs out, or at once when that instance restarts
 *   (releaseOwnLeases). The `webhook-id` is the delivery's id: the same on every attempt.
 * - per endpoint, one request at a time (across instances: the claim checks no other delivery of the endpoint is
 *   held, under the endpoint's row lock on PostgreSQL), oldest first; at most `concurrency` requests at once in the
 *   process (the global cap), so a slow or hostile receiver holds one slot for at most `timeoutMs`.
 * - answers: 2xx delivered; 410 Gone disables the endpoint (and fails the delivery); anything else, or no answer,
 *   retries with exponential backoff and jitter until `retry_until` (three days after it was queued or resent),
 *   then fails. Every attempt is kept (webhook_attempts).
 * - an endpoint failing for `pauseAfterMs` (default three days: every attempt since its last success failed) is
 *   paused and its vendor e-mailed once, through the mail outbox.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import { buildWebhookAlertEmail } from '../../core/email-payload';
import { queueMail } from '../mail/queue';
import { sealMail } from '../privacy/order-data';
import type { Sealer } from '../privacy/seal';
import { sellerEmailFor, type Settings } from '../settings';
import type { Catalog } from '../../core/catalog';
import type { Store } from '../store/store';
import type { Database, WebhookDeliveryRow, WebhookEndpointRow } from '../store/schema';
import type { Resolver } from './address';
import { ERASED_PAYLOAD } from './queue';
import { postWebhook, type SendResult } from './send';
import { signedHeaders } from './sign';
import {
  backoffMs,
  createClaimedQueue,
  queueWorker,
  type ClaimedTable,
  type QueueWorker,
  type QueueWorkerTuning,
} from '../ops/claimed-queue';

export interface WebhookWorkerOptions extends QueueWorkerTuning {
  store: Store;
  sealer: Sealer;
  settings: Pick<Settings, 'webhooks' | 'mail'>;
  catalog: Catalog;
  resolve: Resolver;
  /** PEM certificates trusted besides the system's (tests only: the loopback receiver's CA). */
  extraCa?: readonly string[];
  /** An endpoint failing this long is paused (default three days). */
  pauseAfterMs?: number;
  /** A vendor e-mail was queued (the outbox runs soon). */
  onMailQueued?: () => void;
  onError?: (err: unknown) => void;
}

export interface WebhookRunResult {
  delivered: number;
  retrying: number;
  failed: number;
}

/** The webhook sender (../ops/claimed-queue.ts). */
export type WebhookWorker = QueueWorker<WebhookRunResult>;

export const DEFAULT_PAUSE_AFTER_MS = 3 * 24 * 3600_000;

/** The webhooks' retry schedule: 5 s doubling to at most ten hours, with jitter (../ops/claimed-queue.ts). */
export function webhookBackoffMs(
  attempts: number,
  random: number,
  base = 5_000,
  max = 10 * 3600_000,
): number {
  return backoffMs(attempts, random, base, max);
}

export function createWebhookWorker(opts: WebhookWorkerOptions): WebhookWorker {
  const db = opts.store.db;
  const isPg = opts.store.dialect === 'postgres';
  const now = opts.now ?? (() => new Date());
  const random = opts.random ?? Math.random;
  const pauseAfterMs = opts.pauseAfterMs ?? DEFAULT_PAUSE_AFTER_MS;
  const cfg = opts.settings.webhooks;

  /** This table's queries for the shared queue. */
  const table: ClaimedTable<{ id: string; endpoint_id: string }, WebhookDeliveryRow> = {
    async due(limit, at) {
      const rows = await db
        .selectFrom('webhook_deliveries as d')
        .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
        .select(['d.id', 'd.endpoint_id'])
        .where('e.state', '=', 'active')
        .where('d.state', 'in', ['pending', 'retrying'])
        .where('d.next_attempt_at', '<=', at)
        .where((eb) => eb.or([eb('d.locked_until', 'is', null), eb('d.locked_until', '<=', at)]))
        .orderBy('d.created_at')
        .limit(limit * 4)
        .execute();
      // Oldest first, one per endpoint.
      const seen = new Set<string>();
      return rows.filter((r) => !seen.has(r.endpoint_id) && seen.add(r.endpoint_id)).slice(0, limit);
    },
    /** Claims one due delivery of one endpoint, if no other delivery of it is held. */
    async claim({ id, endpoint_id: endpointId }, { token, at, until }) {
      const atIso = at.toISOString();
      const claimed = await db.transaction().execute(async (trx) => {
        // PostgreSQL: the endpoint's row lock serialises claims of its deliveries across instances.
        if (isPg)
          await trx
            .selectFrom('webhook_endpoints')
            .select('id')
            .where('id', '=', endpointId)
            .forUpdate()
            .executeTakeFirst();
        const busy = await trx
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('endpoint_id', '=', endpointId)
          .where('locked_until', '>', atIso)
          .executeTakeFirst();
        if (busy) return false;
        const res = await trx
          .updateTable('webhook_deliveries')
          .set({ locked_until: until, lock_token: token })
          .where('id', '=', id)
          .where('state', 'in', ['pending', 'retrying'])
          .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', atIso)]))
          .executeTakeFirst();
        return Number(res.numUpdatedRows) === 1;
      });
      if (!claimed) return undefined;
      return db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('id', '=', id)
        .where('lock_token', '=', token)
        .executeTakeFirst();
    },
    async renew(tokens, until) {
      await db
        .updateTable('webhook_deliveries')
        .set({ locked_until: until })
        .where('lock_token', 'in', tokens)
        .execute();
    },
    async handBack(tokens) {
      await db
        .updateTable('webhook_deliveries')
        .set({ locked_until: null, lock_token: null })
        .where('lock_token', 'in', tokens)
        .execute();
    },
    async handBackPrefix(prefix) {
      const res = await db
        .updateTable('webhook_deliveries')
        .set({ locked_until: null, lock_token: null })
        .where(sql`substr(lock_token, 1, ${prefix.length})`, '=', prefix)
        .executeTakeFirst();
      return Number(res.numUpdatedRows);
    },
  };

  function secretsOf(ep: WebhookEndpointRow, at: Date): string[] {
    const out = [opts.sealer.open(ep.secret, ep.id, 'webhook.secret')];
    if (ep.previous_secret && ep.previous_secret_until && Date.parse(ep.previous_secret_until) > at.getTime())
      out.push(opts.sealer.open(ep.previous_secret, ep.id, 'webhook.secret'));
    return out;
  }

  async function attempt(d: WebhookDeliveryRow, ep: WebhookEndpointRow): Promise<SendResult> {
    let body: string;
    let secrets: string[];
    const at = now();
    try {
      if (d.payload_json === ERASED_PAYLOAD) return { status: null, error: 'erased', durationMs: 0 };
      body = opts.sealer.open(d.payload_json, d.id, 'webhook.payload');
      secrets = secretsOf(ep, at);
    } catch {
      return { status: null, error: 'unreadable', durationMs: 0 };
    }
    return postWebhook(
      new URL(ep.url),
      signedHeaders(secrets, d.id, Math.floor(at.getTime() / 1000), body),
      body,
      {
        policy: { allowPrivate: cfg.allowPrivate, resolve: opts.resolve },
        timeoutMs: cfg.timeoutMs,
        maxResponseBytes: cfg.maxResponseBytes,
        ...(opts.extraCa ? { extraCa: opts.extraCa } : {}),
      },
    );
  }

  async function deliver(d: WebhookDeliveryRow, token: string, result: WebhookRunResult): Promise<void> {
    const ep = await db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', d.endpoint_id)
      .executeTakeFirst();
    if (!ep || ep.state !== 'active') {
      await db
        .updateTable('webhook_deliveries')
        .set({ locked_until: null, lock_token: null })
        .where('id', '=', d.id)
        .where('lock_token', '=', token)
        .execute();
      return;
    }
    const sent = await attempt(d, ep);
    const at = now();
    const atIso = at.toISOString();
    const attempts = Number(d.attempts) + 1;
    const ok = sent.status !== null && sent.status >= 200 && sent.status < 300;
    const gone = sent.status === 410;
    const hopeless = sent.error === 'erased' || sent.error === 'unreadable';
    const error = ok
      ? null
      : sent.error === 'erased'
        ? 'The event was erased with the buyer’s details before it was delivered.'
        : sent.error === 'unreadable'
          ? 'The stored event or the endpoint’s secret is unreadable.'
          : (sent.error ?? `The endpoint answered ${sent.status}.`);
    const giveUp = gone || hopeless || (!ok && at.getTime() >= Date.parse(d.retry_until));
    await db.transaction().execute(async (trx) => {
      const res = await trx
        .updateTable('webhook_deliveries')
        .set({
          state: ok ? 'delivered' : giveUp ? 'failed' : 'retrying',
          attempts,
          last_status: sent.status,
          last_attempt_at: atIso,
          last_error: error,
          delivered_at: ok ? atIso : d.delivered_at,
          next_attempt_at:
            ok || giveUp
              ? d.next_attempt_at
              : new Date(
                  at.getTime() + webhookBackoffMs(attempts, random(), opts.baseDelayMs, opts.maxDelayMs),
                ).toISOString(),
          locked_until: null,
          lock_token: null,
        })
        .where('id', '=', d.id)
        .where('lock_token', '=', token)
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1) return; // lost the lease (erased meanwhile): nothing to record
      await trx
        .insertInto('webhook_attempts')
        .values({
          id: randomUUID(),
          delivery_id: d.id,
          at: atIso,
          status: sent.status,
          error,
          duration_ms: sent.durationMs,
        })
        .execute();
      if (ok) {
        await trx
          .updateTable('webhook_endpoints')
          .set({ failing_since: null })
          .where('id', '=', ep.id)
          .where('failing_since', 'is not', null)
          .execute();
      } else if (gone) {
        await trx
          .updateTable('webhook_endpoints')
          .set({ state: 'disabled', state_reason: 'gone', updated_at: atIso })
          .where('id', '=', ep.id)
          .execute();
      } else if (!hopeless) {
        await trx
          .updateTable('webhook_endpoints')
          .set({ failing_since: atIso })
          .where('id', '=', ep.id)
          .where('failing_since', 'is', null)
          .execute();
        const since = ep.failing_since ? Date.parse(ep.failing_since) : at.getTime();
        if (at.getTime() - since >= pauseAfterMs) await pauseFailing(trx, ep, atIso);
      }
    });
    if (ok) result.delivered++;
    else if (giveUp) result.failed++;
    else result.retrying++;
  }

  let mailQueued = false;

  /** Pauses an endpoint failing for days and e-mails its vendor, once (the conditional update decides). */
  async function pauseFailing(
    trx: Transaction<Database>,
    ep: WebhookEndpointRow,
    atIso: string,
  ): Promise<void> {
    const paused = await trx
      .updateTable('webhook_endpoints')
      .set({ state: 'paused', state_reason: 'failing', updated_at: atIso })
      .where('id', '=', ep.id)
      .where('state', '=', 'active')
      .executeTakeFirst();
    if (Number(paused.numUpdatedRows) !== 1) return;
    const vendor = opts.catalog.vendors.find((v) => v.id === ep.vendor_id);
    if (!vendor) return;
    const to = sellerEmailFor(opts.settings.mail, vendor.payoutGroup);
    const host = new URL(ep.url).host;
    const days = Math.round(pauseAfterMs / 86_400_000);
    const mail = buildWebhookAlertEmail(
      to,
      `Your webhook endpoint ${host} has not accepted an event for ${days === 1 ? 'a day' : `${days} days`}, so we paused it. ` +
        'Events keep being recorded for it. When the receiver works again, open Webhooks in the seller console and press “Resume”: ' +
        'what is still waiting is sent then, and “Resend” sends any event again.',
    );
    await queueMail(trx, {
      order_id: null,
      kind: 'webhook_failing',
      role: 'seller',
      payout_group: vendor.payoutGroup,
      payment_seen: 0,
      ...sealMail(opts.sealer, null, mail),
      next_attempt_at: atIso,
      created_at: atIso,
      payment_signature: `webhook_failing:${ep.id}:${atIso}`,
    }).execute();
    mailQueued = true;
  }

  const queue = createClaimedQueue<{ id: string; endpoint_id: string }, WebhookDeliveryRow>({
    table,
    idOf: (row) => row.id,
    instanceId: opts.instanceId ?? 'webhooks',
    leaseMs: opts.leaseMs ?? 30_000,
    pollMs: opts.pollMs ?? 2_000,
    // One due delivery per endpoint a pass, all at once: at most `concurrency` requests in the process.
    batchSize: cfg.concurrency,
    concurrency: cfg.concurrency,
    pass: runOnce,
    now,
    ...(opts.onError ? { onError: (err: unknown) => opts.onError?.(err) } : {}),
  });

  async function runOnce(): Promise<WebhookRunResult> {
    const result: WebhookRunResult = { delivered: 0, retrying: 0, failed: 0 };
    try {
      await queue.runDue((row, token) =>
        deliver(row, token, result).catch((err: unknown) => opts.onError?.(err)),
      );
    } finally {
      if (mailQueued) {
        mailQueued = false;
        opts.onMailQueued?.();
      }
    }
    return result;
  }

  return queueWorker(queue, runOnce);
}
