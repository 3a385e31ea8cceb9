/**
 * The transactional outbox. Order changes write their e-mails as rows in the same transaction (see
 * src/server/orders/service.ts); this worker delivers them through a MailTransport:
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
import { randomUUID } from 'node:crypto';
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
import { PermanentMailError, type MailTransport, type OutgoingEmail } from './types';

export interface OutboxWorkerOptions {
  store: Store;
  transport: MailTransport;
  /**
   * Opens the sealed recipient and body of each row, and seals the delivery errors it stores (an SMTP answer may
   * quote the recipient): src/server/privacy. A row that cannot be opened (unreadable, erased) fails for good.
   */
  sealer: Sealer;
  now?: () => Date;
  random?: () => number;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
  /** How long a claim holds a row without renewal (ms). Default 10 s; renewed every leaseMs / 3. */
  leaseMs?: number;
  /** Prefix of this worker's lock tokens; the same across restarts of one instance (host:port). */
  instanceId?: string;
  /** Idle poll interval (ms). Default 2 s. */
  pollMs?: number;
  batchSize?: number;
  /** Keep retrying for at least this long after the row was written. Default 4 days. */
  retryForMs?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  onError?: (err: unknown, row?: OutboxRow) => void;
}

export interface OutboxRunResult {
  sent: number;
  retrying: number;
  failed: number;
}

export interface OutboxWorker {
  /** Delivers every row that is due now (following seller → buyer chains). */
  runOnce(): Promise<OutboxRunResult>;
  /** Releases the leases held under this instanceId by a previous life of this instance (call before start). */
  releaseOwnLeases(): Promise<number>;
  start(): void;
  /**
   * Stops the timer and waits for the delivery in progress; the pass in flight claims nothing more and hands back
   * the rows it claimed but did not reach, so another instance sends them at once (SIGTERM: deploy.md).
   */
  stop(): Promise<void>;
  /** Something was enqueued: run soon. */
  nudge(): void;
}

export const FOUR_DAYS_MS = 4 * 24 * 3600_000;
export const DEFAULT_LEASE_MS = 10_000;

export function backoffMs(attempts: number, random: number, base = 30_000, max = 3_600_000): number {
  const exp = Math.min(max, base * 2 ** Math.max(0, Math.min(30, attempts - 1)));
  return Math.round(exp * (0.5 + 0.5 * random));
}

export function createOutboxWorker(opts: OutboxWorkerOptions): OutboxWorker {
  const db = opts.store.db;
  const now = opts.now ?? (() => new Date());
  const random = opts.random ?? Math.random;
  const setTimer = opts.setTimer ?? ((fn: () => void, ms: number) => setTimeout(fn, ms).unref());
  const clearTimer = opts.clearTimer ?? ((h: unknown) => clearTimeout(h as NodeJS.Timeout));
  const leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
  const instanceId = opts.instanceId ?? 'worker';
  /** Rows this worker holds now (id → token), renewed on a timer while deliveries run. */
  const held = new Map<string, string>();
  let renewTimer: ReturnType<typeof setInterval> | undefined;

  async function renewLeases(): Promise<void> {
    if (held.size === 0) return;
    const until = new Date(now().getTime() + leaseMs).toISOString();
    await db
      .updateTable('outbox')
      .set({ locked_until: until })
      .where('lock_token', 'in', [...held.values()])
      .execute();
  }

  function startRenewing() {
    if (renewTimer) return;
    renewTimer = setInterval(
      () => {
        renewLeases().catch((err: unknown) => opts.onError?.(err));
      },
      Math.max(50, Math.floor(leaseMs / 3)),
    );
    renewTimer.unref();
  }

  function stopRenewing() {
    if (renewTimer) clearInterval(renewTimer);
    renewTimer = undefined;
  }
  const pollMs = opts.pollMs ?? 2_000;
  const batchSize = opts.batchSize ?? 10;
  const retryForMs = opts.retryForMs ?? FOUR_DAYS_MS;

  async function claimBatch(): Promise<{ row: OutboxRow; token: string }[]> {
    const at = now().toISOString();
    const candidates = await db
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
      .limit(batchSize)
      .execute();
    const claimed: { row: OutboxRow; token: string }[] = [];
    for (const { id } of candidates) {
      const token = `${instanceId}/${randomUUID()}`;
      const claimAt = now();
      const until = new Date(claimAt.getTime() + leaseMs).toISOString();
      const res = await db
        .updateTable('outbox')
        .set({ locked_until: until, lock_token: token })
        .where('id', '=', id)
        .where('state', 'in', ['pending', 'retrying'])
        .where((eb) =>
          eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', claimAt.toISOString())]),
        )
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1) continue; // another worker has it
      const row = await db
        .selectFrom('outbox')
        .selectAll()
        .where('id', '=', id)
        .where('lock_token', '=', token)
        .executeTakeFirst();
      if (row) {
        claimed.push({ row, token });
        held.set(row.id, token);
      }
    }
    return claimed;
  }

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

  let timer: unknown;
  let running: Promise<OutboxRunResult> | undefined;
  let again = false;
  let started = false;

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

  /** Set by stop(): the pass in flight claims nothing more and stops after the e-mail it is sending. */
  let stopping = false;

  async function runOnce(): Promise<OutboxRunResult> {
    const result: OutboxRunResult = { sent: 0, retrying: 0, failed: 0 };
    await eraseKeptCopies().catch((err: unknown) => opts.onError?.(err));
    const mine = new Set<string>();
    startRenewing();
    try {
      for (let pass = 0; pass < 1000 && !stopping; pass++) {
        const batch = await claimBatch();
        if (batch.length === 0) break;
        for (const { row } of batch) mine.add(row.id);
        for (const { row, token } of batch) {
          // Stopping (SIGTERM): the rows not reached are handed back below, for another instance at once.
          if (stopping) break;
          try {
            await deliver(row, token, result);
          } finally {
            held.delete(row.id);
          }
        }
      }
    } finally {
      // Rows claimed but not reached (an error above) are handed back at once rather than at lease expiry.
      const left: string[] = [];
      for (const id of mine) {
        const token = held.get(id);
        if (token !== undefined) left.push(token);
        held.delete(id);
      }
      if (held.size === 0) stopRenewing();
      if (left.length)
        await db
          .updateTable('outbox')
          .set({ locked_until: null, lock_token: null })
          .where('lock_token', 'in', left)
          .execute()
          .catch(() => undefined);
    }
    return result;
  }

  function schedule(ms: number) {
    if (!started) return;
    if (timer !== undefined) clearTimer(timer);
    timer = setTimer(() => {
      timer = undefined;
      void tick();
    }, ms);
  }

  async function tick(): Promise<void> {
    if (running) {
      again = true;
      return;
    }
    running = runOnce();
    try {
      await running;
    } catch (err) {
      opts.onError?.(err);
    } finally {
      running = undefined;
    }
    if (again) {
      again = false;
      schedule(0);
    } else schedule(pollMs);
  }

  return {
    runOnce,
    async releaseOwnLeases() {
      const res = await db
        .updateTable('outbox')
        .set({ locked_until: null, lock_token: null })
        .where(sql`substr(lock_token, 1, ${instanceId.length + 1})`, '=', `${instanceId}/`)
        .where('state', 'in', ['pending', 'retrying'])
        .executeTakeFirst();
      return Number(res.numUpdatedRows);
    },
    start() {
      if (started) return;
      started = true;
      schedule(0);
    },
    async stop() {
      started = false;
      // The pass in flight finishes the e-mail it is sending and hands back the rows it claimed but did not reach.
      stopping = true;
      if (timer !== undefined) clearTimer(timer);
      timer = undefined;
      if (running) await running.catch(() => undefined);
      stopping = false;
    },
    nudge() {
      if (!started) return;
      if (running) again = true;
      else schedule(0);
    },
  };
}
