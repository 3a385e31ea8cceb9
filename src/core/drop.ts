/**
 * Drops (issue 32, docs/decisions/drops.md): a product can be a drop in the catalogue, sold from a set second, each
 * piece held for a short time of its own, at most a few to one buyer. Pure rules; browser-safe.
 */
import type { Drop } from './drop-schema';
import { DomainError } from './errors';
import { formatTimeUtc } from './stock';

/** Default hold of a drop's piece (and the life of its quote): 5 minutes. */
export const DEFAULT_DROP_HOLD_MINUTES = 5;
/** Default pieces of one drop one buyer may have (held or bought). */
export const DEFAULT_DROP_PER_BUYER = 1;

// The catalogue's schema of a drop is in drop-schema.ts: zod stays out of the pages that only apply the rules
// (the product page's DropPanel imports this module).
export type { Drop } from './drop-schema';

export interface DropRules {
  startsAt: Date;
  holdMs: number;
  perBuyer: number;
}

/** A product's drop with its defaults, or undefined when it is not a drop. */
export function dropRules(product: { drop?: Drop | undefined }): DropRules | undefined {
  const d = product.drop;
  if (!d) return undefined;
  return {
    startsAt: new Date(d.startsAt),
    holdMs: (d.holdMinutes ?? DEFAULT_DROP_HOLD_MINUTES) * 60_000,
    perBuyer: d.perBuyer ?? DEFAULT_DROP_PER_BUYER,
  };
}

/** Whether buying has opened at `now` (the server's clock). */
export const dropOpen = (rules: DropRules, now: Date): boolean => now.getTime() >= rules.startsAt.getTime();

/** "18:00 UTC on 5 Dec 2026" (the server does not know the buyer's zone; the page shows theirs). */
export function formatStartUtc(startsAt: Date): string {
  const date = new Intl.DateTimeFormat('en-GB', {
    timeZone: 'UTC',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
  }).format(startsAt);
  return `${formatTimeUtc(startsAt.toISOString())} on ${date}`;
}

/** The refusal before the start (409 `drop_not_open`). */
export function dropNotOpen(name: string, rules: DropRules): DomainError {
  return new DomainError(
    'conflict',
    'drop_not_open',
    `Not on sale yet: ${name} goes on sale at ${formatStartUtc(rules.startsAt)}.`,
    { field: 'items' },
  );
}

/** The refusal past the per-buyer limit (409 `drop_limit`). */
export function dropLimitRefusal(name: string, perBuyer: number): DomainError {
  return new DomainError(
    'conflict',
    'drop_limit',
    `One buyer can have at most ${perBuyer} ${perBuyer === 1 ? 'piece' : 'pieces'} of ${name}, and you already have ${perBuyer === 1 ? 'it' : 'them'} reserved or bought.`,
    { field: 'items' },
  );
}

/** A drop's piece is sold only to an order that holds it: why this one cannot (409 `drop_needs_hold`). */
export function dropNeedsHold(reason: 'no_proof' | 'unchecked' | 'balance'): DomainError {
  const why =
    reason === 'no_proof'
      ? 'approve the message in your wallet when you click Buy Now, so the piece can be reserved for you.'
      : reason === 'unchecked'
        ? "the wallet's $CLAIM could not be checked just now. Please click Buy Now again."
        : 'this wallet does not hold the $CLAIM this order costs on top of its other reserved orders.';
  return new DomainError(
    'conflict',
    'drop_needs_hold',
    `Drop pieces are sold only to reserved orders: ${why}`,
    {
      field: 'payer',
    },
  );
}

/**
 * How often a page asks for its place while waiting: every 2 s near the front, less often further back (20 ms more
 * per buyer ahead, at most 15 s), so a crowd of a thousand asks ~100 times a second, not 500.
 */
export function pollMs(ahead: number): number {
  return Math.min(15_000, 2_000 + Math.max(0, ahead) * 20);
}
