/**
 * The server's reads of the chain outside the watcher, on one RPC budget for the process: the budgeted RPC client
 * (connection.ts: @solana/kit over the budgeted fetch; main.ts's start-up check of the vendors' token accounts, the readiness probe), the payments' RPC port over it
 * (the seller console's refund check), whether each vendor's $CLAIM token account exists (no QR or payment link
 * otherwise; cached) and a paying wallet's $CLAIM balance (a wallet hold needs the money; cached 10 s). The
 * payment watcher, a service, is handed the same `budget`, and serves the `lanes` made here (./lanes.ts: the
 * chain clock, the awaited and the hint lane) that the order service and the hint route are handed.
 *
 * On PostgreSQL (several instances on one store) the budget is the fleet's: every instance takes its grants from
 * the store (fleet-budget.ts), so together they stay within SOLANA_RPC_BUDGET. On SQLite it is the process's own.
 */
import { redactError } from '../redact';
import type { Settings } from '../settings';
import type { Store } from '../store/store';
import { RpcBudget } from './budget';
import { budgetedRpc, type ChainRpc } from './connection';
import { createFleetBudget } from './fleet-budget';
import { createPayoutAccounts, type PayoutAccounts } from './payout-accounts';
import type { PaymentRpc } from './rpc';
import { chainPaymentRpc } from './rpc-adapter';
import { createWatchLanes, type WatchLanes } from './lanes';
import { createWalletBalances, type WalletBalances } from './wallet-balances';
import { createRecentChain, type RecentChain } from './recent-chain';

export interface ChainReads {
  budget: RpcBudget;
  chain: ChainRpc;
  rpc: PaymentRpc;
  payoutAccounts: PayoutAccounts;
  balances: WalletBalances;
  lanes: WatchLanes;
  /** The blockhash and priority price shared by every transaction request (./recent-chain.ts). */
  recentChain: RecentChain;
}

export function createChainReads(
  settings: Pick<Settings, 'rpcBudget' | 'solana' | 'claimMint' | 'recipients'>,
  given: { payoutAccounts?: PayoutAccounts; walletBalances?: WalletBalances; store?: Store } = {},
): ChainReads {
  const store = given.store;
  const budget = new RpcBudget({
    perWindow: settings.rpcBudget.per10s,
    ...(store?.dialect === 'postgres'
      ? {
          shared: createFleetBudget({
            db: store.db,
            onError: (err) => console.warn(`RPC budget: the store did not answer: ${redactError(err)}`),
          }),
        }
      : {}),
  });
  const chain = budgetedRpc(settings.solana, budget);
  const rpc = chainPaymentRpc(chain, { timeoutMs: 5_000 });
  const payoutAccounts =
    given.payoutAccounts ??
    createPayoutAccounts({
      chain,
      mint: settings.claimMint,
      recipients: settings.recipients,
      onError: (err) => console.warn(`Could not check the vendors' token accounts: ${redactError(err)}`),
    });
  const balances =
    given.walletBalances ??
    createWalletBalances({
      chain,
      mint: settings.claimMint,
      onError: (err) => console.warn(`Could not read a buyer's $CLAIM balance: ${redactError(err)}`),
    });
  const recentChain = createRecentChain({
    chain,
    mint: settings.claimMint,
    recipients: settings.recipients,
    onError: (err) => console.warn(`Could not refresh the recent blockhash: ${redactError(err)}`),
  });
  return { budget, chain, rpc, payoutAccounts, balances, lanes: createWatchLanes(), recentChain };
}
