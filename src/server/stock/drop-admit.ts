/**
 * A drop's gate for quotes and orders (issue 32, docs/decisions/drops.md "Fair when it is busy"): only a buyer let
 * through the drop's line (./drop-line.ts) may try for a piece; the others are refused in words with their place.
 */
import { DomainError } from '../../core/errors';
import { dropTurnPassed, type DropRules } from '../../core/drop';
import type { StockRequest } from '../../core/stock';
import type { DropLine, LinePlace } from './drop-line';

/** The refusal of an order by a buyer not let through (409 `drop_in_line` / `drop_turn_passed`). */
export function lineRefusal(place: LinePlace, rules?: DropRules): DomainError | undefined {
  switch (place.state) {
    case 'through':
      return undefined;
    case 'before_start':
      return new DomainError('conflict', 'drop_in_line', 'You are in line. Buying opens at the start.', {
        field: 'items',
      });
    case 'waiting':
      return new DomainError(
        'conflict',
        'drop_in_line',
        `You are in line: ${place.ahead} ${place.ahead === 1 ? 'buyer is' : 'buyers are'} ahead of you. You are let through as pieces are reserved or come back; keep this page open.`,
        { field: 'items' },
      );
    case 'done':
      // Done on another piece of the vendor's batch: the batch's words.
      return place.elsewhere && rules?.batch !== undefined
        ? dropTurnPassed(rules.batch, rules.perBuyer)
        : dropTurnPassed();
  }
}

/**
 * A buyer's turn as their quote carries it (signed with the quote, ../orders/quotes.ts): their hold key and the end
 * of their window, when the quote's own look at the line let them through.
 */
export interface QuoteTurn {
  holder: string;
  until: string;
}

/** What `admitToDrop` needs of the stock repository. */
export interface DropGate {
  soldOutKnown(lines: readonly StockRequest[], nowMs: number): DomainError | undefined;
  assertNotSoldOut(lines: readonly StockRequest[], nowMs: number): Promise<void>;
  dropLine: Pick<DropLine, 'standing'>;
}

/**
 * A drop buyer's quote or order (after the start): only a buyer let through may try for a piece. The stock's own
 * words come first ("Sold out", "Reserved: …", from memory when the line was seen with nothing free), then the
 * buyer's place in line, then (a buyer let through) the stock read that checks the asked quantity, unless the
 * line's own read saw enough free pieces (a product without variants). A waiting buyer costs the line's reads
 * only: its read of the free pieces stands in for the stock's while any is free.
 * `checkStock` false: no stock check (an order that holds nothing); the line still decides.
 * `turn`: the order's quote let this buyer through (the same hold key) and their window is still open: the line is
 * not read again (the turn can only have ended by a hold of theirs or by their per-buyer limit, which the order's
 * transaction refuses in words); the stock's memory still refuses at once, and a line other than the drop's own
 * piece is still read. Returns the end of the buyer's window when let through (the earliest of the drops').
 */
export async function admitToDrop(
  stock: DropGate,
  drops: readonly { productId: string; rules: DropRules }[],
  lines: readonly StockRequest[],
  holder: string,
  now: Date,
  checkStock = true,
  turn?: QuoteTurn,
): Promise<string | undefined> {
  if (checkStock) {
    const known = stock.soldOutKnown(lines, now.getTime());
    if (known) throw known;
  }
  const ownPiece = (l: StockRequest) =>
    l.variantId === undefined && drops.some((d) => d.productId === l.productId);
  if (turn && turn.holder === holder && Date.parse(turn.until) > now.getTime()) {
    if (checkStock && !lines.every(ownPiece)) await stock.assertNotSoldOut(lines, now.getTime());
    return turn.until;
  }
  let until: string | undefined;
  // The free pieces the line's own read saw, per drop: when they cover what is asked of every line, the stock's
  // read below would say nothing new (PostgreSQL: one round trip fewer for each buyer let through).
  let covered = true;
  for (const d of drops) {
    const { place, free } = await stock.dropLine.standing(d.productId, d.rules, holder, now);
    const refusal = lineRefusal(place, d.rules);
    if (!refusal) {
      if (place.state === 'through' && (until === undefined || place.until < until)) until = place.until;
      const mine = lines.filter((l) => l.productId === d.productId);
      const asked = mine.reduce((n, l) => n + l.quantity, 0);
      // The line counts the product's free pieces of every variant: a variant's own is the stock's to say.
      if (free === undefined || free < asked || mine.some((l) => l.variantId !== undefined)) covered = false;
      continue;
    }
    if (checkStock && (free === undefined || free <= 0)) await stock.assertNotSoldOut(lines, now.getTime());
    throw refusal;
  }
  if (checkStock && !(covered && lines.every((l) => drops.some((d) => d.productId === l.productId))))
    await stock.assertNotSoldOut(lines, now.getTime());
  return until;
}
