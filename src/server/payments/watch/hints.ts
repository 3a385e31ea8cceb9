/**
 * Hints: the wallet page reported a signature for an order (POST /api/orders/:id/payment). That one transaction
 * is re-read (verifyHint: status, then the transaction, which must name the order's reference) and recorded if
 * it checks out. A signature already judged is not fetched again; at most one retry loop per order (while the
 * transaction is not yet confirmed, for `hintRetryMs`), following at most `hintsPerOrder` signatures; only within
 * the order's watch window.
 */
import { isSignature, verifyHint, type ExpectedPayment, type PaymentOutcome } from '../verify';
import { isFollowed, type WatchContext, type WatchedOrder } from './context';
import type { JudgedSignatures } from './judge';
import { BoundedSet } from './loops';
import { recordTransfer } from './record';

const HINTS_JUDGED_MEMORY = 50_000;

export class Hints {
  /** One hint loop per order: the signatures it still waits for. */
  private readonly loops = new Map<string, Set<string>>();
  /** Hints already judged for an order (`orderId:signature`), bounded. */
  private readonly judgedHints = new BoundedSet(HINTS_JUDGED_MEMORY);

  constructor(
    private readonly ctx: WatchContext,
    private readonly judged: JudgedSignatures,
  ) {}

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
    const outcome = await verifyHint(this.ctx.rpc, this.expected(order), signature, this.ctx.verifyOptions);
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
