/**
 * No transaction stalls the watcher (docs/decisions/transaction-versions.md). A signature whose transaction the
 * node has but we cannot read — a version above ours (-32015), a malformed answer, a node error about that
 * signature that repeats — is tried `unreadableAttempts` times (the judge backs off between tries), then set
 * aside: stored as unreadable with its reason (judged `unreadable`: the sweeps' cursor moves past it, it is never
 * fetched again), reported by readiness and /metrics without making the instance not ready.
 *
 * Nobody's money disappears silently: the orders it may pay are told (the order module's
 * noteUnreadablePayment: the order's page and the seller's exceptions say so). Which orders: the one whose
 * reference listed it (priority lane, hint), those whose reference is among the keys the answer still named,
 * and, when the answer named none, the orders someone is waiting on whose reference lists the signature (one
 * getSignaturesForAddress each, at most MAX_PROBED_ORDERS: setting aside is rare).
 *
 * Failures that say nothing about the signature (transport, timeout, the budget, a node that is behind) are
 * never counted: an RPC outage must not set real payments aside.
 */
import { PaymentRpcError, PaymentRpcTimeoutError, UnreadableTransactionError, withTimeout } from '../rpc';
import type { SetAsideReason } from '../scan-store';
import { isFollowed, type WatchContext } from './context';

/** Node error codes about the node, not the transaction (unhealthy, internal error, rate limit by error). */
const NODE_CODES = new Set([-32005, -32603, -32429, -32000]);
/** Signatures whose failed tries are counted at once at most (the oldest counts are forgotten). */
const MAX_COUNTED = 10_000;
/** Orders probed by reference for a set-aside transaction whose answer named no keys. */
const MAX_PROBED_ORDERS = 10;
/** Newest signatures read per probed order. */
const PROBE_SIGNATURES = 25;

/** Why `err` is the signature's own fault (counted toward setting it aside), or undefined when it is not. */
export function signatureFault(err: unknown): SetAsideReason | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && e instanceof Error; depth++) {
    if (e instanceof UnreadableTransactionError) return e.reason;
    if (e instanceof PaymentRpcTimeoutError) return undefined;
    if (e instanceof PaymentRpcError && e.code !== undefined && !NODE_CODES.has(e.code)) return 'rpc_error';
    e = e.cause;
  }
  return undefined;
}

function keysOf(err: unknown): string[] {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && e instanceof Error; depth++) {
    if (e instanceof UnreadableTransactionError) return e.keys;
    e = e.cause;
  }
  return [];
}

/** Where a failed read happened, as far as the caller knows. */
export interface ReadPlace {
  /** The vendor token account whose listing named the signature (sweeps). */
  account?: string;
  /** The order whose reference listed it (priority lane) or that it was hinted for. */
  orderId?: string;
}

export class UnreadableTransactions {
  /** Failed tries per signature not yet set aside. */
  private readonly tries = new Map<string, number>();

  constructor(
    private readonly ctx: WatchContext,
    /** The judged signatures' memory (judge.ts JudgedSignatures): a set-aside one is judged. */
    private readonly judged: { remember(signature: string): void },
    /** The orders someone waits on now (pages polling, then hinted), most urgent first. */
    private readonly awaitedOrders: () => string[],
  ) {}

  /**
   * One failed read of `signature`. False when the failure is not the signature's own or it has tries left;
   * true when it is now set aside (stored, its orders told).
   */
  async failed(signature: string, err: unknown, place: ReadPlace = {}): Promise<boolean> {
    const reason = signatureFault(err);
    if (!reason) return false;
    const n = (this.tries.get(signature) ?? 0) + 1;
    if (n < this.ctx.o.unreadableAttempts) {
      this.tries.delete(signature);
      this.tries.set(signature, n);
      if (this.tries.size > MAX_COUNTED) {
        const oldest = this.tries.keys().next().value;
        if (oldest !== undefined) this.tries.delete(oldest);
      }
      return false;
    }
    this.tries.delete(signature);
    await this.setAside(signature, reason, err, place);
    return true;
  }

  private async setAside(signature: string, reason: SetAsideReason, err: unknown, place: ReadPlace) {
    const { ctx } = this;
    const detail = err instanceof Error ? err.message : String(err);
    await ctx.store.setAside(
      { signature, reason, detail, ...(place.account ? { account: place.account } : {}) },
      ctx.now(),
    );
    this.judged.remember(signature);
    const orderIds = await this.ordersConcerned(signature, keysOf(err), place.orderId);
    for (const orderId of orderIds) await ctx.orders.noteUnreadablePayment(orderId, { signature, reason });
    ctx.emit({ type: 'unreadable', signature, reason, detail, orderIds });
  }

  /** The followed orders the transaction may pay (see the file's comment). */
  private async ordersConcerned(signature: string, keys: string[], known?: string): Promise<string[]> {
    const { ctx } = this;
    const out = new Set<string>(known ? [known] : []);
    if (keys.length) {
      for (const o of await ctx.orders.ordersByReferences(keys)) if (isFollowed(ctx, o)) out.add(o.orderId);
      return [...out];
    }
    if (known) return [...out];
    for (const orderId of this.awaitedOrders().slice(0, MAX_PROBED_ORDERS)) {
      const order = await ctx.orders.findOrder({ orderId });
      if (!order || !isFollowed(ctx, order)) continue;
      try {
        const listed = await withTimeout('getSignaturesForAddress', ctx.timeoutMs, () =>
          ctx.rpc.getSignaturesForAddress(order.reference, { limit: PROBE_SIGNATURES }),
        );
        if (listed.some((s) => s.signature === signature)) out.add(orderId);
      } catch (error) {
        ctx.emit({ type: 'error', where: `unreadable ${signature}: probe ${orderId}`, error });
      }
    }
    return [...out];
  }
}
