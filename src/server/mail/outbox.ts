/**
 * The transactional outbox. Order changes write their e-mails as rows in the same transaction (see
 * src/server/orders/service.ts); this worker delivers them through a MailTransport, one at a time, on the
 * claimed-row queue it shares with the webhook sender (../ops/claimed-queue.ts), with this table's queries:
 *
 * - claim: an atomic conditional UPDATE (`locked_until` lease + `lock_token`) so two workers, in one process or
 *   on several API instances sharing PostgreSQL, never hold the same row. The lease is short (10 s) and renewed
 *   every `leaseMs / 3` while the worker holds the row, so a row claimed by a process that died (kill -9) is due
 *   again within the lease: its e-mails go out within 15 s on another instance. Lock tokens start with the
 *   worker's `instanceId` (host and port); at start, an instance releases the leases its previous life held.
 * - order: a buyer row (`after_id` = its seller row) waits until the seller row is sent or failed for good.
 * - retries: exponential backoff with jitter, for at least `retryForMs` (4 days) after the row was written; then,
 *   or on a PermanentMailError, the row is `failed`. A row is sent at most once per (order, recipient, kind)
 *   (UNIQUE constraint); a crash between the transport's acceptance and the commit of `sent` can repeat that one
 *   message after the lease (the row id is passed as the message id so transports can de-duplicate).
 */
import { sql } from 'kysely';
import {
  buyerSafePayload,
  type EmailKind,
  type EmailRecipientRole,
  type OrderEmailPayload,
} from '../../core/email-payload';
import type { PayoutGroup } from '../settings';
import type { Store } from '../store/store';
import type { OutboxRow } from '../store/schema';
import { ERASED, openMail, sealError } from '../privacy/order-data';
import type { Sealer } from '../privacy/seal';
import { redact } from '../redact';
import {
  backoffMs as queueBackoffMs,
  createClaimedQueue,
  queueWorker,
  type ClaimedTable,
  type QueueWorker,
  type QueueWorkerTuning,
} from '../ops/claimed-queue';
import { PermanentMailError, type MailTransport, type OutgoingEmail } from './types';

export interface OutboxWorkerOptions extends QueueWorkerTuning {
  store: Store;
  transport: MailTransport;
  /**
   * Opens the sealed recipient and body of each row, and seals the delivery errors it stores (an SMTP answer may
   * quote the recipient): src/server/privacy. A row that cannot be opened (unreadable, erased) fails for good.
   */
  sealer: Sealer;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
  batchSize?: number;
  /** Keep retrying for at least this long after the row was written. Default 4 days. */
  retryForMs?: number;
  onError?: (err: unknown, row?: OutboxRow) => void;
}

export interface OutboxRunResult {
  sent: number;
  retrying: number;
  failed: number;
}

/** The outbox worker (../ops/claimed-queue.ts); runOnce follows seller → buyer chains. */
export type OutboxWorker = QueueWorker<OutboxRunResult>;

export const FOUR_DAYS_MS = 4 * 24 * 3600_000;
export const DEFAULT_LEASE_MS = 10_000;

/** The outbox's retry schedule: 30 s doubling to at most an hour, with jitter (../ops/claimed-queue.ts). */
export function backoffMs(attempts: number, random: number, base = 30_000, max = 3_600_000): number {
  return queueBackoffMs(attempts, random, base, max);
}

export function createOutboxWorker(opts: OutboxWorkerOptions): OutboxWorker {
  const db = opts.store.db;
  const now = opts.now ?? (() => new Date());
  const random = opts.random ?? Math.random;
  const pollMs = opts.pollMs ?? 2_000;
  const batchSize = opts.batchSize ?? 10;
  const retryForMs = opts.retryForMs ?? FOUR_DAYS_MS;

  /** This table's queries for the shared queue: due rows in order, the conditional claim, renewal, hand-back. */
  const table: ClaimedTable<string, OutboxRow> = {
    async due(limit, at) {
      const rows = await db
        .selectFrom('outbox as o')
        .select('o.id')
        .where('o.state', 'in', ['pending', 'retrying'])
        .where('o.next_attempt_at', '<=', at)
        .where((eb) => eb.or([eb('o.locked_until', 'is', null), eb('o.locked_until', '<=', at)]))
        .where((eb) =>
          eb.or([
            eb('o.after_id', 'is', null),
            eb.exists(
              eb
                .selectFrom('outbox as p')
                .select('p.id')
                .whereRef('p.id', '=', 'o.after_id')
                .where('p.state', 'in', ['sent', 'failed']),
            ),
          ]),
        )
        .orderBy('o.created_at')
        .orderBy('o.role', 'desc')
        .limit(limit)
        .execute();
      return rows.map((r) => r.id);
    },
    async claim(id, { token, at, until }) {
      const res = await db
        .updateTable('outbox')
        .set({ locked_until: until, lock_token: token })
        .where('id', '=', id)
        .where('state', 'in', ['pending', 'retrying'])
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', at.toISOString())]))
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1) return undefined;
      return db
        .selectFrom('outbox')
        .selectAll()
        .where('id', '=', id)
        .where('lock_token', '=', token)
        .executeTakeFirst();
    },
    async renew(tokens, until) {
      await db.updateTable('outbox').set({ locked_until: until }).where('lock_token', 'in', tokens).execute();
    },
    async handBack(tokens) {
      await db
        .updateTable('outbox')
        .set({ locked_until: null, lock_token: null })
        .where('lock_token', 'in', tokens)
        .execute();
    },
    async handBackPrefix(prefix) {
      const res = await db
        .updateTable('outbox')
        .set({ locked_until: null, lock_token: null })
        .where(sql`substr(lock_token, 1, ${prefix.length})`, '=', prefix)
        .where('state', 'in', ['pending', 'retrying'])
        .executeTakeFirst();
      return Number(res.numUpdatedRows);
    },
  };

  function toMessage(row: OutboxRow): OutgoingEmail {
    const opened = openMail(opts.sealer, row.order_id, row);
    if (opened.state !== 'readable')
      throw new PermanentMailError(
        opened.state === 'erased'
          ? 'The message was erased with the buyer’s details before it was sent.'
          : 'The stored message is unreadable (its sealed value failed the check).',
      );
    return {
      id: row.id,
      orderId: row.order_id ?? '', // '' for a seller alert about no order
      kind: row.kind as EmailKind,
      role: row.role as EmailRecipientRole,
      to: opened.to,
      payoutGroup: row.payout_group as PayoutGroup,
      paymentSeen: Number(row.payment_seen) === 1,
      // A buyer message carries no free text of the buyer's beyond a bounded name, whichever transport sends it
      // (rows queued before that rule too): core/email-payload.ts buyerSafePayload.
      payload: (row.role === 'buyer'
        ? buyerSafePayload(opened.payload)
        : opened.payload) satisfies OrderEmailPayload,
    };
  }

  async function deliver(row: OutboxRow, token: string, result: OutboxRunResult): Promise<void> {
    try {
      await opts.transport.send(toMessage(row));
    } catch (err) {
      opts.onError?.(err, row);
      const at = now();
      const attempts = Number(row.attempts) + 1;
      const giveUp =
        err instanceof PermanentMailError || at.getTime() - Date.parse(row.created_at) >= retryForMs;
      const next = new Date(
        at.getTime() + backoffMs(attempts, random(), opts.baseDelayMs, opts.maxDelayMs),
      ).toISOString();
      await db
        .updateTable('outbox')
        .set({
          state: giveUp ? 'failed' : 'retrying',
          attempts,
          next_attempt_at: next,
          locked_until: null,
          lock_token: null,
          // Redacted (no addresses, no credentials) and sealed: the store keeps no recipient in clear.
          last_error: sealError(
            opts.sealer,
            row.order_id,
            redact(err instanceof Error ? `${err.name}: ${err.message}` : String(err)).slice(0, 1000),
          ),
        })
        .where('id', '=', row.id)
        .where('lock_token', '=', token)
        .execute();
      if (giveUp) result.failed++;
      else result.retrying++;
      return;
    }
    const at = now().toISOString();
    await db
      .updateTable('outbox')
      .set({
        state: 'sent',
        attempts: Number(row.attempts) + 1,
        delivered_at: at,
        locked_until: null,
        lock_token: null,
        last_error: null,
      })
      .where('id', '=', row.id)
      .where('lock_token', '=', token)
      .execute();
    result.sent++;
  }

  /**
   * Copies a transport keeps (the file transport's .eml files) of messages whose personal data was erased are
   * erased too: their rows' bodies are `erased` (the order module's erasure, mail/queue.ts eraseMailOf).
   */
  async function eraseKeptCopies(): Promise<void> {
    const { keptIds, eraseKept } = opts.transport;
    if (!keptIds || !eraseKept) return;
    const kept = await keptIds.call(opts.transport);
    for (let i = 0; i < kept.length; i += 500) {
      const rows = await db
        .selectFrom('outbox')
        .select('id')
        .where('id', 'in', kept.slice(i, i + 500))
        .where('payload_json', '=', ERASED)
        .execute();
      if (rows.length)
        await eraseKept.call(
          opts.transport,
          rows.map((r) => r.id),
        );
    }
  }

  const queue = createClaimedQueue<string, OutboxRow>({
    table,
    idOf: (row) => row.id,
    instanceId: opts.instanceId ?? 'worker',
    leaseMs: opts.leaseMs ?? DEFAULT_LEASE_MS,
    pollMs,
    batchSize,
    // One e-mail at a time: a buyer row waits for its seller row (after_id), claimed in a later pass.
    concurrency: 1,
    pass: runOnce,
    now,
    ...(opts.setTimer ? { setTimer: opts.setTimer } : {}),
    ...(opts.clearTimer ? { clearTimer: opts.clearTimer } : {}),
    ...(opts.onError ? { onError: (err: unknown) => opts.onError?.(err) } : {}),
  });

  async function runOnce(): Promise<OutboxRunResult> {
    const result: OutboxRunResult = { sent: 0, retrying: 0, failed: 0 };
    await eraseKeptCopies().catch((err: unknown) => opts.onError?.(err));
    await queue.runDue((row, token) => deliver(row, token, result));
    return result;
  }

  return queueWorker(queue, runOnce);
}
