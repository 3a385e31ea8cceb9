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
  /** The vendor's batch this product is one piece of (its name, as buyers read it), if any. */
  batch?: string;
}

/** A product's drop with its defaults, or undefined when it is not a drop. */
export function dropRules(product: { drop?: Drop | undefined }): DropRules | undefined {
  const d = product.drop;
  if (!d) return undefined;
  return {
    startsAt: new Date(d.startsAt),
    holdMs: (d.holdMinutes ?? DEFAULT_DROP_HOLD_MINUTES) * 60_000,
    perBuyer: d.perBuyer ?? DEFAULT_DROP_PER_BUYER,
    ...(d.batch !== undefined ? { batch: d.batch } : {}),
  };
}

/** What the drop rules need of a catalogue product. */
export interface DropProduct {
  id: string;
  vendorId: string;
  name: string;
  drop?: Drop | undefined;
}

/**
 * One drop as the per-buyer limit sees it: a vendor's batch (every product of the vendor with the same `batch`) or
 * a product alone. `name`: the batch's, or the product's.
 */
export interface DropGroup {
  /** `batch:<vendor>:<batch>`, or the product's id. */
  key: string;
  name: string;
  batch?: string;
  productIds: string[];
  rules: DropRules;
}

/** The drop `product` is part of (undefined: not a drop). */
export function dropGroupOf(products: readonly DropProduct[], product: DropProduct): DropGroup | undefined {
  const rules = dropRules(product);
  if (!rules) return undefined;
  const batch = rules.batch;
  if (batch === undefined) return { key: product.id, name: product.name, productIds: [product.id], rules };
  const productIds = products
    .filter((p) => p.vendorId === product.vendorId && p.drop?.batch === batch)
    .map((p) => p.id);
  return { key: `batch:${product.vendorId}:${batch}`, name: batch, batch, productIds, rules };
}

/**
 * The catalogue's check of its batches, in words: the products of one vendor's batch share `startsAt` (the same
 * instant), `holdMinutes` and `perBuyer` (with their defaults). One problem per product that differs from the
 * batch's first.
 */
export function batchProblems(products: readonly DropProduct[]): string[] {
  const first = new Map<string, DropProduct>();
  const problems: string[] = [];
  for (const p of products) {
    const batch = p.drop?.batch;
    if (!p.drop || batch === undefined) continue;
    const key = `${p.vendorId}\u0000${batch}`;
    const f = first.get(key);
    if (!f?.drop) {
      first.set(key, p);
      continue;
    }
    const a = dropRules(f)!;
    const b = dropRules(p)!;
    const differs = [
      a.startsAt.getTime() !== b.startsAt.getTime()
        ? `startsAt ${p.drop.startsAt}, not ${f.drop.startsAt}`
        : '',
      a.holdMs !== b.holdMs ? `holdMinutes ${b.holdMs / 60_000}, not ${a.holdMs / 60_000}` : '',
      a.perBuyer !== b.perBuyer ? `perBuyer ${b.perBuyer}, not ${a.perBuyer}` : '',
    ].filter(Boolean);
    if (differs.length)
      problems.push(
        `product '${p.id}', field 'drop': the products of batch '${batch}' must share startsAt, holdMinutes and perBuyer; it has ${differs.join(', ')} (as '${f.id}' has)`,
      );
  }
  return problems;
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

/**
 * The refusal past the per-buyer limit (409 `drop_limit`): of a product, or of a vendor's batch (the drop's name).
 */
export function dropLimitRefusal(name: string, perBuyer: number, batch?: string): DomainError {
  const pieces = `${perBuyer} ${perBuyer === 1 ? 'piece' : 'pieces'}`;
  return new DomainError(
    'conflict',
    'drop_limit',
    batch === undefined
      ? `One buyer can have at most ${pieces} of ${name}, and you already have ${perBuyer === 1 ? 'it' : 'them'} reserved or bought.`
      : `One buyer can have at most ${pieces} of this drop (${batch}), and you already have ${perBuyer === 1 ? 'one' : 'them'} reserved or bought.`,
    { field: 'items' },
  );
}

/** The words of a buyer who has had their turn (409 `drop_turn_passed`): each buyer is let through once. */
export const TURN_PASSED_TEXT = 'You have had your turn in this drop: each buyer is let through once.';

/**
 * A buyer who has had their turn (409 `drop_turn_passed`): let through once, or their earlier pieces of this drop
 * lapsed unpaid or were given back (the per-buyer limit counts every piece they held, whatever became of it). With
 * `batch`: their turn was on another piece of the vendor's batch.
 */
export function dropTurnPassed(batch?: string, perBuyer = DEFAULT_DROP_PER_BUYER): DomainError {
  return new DomainError(
    'conflict',
    'drop_turn_passed',
    batch === undefined
      ? TURN_PASSED_TEXT
      : `One buyer can have at most ${perBuyer} ${perBuyer === 1 ? 'piece' : 'pieces'} of this drop (${batch}), and you have had your turn: each buyer is let through once.`,
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
