import type { PayoutAccounts } from '../../src/server/payments/payout-accounts';

/**
 * For servers in tests that have no chain to ask (their RPC URL answers nothing) and never take a payment: every
 * vendor's $CLAIM token account is taken to exist, so QR quotes are issued as in production with the accounts set
 * up. Tests of the refusal use the real check against a localnet (test/e2e/payout-accounts.test.ts,
 * test/integration/payout-accounts.test.ts).
 */
export const payoutAccountsAssumedToExist: PayoutAccounts = {
  state: () => Promise.resolve('exists'),
  assertReceivable: () => Promise.resolve(),
  peek: () => 'exists',
};
