/**
 * Whether each vendor can receive by QR now: its $CLAIM token account exists (src/core/payout-account.ts). Read
 * through the server's budgeted RPC (connection.ts), all vendors in one `getMultipleAccounts`, with a short cache
 * (`PAYOUT_ACCOUNT_TTL_MS`): page views never hit the RPC beyond one read per period, and concurrent askers share
 * one read in flight. The mint's token program is read once. A failed read answers 'unknown' (the caller refuses
 * the QR in words), except that an account already seen existing stays 'exists'.
 */
import type { Address } from '@solana/kit';
import {
  isFresh,
  nextPayoutEntry,
  payoutRefusal,
  PAYOUT_ACCOUNT_TTL_MS,
  type PayoutAccountEntry,
  type PayoutAccountState,
} from '../../core/payout-account';
import { tokenProgramOf, vendorAccounts } from '../ops/vendor-accounts';
import type { ChainRpc } from './connection';

export interface PayoutAccounts {
  /** The state of a payout group's token account (cached; reads the chain when the answer is stale). */
  state(group: string): Promise<PayoutAccountState>;
  /** Throws the buyer's refusal (DomainError) unless the group's account exists. */
  assertReceivable(group: string, vendorName: string): Promise<void>;
  /**
   * The last state known, without waiting (undefined before the first read); starts a read in the background when
   * it is stale. For the transaction request, which must not wait for the chain (it adds the idempotent creation
   * unless the account is known to exist).
   */
  peek?(group: string): PayoutAccountState | undefined;
}

export interface PayoutAccountsOptions {
  chain: ChainRpc;
  mint: string;
  recipients: Record<string, string>;
  now?: () => number;
  ttl?: Record<PayoutAccountState, number>;
  /** Told once per failed read (the error is redacted by the caller). */
  onError?: (err: unknown) => void;
}

export function createPayoutAccounts(opts: PayoutAccountsOptions): PayoutAccounts {
  const now = opts.now ?? Date.now;
  const ttl = opts.ttl ?? PAYOUT_ACCOUNT_TTL_MS;
  const entries = new Map<string, PayoutAccountEntry>();
  let program: Address | undefined;
  let inFlight: Promise<void> | undefined;

  const refresh = async (): Promise<void> => {
    const at = now();
    try {
      program ??= await tokenProgramOf(opts.chain, opts.mint);
      const rows = await vendorAccounts(opts.chain, opts.mint, opts.recipients, program);
      for (const r of rows)
        entries.set(r.group, nextPayoutEntry(entries.get(r.group), r.exists ? 'exists' : 'missing', at, ttl));
    } catch (err) {
      opts.onError?.(err);
      for (const group of Object.keys(opts.recipients))
        entries.set(group, nextPayoutEntry(entries.get(group), 'unknown', at, ttl));
    }
  };

  const state = async (group: string): Promise<PayoutAccountState> => {
    if (!(group in opts.recipients)) return 'unknown';
    const cached = entries.get(group);
    if (isFresh(cached, now(), ttl)) return cached.state;
    inFlight ??= refresh().finally(() => {
      inFlight = undefined;
    });
    await inFlight;
    return entries.get(group)?.state ?? 'unknown';
  };

  return {
    state,
    peek(group) {
      if (!(group in opts.recipients)) return undefined;
      const cached = entries.get(group);
      if (!isFresh(cached, now(), ttl))
        void state(group).catch(() => {
          // refresh() reports its own failures (onError)
        });
      return cached?.state;
    },
    async assertReceivable(group, vendorName) {
      const refusal = payoutRefusal(await state(group), vendorName);
      if (refusal) throw refusal;
    },
  };
}
