/**
 * Hints: the wallet page reported a signature for an order (POST /api/orders/:id/payment). That one transaction
 * is re-read (verifyHint: status, then the transaction, which must name the order's reference) and recorded if
 * it checks out. A signature already judged is not fetched again; at most one retry loop per order (while the
 * transaction is not yet confirmed, for `hintRetryMs`), following at most `hintsPerOrder` signatures; only within
 * the order's watch window.
 *
 * Hints cost nothing on chain, so they get their own small share of the RPC budget (the hint lane; waiting there
 * slows only other hints) and each signature is fetched once whatever the number of orders naming it: a served
 * transaction is remembered (bounded), and a confirmed status too.
 */
import type { PaymentRpc, PaymentTransaction, SignatureStatusInfo } from '../rpc';
import { isSignature } from '../signature';
import { verifyHint, type ExpectedPayment, type PaymentOutcome } from '../verify';
import { isFollowed, type WatchContext, type WatchedOrder } from './context';
import type { JudgedSignatures } from './judge';
import type { Lane } from './lanes';
import { BoundedSet } from './loops';
import { recordTransfer } from './record';
import { signatureFault, type UnreadableTransactions } from './unreadable';

const HINTS_JUDGED_MEMORY = 50_000;
/** Hinted transactions (and confirmed statuses) remembered, so each signature is fetched once. */
const HINT_CACHE = 1_000;
/** A hint waits this long at most for room in its lane. */
const LANE_WAIT_MS = 30_000;

function remember<T>(cache: Map<string, T>, key: string, value: T): void {
  cache.set(key, value);
  if (cache.size > HINT_CACHE) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
}

export class Hints {
  /** One hint loop per order: the signatures it still waits for. */
  private readonly loops = new Map<string, Set<string>>();
  /** Hints already judged for an order (`orderId:signature`), bounded. */
  private readonly judgedHints = new BoundedSet(HINTS_JUDGED_MEMORY);

  private readonly transactions = new Map<string, PaymentTransaction>();
  private readonly statuses = new Map<string, SignatureStatusInfo>();
  /** The RPC port as hints use it: through the hint lane, each signature's facts fetched once. */
  private readonly rpc: PaymentRpc;

  constructor(
    private readonly ctx: WatchContext,
    private readonly judged: JudgedSignatures,
    lane: Lane,
    private readonly unreadable: UnreadableTransactions,
  ) {
    const deadline = () => Date.now() + LANE_WAIT_MS;
    this.rpc = {
      getSignaturesForAddress: (address, query) => ctx.rpc.getSignaturesForAddress(address, query),
      getSignatureStatuses: async (signatures) => {
        const fresh = new Map<string, SignatureStatusInfo | null>();
        const missing = signatures.filter((s) => !this.statuses.has(s));
        if (missing.length) {
          await lane.acquire(deadline());
          const got = await ctx.rpc.getSignatureStatuses(missing);
          missing.forEach((s, i) => {
            const st = got[i] ?? null;
            fresh.set(s, st);
            // Only a confirmed status is a fact worth keeping (a processed one may still change).
            if (st && (st.confirmationStatus === 'confirmed' || st.confirmationStatus === 'finalized'))
              remember(this.statuses, s, st);
          });
        }
        return signatures.map((s) => this.statuses.get(s) ?? fresh.get(s) ?? null);
      },
      getTransaction: async (signature) => {
        const known = this.transactions.get(signature);
        if (known) return known;
        await lane.acquire(deadline());
        const tx = await ctx.rpc.getTransaction(signature);
        if (tx) remember(this.transactions, signature, tx);
        return tx;
      },
    };
  }

  async onHint(order: WatchedOrder, signature: string): Promise<PaymentOutcome> {
    if (!isSignature(signature)) return { kind: 'NotFound', reason: 'malformed_signature' };
    if (!isFollowed(this.ctx, order)) return { kind: 'NotFound', reason: 'not_followed' };
    const key = `${order.orderId}:${signature}`;
    if (order.payments.some((p) => p.signature === signature) || this.judgedHints.has(key))
      return { kind: 'NotFound', reason: 'already_judged' };
    const loop = this.loops.get(order.orderId);
    if (loop?.has(signature)) return { kind: 'NotFound', reason: 'not_confirmed' };
    if (await this.judged.has(signature)) return { kind: 'NotFound', reason: 'already_judged' };
    const outcome = await this.check(order, signature);
    if (outcome.kind === 'NotFound' && outcome.reason === 'not_confirmed') {
      if (loop) {
        if (loop.size < this.ctx.o.hintsPerOrder) loop.add(signature);
      } else {
        this.loops.set(order.orderId, new Set([signature]));
        this.ctx.background.track(this.retry(order));
      }
    } else this.judgedHints.add(key);
    return outcome;
  }

  private expected(order: WatchedOrder): ExpectedPayment {
    return {
      reference: order.reference,
      recipientOwner: order.recipient,
      mint: order.mint,
      amountBaseUnits: order.amountBaseUnits,
      usedSignature: (signature) => this.ctx.orders.isSignatureUsed(signature, order.orderId),
    };
  }

  private async check(order: WatchedOrder, signature: string): Promise<PaymentOutcome> {
    let outcome: PaymentOutcome;
    try {
      outcome = await verifyHint(this.rpc, this.expected(order), signature, this.ctx.verifyOptions);
    } catch (err) {
      // A transaction we cannot read: retried by the order's hint loop like an unconfirmed one, set aside after
      // its tries (the order is told); then it counts as judged.
      if (signatureFault(err) === undefined) throw err;
      const setAside = await this.unreadable.failed(signature, err, { orderId: order.orderId });
      return { kind: 'NotFound', reason: setAside ? 'already_judged' : 'not_confirmed' };
    }
    if (outcome.kind === 'Paid' || outcome.kind === 'Underpaid') {
      const { kind: _kind, ...landed } = outcome;
      await recordTransfer(this.ctx, order, landed, 'hint');
    } else if (outcome.kind !== 'NotFound')
      this.ctx.emit({ type: 'rejected', orderId: order.orderId, outcome });
    return outcome;
  }

  /** The order's one hint loop: retries its unconfirmed signatures with backoff until `hintRetryMs` passes. */
  private async retry(order: WatchedOrder): Promise<void> {
    const deadline = Date.now() + this.ctx.o.hintRetryMs;
    let delay = 500;
    try {
      while (this.ctx.running() && Date.now() < deadline) {
        await this.ctx.background.sleep(delay);
        delay = Math.min(delay * 2, 4000);
        const pending = this.loops.get(order.orderId);
        if (!pending?.size) return;
        for (const signature of [...pending]) {
          const outcome = await this.ctx.background.guard(`hint ${order.orderId}`, () =>
            this.check(order, signature),
          );
          if (outcome && !(outcome.kind === 'NotFound' && outcome.reason === 'not_confirmed')) {
            pending.delete(signature);
            this.judgedHints.add(`${order.orderId}:${signature}`);
          }
        }
      }
    } finally {
      this.loops.delete(order.orderId);
    }
  }
}
