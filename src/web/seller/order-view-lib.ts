/** What the order view's parts share: amounts in words, short addresses, and how an action is run. */
import type { SellerOrderDetail } from '../../core/seller-api';
import { formatClaim } from '../lib/claim-amount';

export const claimText = (base: string | bigint | null) =>
  base === null ? 'N/A' : `${formatClaim(typeof base === 'bigint' ? base : BigInt(base))} $CLAIM`;
export const short = (a: string) => `${a.slice(0, 4)}…${a.slice(-4)}`;

/** Runs a seller action that answers with the order, then says `done`; false when it was refused. */
export type Act = (fn: () => Promise<SellerOrderDetail>, done: string) => Promise<boolean>;
