/**
 * Holding stock (docs/decisions/holds.md): no unit is held without proof of the money. A wallet order holds its
 * quantity for a short time of its own (settings.holds.holdMs, never past the quote's expiry) only when the paying
 * wallet signed the hold message for the quote's reference and its $CLAIM covers this order beside its other open
 * holds (src/server/stock/wallet-holds.ts), within the per-client cap, all checked in the reservation's
 * transaction. Anything else holds nothing and stays payable: the payment sells the piece if it is still free,
 * else the order is oversold and refunded. A QR record, QR details and an order without a price hold nothing.
 * This is the one place that decides whether an order holds. A drop (core/drop.ts, docs/decisions/drops.md) holds
 * through the same functions, with its per-buyer limit here; its shorter hold is its quote's life.
 */
import { createPublicKey, verify } from 'node:crypto';
import bs58 from 'bs58';
import type { Transaction } from 'kysely';
import { DomainError } from '../../core/errors';
import {
  dropGroupOf,
  dropLimitRefusal,
  dropRules,
  dropTurnPassed,
  type DropGroup,
  type DropRules,
} from '../../core/drop';
import { holdProofMessage, type NoHoldReason, type PayerProof } from '../../core/hold-proof';
import type { StockRequest } from '../../core/stock';
import type { Catalog } from '../../core/catalog';
import type { Database } from '../store/schema';
import type { HoldAsk, HoldFacts } from '../stock/hold-facts';
import { judgeBuyerLimit } from '../stock/holds';
import type { Turn } from '../stock/reservations';
import { fitsBalance } from '../stock/wallet-holds';
import type { OrderContext } from './types';

/** The drops among an order's lines (core/drop.ts), one per product. */
export function dropLinesOf(
  ctx: OrderContext,
  lines: readonly StockRequest[],
): { productId: string; name: string; rules: DropRules }[] {
  return dropsIn(ctx.deps.catalog, lines);
}

/** The drops among `lines` in `catalog`, one per product. */
export function dropsIn(
  catalog: Pick<Catalog, 'products'>,
  lines: readonly StockRequest[],
): { productId: string; name: string; rules: DropRules }[] {
  const out: { productId: string; name: string; rules: DropRules }[] = [];
  for (const id of new Set(lines.map((l) => l.productId))) {
    const product = catalog.products.find((p) => p.id === id);
    const rules = product ? dropRules(product) : undefined;
    if (product && rules) out.push({ productId: id, name: product.name, rules });
  }
  return out;
}

/**
 * The drops among `lines` as the per-buyer limit counts them (core/drop.ts): one per vendor's batch (all its
 * products) or per product alone, with the units this order asks of it.
 */
export function dropGroupsIn(
  catalog: Pick<Catalog, 'products'>,
  lines: readonly StockRequest[],
): (DropGroup & { asking: number; ordered: string[] })[] {
  const groups = new Map<string, DropGroup & { asking: number; ordered: string[] }>();
  for (const line of lines) {
    const product = catalog.products.find((p) => p.id === line.productId);
    const group = product ? dropGroupOf(catalog.products, product) : undefined;
    if (!group) continue;
    const g = groups.get(group.key) ?? { ...group, asking: 0, ordered: [] };
    g.asking += line.quantity;
    if (!g.ordered.includes(line.productId)) g.ordered.push(line.productId);
    groups.set(group.key, g);
  }
  return [...groups.values()];
}

/**
 * A per-buyer refusal after which the buyer can have no more of the drop (`productIds`: the product, or every piece
 * of the batch): its lines need keep no turn for them (the order service closes it after the rollback).
 */
export class DropTurnOver extends DomainError {
  constructor(
    refusal: DomainError,
    readonly productIds: readonly string[],
  ) {
    super(refusal.kind, refusal.code, refusal.message, refusal.details);
  }
}

/** When a hold made at `at` lapses: `holdMs` later, or the quote's expiry if sooner. */
export function holdDeadline(ctx: OrderContext, at: string, quoteExpiresAt: string): string {
  const own = Date.parse(at) + ctx.deps.settings.holds.holdMs;
  return own < Date.parse(quoteExpiresAt) ? new Date(own).toISOString() : quoteExpiresAt;
}

/** SPKI DER for an ed25519 public key: a fixed 12-byte header, then the 32-byte key. */
const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');

/**
 * Whether `signature` (base64) is `address`'s ed25519 signature of the hold message for `reference`. Node's native
 * ed25519 (OpenSSL): a fiftieth of the JavaScript verifier's time, on every order a drop lets through.
 */
export function proofValid(proof: PayerProof, reference: string): boolean {
  try {
    const publicKey = bs58.decode(proof.address);
    const signature = Buffer.from(proof.signature, 'base64');
    if (publicKey.length !== 32 || signature.length !== 64) return false;
    const message = Buffer.from(holdProofMessage(proof.address, reference), 'utf8');
    const key = createPublicKey({
      key: Buffer.concat([SPKI_ED25519, publicKey]),
      format: 'der',
      type: 'spki',
    });
    return verify(null, message, key, signature);
  } catch {
    return false;
  }
}

/** A wallet that proved itself, with its balance when it could be read (before the order's transaction). */
export interface CheckedPayer {
  wallet: string;
  balance: bigint | undefined;
}

/**
 * Before the order's transaction (network I/O stays outside it): a forged or foreign signature is refused (400,
 * nothing made); a valid one is paired with the wallet's balance (cached ~10 s; undefined when unreadable).
 */
export async function checkPayer(
  ctx: OrderContext,
  proof: PayerProof | undefined,
  reference: string,
): Promise<CheckedPayer | undefined> {
  if (!proof) return undefined;
  if (!proofValid(proof, reference))
    throw new DomainError(
      'invalid',
      'invalid_payer_proof',
      "The wallet's signature does not match this order. Please click Buy Now again and approve the message in your wallet.",
      { field: 'payer.signature' },
    );
  const balance = ctx.deps.balances
    ? await ctx.deps.balances.balanceOf(proof.address).catch(() => undefined)
    : undefined;
  return { wallet: proof.address, balance };
}

/**
 * Why an order cannot hold, known before its transaction: no proof, no readable balance, or an amount beyond the
 * whole balance. `undefined`: it may hold if the amount fits beside the wallet's other open holds (`mayHold`).
 */
export function noHoldBefore(payer: CheckedPayer | undefined, amount: bigint): NoHoldReason | undefined {
  if (!payer) return 'no_proof';
  if (payer.balance === undefined) return 'unchecked';
  if (amount > payer.balance) return 'balance';
  return undefined;
}

/** What the hold's rules read for this order (stock/hold-facts.ts): `holder` as `mayHold` takes it. */
export function holdAskOf(
  ctx: OrderContext,
  orderId: string,
  wallet: string,
  at: string,
  holder: string | undefined,
  lines: readonly StockRequest[],
): HoldAsk {
  return {
    wallet,
    holder,
    orderId,
    at,
    drops: dropGroupsIn(ctx.deps.catalog, lines).map((g) => g.productIds),
    cap: ctx.deps.settings.holds.limitPerClient > 0,
  };
}

/** `mayHold`'s answer: the order holds (with what the rules read, for `hold`), or why not. */
export type HoldVerdict = { holds: true; facts: HoldFacts } | { holds: false; why: NoHoldReason };

/**
 * In the order's transaction, before anything locks a stock row: whether the order may hold. The wallet's lock
 * is taken here and held to the commit; with `holder`, the client's lock too, in the same round trip (pass it when
 * the hold takes it: a drop's per-buyer limit or the per-client cap). Then ONE read (PostgreSQL) brings what every
 * rule of the hold needs (stock/hold-facts.ts): the balance rule is judged here, the per-buyer limit and the cap
 * by `hold` on the same facts. `read`: the facts already read under the buyer's locks (PostgreSQL: carried by the
 * order's insert, ../orders/rows.ts `insertOrder`).
 */
export async function mayHold(
  ctx: OrderContext,
  trx: Transaction<Database>,
  orderId: string,
  amount: bigint,
  payer: CheckedPayer | undefined,
  at: string,
  holder: string | undefined,
  lines: readonly StockRequest[],
  read?: HoldFacts,
): Promise<HoldVerdict> {
  const before = noHoldBefore(payer, amount);
  if (before || !payer || payer.balance === undefined) return { holds: false, why: before ?? 'no_proof' };
  const facts =
    read ?? (await ctx.stock.readHoldFacts(trx, holdAskOf(ctx, orderId, payer.wallet, at, holder, lines)));
  return fitsBalance(facts.walletHolds, payer.balance, amount, orderId)
    ? { holds: true, facts }
    : { holds: false, why: 'balance' };
}

/**
 * In the order's transaction, last (after `mayHold` said yes, on its `facts`): refuses a drop's order past its
 * per-buyer limit, refuses (DomainError rate_limited, 429) when `holder` already holds the cap unpaid, then holds
 * the lines until the hold's deadline against `wallet` (OutOfStockError when more than is available).
 */
export async function hold(
  ctx: OrderContext,
  trx: Transaction<Database>,
  orderId: string,
  lines: readonly StockRequest[],
  quoteExpiresAt: string,
  at: string,
  holder: string | undefined,
  wallet: string,
  facts: HoldFacts,
): Promise<void> {
  const turns: Turn[] = [];
  // A drop's per-buyer limit (core/drop.ts): this client or this wallet has at most `perBuyer` of the drop (the
  // product, or the vendor's whole batch), and one turn: what they held before counts, whatever became of it.
  // `mayHold` read the buyer's units of each group, in this order.
  for (const [i, g] of dropGroupsIn(ctx.deps.catalog, lines).entries()) {
    const units = facts.drops[i];
    if (!units) throw new Error(`hold: the buyer's units of drop ${g.key} were not read`);
    const full = judgeBuyerLimit(units, g.rules.perBuyer, g.asking, {
      // With one piece per buyer, a buyer past the limit has it already: their turn is over.
      limit: () => {
        const refusal = dropLimitRefusal(g.name, g.rules.perBuyer, g.batch);
        return g.rules.perBuyer === 1 ? new DropTurnOver(refusal, g.productIds) : refusal;
      },
      turn: () => new DropTurnOver(dropTurnPassed(g.batch, g.rules.perBuyer), g.productIds),
    });
    // The buyer had their turn in the drop's line (stock/drop-line.ts): they leave it with this hold; once they
    // have their pieces of a batch, they leave the line of every other piece of it too (they could buy no more).
    // Written with the reservation (stock/drop-turn.ts; on PostgreSQL in its statement).
    turns.push({ ordered: g.ordered, all: full ? g.productIds : g.ordered });
  }
  await ctx.stock.reserve(
    trx,
    orderId,
    lines,
    holdDeadline(ctx, at, quoteExpiresAt),
    at,
    holder,
    holder ? ctx.deps.settings.holds.limitPerClient : undefined,
    wallet,
    // Last in the order's transaction: on PostgreSQL the reservation's statement carries the commit, so the stock
    // row is locked for PostgreSQL's own time, not until this instance's next turn to send the commit.
    { facts, turns, last: true },
  );
}
