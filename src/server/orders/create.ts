/**
 * Creating an order: the signed quote, the shipping form of the product's payment mode, and the Idempotency-Key
 * (the same key and body replay the stored answer; the same key with another body is refused).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { AnyOrderCreated } from '../../core/api';
import { formatBaseUnits } from '../../core/money';
import {
  describeIssues,
  missingShippingMessage,
  shippingSchemaFor,
  type ParsedOrderRequest,
  type ShippingInput,
} from '../../core/order';
import { isUniqueViolation, uniqueViolationTarget } from '../store/store';
import { DomainError } from '../../core/errors';
import { OutOfStockError } from '../../core/stock';
import { checkPayer, dropLinesOf, DropTurnOver, hold, holdAskOf, mayHold, noHoldBefore } from './holds';
import { dropNeedsHold, dropNotOpen, dropOpen } from '../../core/drop';
import { noHoldNote, type NoHoldReason } from '../../core/hold-proof';
import { sealShipping } from '../privacy/order-data';
import { admitToDrop } from '../stock/drop-admit';
import { verifyQuote, type SignedQuote } from './quotes';
import { insertOrder, orderUrlOf, replaceAnswer } from './rows';
import { transactionRequestOf } from './pay-requests';
import type { CreateOrderResult, OrderContext } from './types';

/** Deeper than any order body; a deeper one is refused before it can exhaust the stack. */
const MAX_BODY_DEPTH = 32;

function stableStringify(v: unknown, depth = 0): string {
  if (depth > MAX_BODY_DEPTH)
    throw new DomainError('invalid', 'invalid_order_request', 'The request is nested too deeply.');
  if (Array.isArray(v)) return `[${v.map((x) => stableStringify(x, depth + 1)).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .filter((k) => o[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stableStringify(o[k], depth + 1)}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

async function replayOrConflict(
  ctx: OrderContext,
  key: string,
  hash: string,
): Promise<CreateOrderResult | undefined> {
  const row = await ctx.db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('key', '=', key)
    .executeTakeFirst();
  if (!row) return undefined;
  if (row.request_hash !== hash) {
    throw new DomainError(
      'conflict',
      'idempotency_key_reused',
      'This Idempotency-Key was already used with a different request. Use a new key for a new order.',
      {
        field: 'Idempotency-Key',
      },
    );
  }
  // Every stored row is a created order (status_code 201 in rows old and new): the replay is of that creation.
  return { outcome: 'replayed', body: JSON.parse(row.response_json) as AnyOrderCreated };
}

/**
 * `idempotency_keys.status_code` is what rows have always held for a created order (the only response stored).
 * Written unchanged so every row reads the same; the outcome, not this number, is what the service returns.
 */
const STORED_CREATED = 201;

export function shippingProblem(
  quote: Pick<SignedQuote, 'payment'>,
  shipping: unknown,
): DomainError | { ok: ShippingInput } {
  const expectedKind = quote.payment === 'wallet' ? 'international' : 'us';
  const kind = (shipping as { kind?: unknown } | null)?.kind;
  if (shipping === null || typeof shipping !== 'object' || Array.isArray(shipping)) {
    return new DomainError('invalid', 'invalid_shipping', missingShippingMessage(quote.payment), {
      field: 'shipping',
    });
  }
  if (kind !== expectedKind) {
    const msg =
      quote.payment === 'qr'
        ? "QR orders ship to US addresses only: send the US form (kind 'us')."
        : "Wallet orders use the international shipping form (kind 'international').";
    return new DomainError('invalid', 'invalid_shipping', msg, { field: 'shipping.kind' });
  }
  const r = shippingSchemaFor(quote.payment).safeParse(shipping);
  if (r.success) return { ok: r.data };
  const issues = describeIssues(r.error, 'shipping');
  const missing = r.error.issues.some((i) => i.message.endsWith('is required'));
  return new DomainError(
    'invalid',
    'invalid_shipping',
    missing ? missingShippingMessage(quote.payment) : (issues[0]?.message ?? 'Invalid shipping details'),
    {
      field: issues[0]?.path,
      issues,
    },
  );
}

/** What the order's request says, checked without the store (the quote's signature and age, payment, shipping). */
function checkRequest(ctx: OrderContext, request: ParsedOrderRequest, now: Date) {
  const check = verifyQuote(request.quote, ctx.deps.settings.quote.secret, now);
  if (!check.ok) {
    if (check.reason === 'expired') {
      throw new DomainError(
        'gone',
        'quote_expired',
        'This price quote has expired. Please reload the page to get a new quote.',
        { field: 'quote' },
      );
    }
    throw new DomainError(
      'invalid',
      'invalid_quote',
      'The quote is not valid (altered or not issued by this store). Please reload the page.',
      { field: 'quote' },
    );
  }
  const quote = check.quote;
  if (request.paymentMethod !== quote.payment) {
    throw new DomainError(
      'invalid',
      'invalid_payment_method',
      `This product is paid by ${quote.payment === 'qr' ? 'QR code' : 'wallet'} (paymentMethod '${quote.payment}').`,
      {
        field: 'paymentMethod',
      },
    );
  }
  // A QR page records its payment target before it shows the QR: a priced QR quote without shipping details
  // is a record the details attach to later (POST /api/orders/:id/confirmation).
  const record = request.shipping === undefined && quote.payment === 'qr' && quote.amountBaseUnits !== null;
  let shipping: ShippingInput | null = null;
  if (!record) {
    const ship = shippingProblem(quote, request.shipping);
    if (ship instanceof DomainError) throw ship;
    shipping = ship.ok;
  }
  // A drop (core/drop.ts) is on sale from its start by this server's clock (its quote was refused before it).
  const drops = dropLinesOf(ctx, quote.items);
  for (const d of drops) if (!dropOpen(d.rules, now)) throw dropNotOpen(d.name, d.rules);
  return { quote, record, shipping, drops, checked: !record && quote.amountBaseUnits !== null };
}

export async function createOrder(
  ctx: OrderContext,
  request: ParsedOrderRequest,
  idempotencyKey: string,
  holder?: string,
): Promise<CreateOrderResult> {
  // The key binds the request as parsed at the edge (the same order asked again replays its answer).
  const hash = createHash('sha256').update(stableStringify(request)).digest('hex');
  const now = ctx.deps.now();
  // The stored answer of the same key comes first (a retry gets it, even once its quote has expired or its piece
  // is gone); its read and the request's checks and gate (below) go out together: one round trip, not two.
  const replaying = replayOrConflict(ctx, idempotencyKey, hash);
  const gate = (async () => {
    const req = checkRequest(ctx, request, now);
    // Sold out costs nothing (stock/sold-out.ts): an order the transaction would refuse for want of stock (it
    // would hold, or it is payable and checked) is refused in words first, from memory or one read without a
    // lock, before the balance is read and before any write transaction. A QR record and an unpriced order are
    // not checked here, as below. A drop's line (stock/drop-line.ts): only a buyer let through may try for a
    // piece (one who never asked joins at the back and may be let through at once); the others are refused in
    // words with their place, by reads (the stock's words first when nothing is free). A buyer their quote let
    // through (its signed turn, this client's, window open) is not looked up again: the transaction decides.
    if (holder && req.drops.length > 0)
      await admitToDrop(ctx.stock, req.drops, req.quote.items, holder, now, req.checked, req.quote.turn);
    else if (req.checked) await ctx.stock.assertNotSoldOut(req.quote.items, now.getTime());
    return req;
  })();
  // Settled below when there is no stored answer; a stored answer makes the gate's verdict moot.
  gate.catch(() => undefined);
  const replay = await replaying;
  if (replay) return replay;
  const { quote, record, shipping, drops, checked } = await gate;
  // A wallet order's proof of the money (./holds.ts): a forged or foreign signature is refused here; a valid one
  // brings the wallet's balance (read now, outside the transaction).
  const walletOrder = quote.payment === 'wallet' && quote.amountBaseUnits !== null;
  const payer = walletOrder ? await checkPayer(ctx, request.payer, quote.reference) : undefined;
  // A drop's piece is sold only to an order that holds it: without the wallet's proof or a readable balance the
  // order is refused in words before the transaction (a buyer who cannot hold would be oversold and refunded).
  if (drops.length > 0) {
    if (!payer) throw dropNeedsHold('no_proof');
    if (payer.balance === undefined) throw dropNeedsHold('unchecked');
  }
  const publicToken = randomBytes(16).toString('hex');
  // The client whose lock the hold takes (a drop's per-buyer limit, the per-client cap): taken with the wallet's.
  const lockedHolder =
    holder && (drops.length > 0 || ctx.deps.settings.holds.limitPerClient > 0) ? holder : undefined;

  const orderId = randomUUID();
  const at = now.toISOString();
  const common = {
    orderId,
    reference: quote.reference,
    recipient: quote.recipient,
    mint: quote.mint,
    expiresAt: quote.expiresAt,
    orderUrl: orderUrlOf(ctx, { public_token: publicToken }),
  };
  const base: AnyOrderCreated =
    quote.amountBaseUnits !== null && quote.solanaPayUrl !== null
      ? {
          ...common,
          solanaPayUrl: quote.solanaPayUrl,
          amount: formatBaseUnits(BigInt(quote.amountBaseUnits)),
          amountBaseUnits: quote.amountBaseUnits,
          // A QR record over HTTPS: its QR carries the transaction request (the transfer request stays one tap away).
          ...(quote.payment === 'qr' ? transactionRequestOf(ctx, quote.reference) : {}),
        }
      : { ...common, solanaPayUrl: null, amount: null, amountBaseUnits: null };
  const amount = BigInt(quote.amountBaseUnits ?? '0');
  /** A wallet order's answer says whether it holds, and if not why (core/hold-proof.ts). */
  const answerOf = (noHold: NoHoldReason | undefined): AnyOrderCreated =>
    !walletOrder
      ? base
      : noHold
        ? { ...base, held: false, holdNote: noHoldNote(noHold, amount) }
        : { ...base, held: true };
  // The answer stored with the order (its Idempotency-Key's row, in the order's first statement) is the one known
  // before the transaction: held, unless the proof, the balance or the amount already says not. The rare order
  // whose amount does not fit beside the wallet's other holds (read in the transaction) has it replaced.
  const foreseen = walletOrder ? noHoldBefore(payer, amount) : undefined;
  let created = answerOf(foreseen);
  try {
    await ctx.db.transaction().execute(async (trx) => {
      // An order whose hold the rules will judge (`mayHold` below reads under them): the buyer's locks first, the
      // transaction's first statement, which on PostgreSQL goes with its begin (one round trip).
      const judged = walletOrder && foreseen === undefined && payer ? payer : undefined;
      if (judged) await ctx.stock.lockBuyer(trx, judged.wallet, lockedHolder);
      // The order's row, its first history entry and its Idempotency-Key's row (one statement on PostgreSQL), which
      // also brings (PostgreSQL) what the hold's rules read: its snapshot is taken after the locks.
      const factsRead = judged
        ? ctx.stock.holdFactsRead(holdAskOf(ctx, orderId, judged.wallet, at, lockedHolder, quote.items))
        : undefined;
      const factsRow = await insertOrder(
        trx,
        ctx.isPg,
        {
          id: orderId,
          reference: quote.reference,
          vendor_id: quote.vendorId,
          payout_group: quote.payoutGroup,
          items_json: JSON.stringify(quote.items),
          total_cents: quote.totalCents,
          price_usd: quote.priceUsd,
          amount_base_units: quote.amountBaseUnits,
          recipient: quote.recipient,
          mint: quote.mint,
          solana_pay_url: quote.solanaPayUrl,
          payment_method: quote.payment,
          // Sealed before it reaches the store, bound to this order (src/server/privacy).
          shipping_json: shipping === null ? null : sealShipping(ctx.sealer, orderId, shipping),
          referrer: request.referrer ?? null,
          status: 'awaiting_payment',
          expires_at: quote.expiresAt,
          signature: null,
          received_base_units: null,
          block_time: null,
          finalized: 0,
          confirmation_requested_at: null,
          confirmed_at: null,
          cancel_requested_at: null,
          cancel_declined_at: null,
          created_at: at,
          updated_at: at,
          public_token: publicToken,
          details_notified_at: null,
        },
        'awaiting_payment',
        record ? 'recorded' : 'created',
        at,
        {
          key: idempotencyKey,
          request_hash: hash,
          status_code: STORED_CREATED,
          response_json: JSON.stringify(created),
          order_id: orderId,
          created_at: at,
        },
        factsRead?.query,
      );
      const facts = factsRead && factsRow ? factsRead.parse(factsRow) : undefined;
      // Whether it holds (a wallet order with the paying wallet's proof and the money: ./holds.ts), decided
      // before the answer is final, on what the hold's rules need, read under the buyer's locks (above on
      // PostgreSQL, else in `mayHold`): the balance here, the per-buyer limit and the cap in `hold`.
      const verdict =
        walletOrder && quote.amountBaseUnits !== null
          ? await mayHold(ctx, trx, orderId, amount, payer, at, lockedHolder, quote.items, facts)
          : undefined;
      const noHold = verdict && !verdict.holds ? verdict.why : undefined;
      // Too little $CLAIM for a drop: refused, the order rolls back.
      if (noHold && drops.length > 0) throw dropNeedsHold(noHold === 'balance' ? 'balance' : 'unchecked');
      if (walletOrder && noHold !== foreseen) {
        created = answerOf(noHold);
        await replaceAnswer(trx, idempotencyKey, JSON.stringify(created));
      }
      // No unit is held without proof of the money (./holds.ts): a QR record or QR details hold nothing (the
      // payment, once seen, takes the piece); a wallet order holds for a short time of its own only with its
      // wallet's proof and balance; more than is available throws OutOfStockError (409 at the edge) and rolls
      // the whole order back. Of two orders racing for the last unit, exactly one gets it. An unpriced order
      // holds nothing. Last in the transaction: the stock row stays locked from its UPDATE to the commit, and
      // every order for the product waits for it.
      if (verdict?.holds && payer)
        await hold(ctx, trx, orderId, quote.items, quote.expiresAt, at, holder, payer.wallet, verdict.facts);
      // Not held but payable: still refused in words when the piece is gone (a read; the payment decides).
      else if (!record && quote.amountBaseUnits !== null) await ctx.stock.assertAvailable(quote.items, trx);
    });
  } catch (err) {
    // Lost the race for the last unit: the words say whether it may come back (and the line is remembered).
    if (checked && err instanceof OutOfStockError && err.available === 0)
      await ctx.stock.assertNotSoldOut(quote.items, now.getTime());
    // Refused by a drop's per-buyer limit for good (the same wallet from another address): the drop's lines keep
    // no turn for this client either, so the next buyer is let through now, not when their window passes.
    if (holder && err instanceof DropTurnOver) await ctx.stock.dropLine.closeTurn(holder, err.productIds, at);
    if (!isUniqueViolation(err)) throw err;
    const again = await replayOrConflict(ctx, idempotencyKey, hash);
    if (again) return again;
    if (/reference/.test(uniqueViolationTarget(err))) {
      throw new DomainError(
        'conflict',
        'quote_already_used',
        'This quote has already been used for an order. Please reload the page to get a new quote.',
        {
          field: 'quote',
        },
      );
    }
    throw err;
  }
  return { outcome: 'created', body: created };
}
