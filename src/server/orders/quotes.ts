/**
 * Quotes: the server prices the items from the catalogue and the current $CLAIM price, issues a fresh Solana Pay
 * reference, and hands the whole quote to the browser as an HMAC-signed opaque token (no database write). An
 * order later presents the token; the signature proves the server issued it unchanged.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { newReference } from './reference';
import { z } from 'zod';
import { dropNotOpen, dropOpen, dropRules } from '../../core/drop';
import type { AnyQuoteResponse, QuoteResponse } from '../../core/api';
import { unitPriceCents, type Catalog } from '../../core/catalog';
import { formatBaseUnits, MoneyError, parsePriceUsd, tokenBaseUnitsForCents } from '../../core/money';
import type { ParsedQuoteRequest } from '../../core/order';
import { encodeTransferRequestUrl, quantityMessage } from '../../core/solana-pay';
import type { Settings } from '../settings';
import { DomainError } from '../../core/errors';

/**
 * The price port the price service satisfies: `priceUsd` is the reference price quotes use; `refusal` is set
 * while the price guards refuse quotes (too little liquidity, sources disagree), with the buyer's message.
 */
export interface PriceSource {
  current(): { priceUsd: string; fetchedAt: Date; refusal?: { reason: string; message: string } } | undefined;
}

const QuoteItemSchema = z
  .object({
    productId: z.string(),
    variantId: z.string().optional(),
    variantLabel: z.string().optional(),
    name: z.string(),
    quantity: z.number().int(),
    unitCents: z.number().int(),
    lineCents: z.number().int(),
  })
  .strict();

export const SignedQuoteSchema = z
  .object({
    v: z.literal(1),
    vendorId: z.string(),
    vendorName: z.string(),
    payoutGroup: z.string().min(1),
    payment: z.enum(['wallet', 'qr']),
    items: z.array(QuoteItemSchema).min(1),
    totalCents: z.number().int().positive(),
    // null, all three: an unpriced QR quote (no fresh price; the order says 'N/A' and is not payment-watched).
    priceUsd: z.string().nullable(),
    amountBaseUnits: z.string().regex(/^\d+$/).nullable(),
    reference: z.string(),
    recipient: z.string(),
    mint: z.string(),
    solanaPayUrl: z.string().nullable(),
    issuedAt: z.string(),
    expiresAt: z.string(),
    // A drop's buyer let through by this quote's look at the line: their hold key and the end of their window
    // (the order does not read the line again while it is open: stock/drop-admit.ts).
    turn: z.object({ holder: z.string(), until: z.string() }).strict().optional(),
  })
  .strict();
export type SignedQuote = z.infer<typeof SignedQuoteSchema>;

export interface QuoteDeps {
  catalog: Catalog;
  settings: Pick<Settings, 'recipients' | 'claimMint' | 'quote' | 'price'>;
  priceSource: PriceSource;
  now: () => Date;
  /** Fresh reference keys; tests may fix them. */
  newReference?: () => string;
}

const b64 = (b: Buffer | string) => Buffer.from(b).toString('base64url');

export function signQuote(q: SignedQuote, secret: string): string {
  const body = b64(JSON.stringify(q));
  const mac = createHmac('sha256', secret).update(body).digest();
  return `${body}.${b64(mac)}`;
}

export type QuoteCheck =
  | { ok: true; quote: SignedQuote }
  | { ok: false; reason: 'malformed' | 'bad_signature' | 'expired'; quote?: SignedQuote };

/** Verifies the signature first, then the shape, then the expiry. */
export function verifyQuote(token: string, secret: string, now: Date): QuoteCheck {
  const parts = token.split('.');
  if (
    parts.length !== 2 ||
    !parts[0] ||
    !parts[1] ||
    !/^[A-Za-z0-9_-]+$/.test(parts[0]) ||
    !/^[A-Za-z0-9_-]+$/.test(parts[1])
  ) {
    return { ok: false, reason: 'malformed' };
  }
  const expected = createHmac('sha256', secret).update(parts[0]).digest();
  const given = Buffer.from(parts[1], 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { ok: false, reason: 'bad_signature' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  const q = SignedQuoteSchema.safeParse(parsed);
  if (!q.success) return { ok: false, reason: 'malformed' };
  if (Date.parse(q.data.expiresAt) <= now.getTime()) return { ok: false, reason: 'expired', quote: q.data };
  return { ok: true, quote: q.data };
}

export const PRICE_UNAVAILABLE =
  'The $CLAIM price is not available right now, so we cannot quote. Please try again in a minute.';

/** How old (since issue) a quote may be and still lend its reference to a renewed quote. */
export const RENEW_MAX_AGE_MS = 24 * 3600_000;

/**
 * The reference of the quote being renewed: its signature must be ours (expired is fine, up to 24 h after issue)
 * and it must be for the same vendor and payment mode. A raw reference is never accepted from the browser: only a
 * token we signed can lend one, so nobody can attach someone else's on-chain payment to their order.
 */
function renewedReference(
  token: string,
  secret: string,
  now: Date,
  vendorId: string,
  payment: 'wallet' | 'qr',
): string {
  const check = verifyQuote(token, secret, now);
  const old = check.ok ? check.quote : check.reason === 'expired' ? check.quote : undefined;
  if (!old)
    throw new DomainError(
      'invalid',
      'invalid_renew',
      'The quote to renew is not valid (altered or not issued by this store).',
      { field: 'renew' },
    );
  const issued = Date.parse(old.issuedAt);
  if (!Number.isFinite(issued) || now.getTime() - issued > RENEW_MAX_AGE_MS) {
    throw new DomainError('invalid', 'invalid_renew', 'The quote to renew is too old; start a new order.', {
      field: 'renew',
    });
  }
  if (old.vendorId !== vendorId || old.payment !== payment) {
    throw new DomainError(
      'invalid',
      'invalid_renew',
      'The quote to renew is for another vendor or payment mode.',
      {
        field: 'renew',
      },
    );
  }
  return old.reference;
}

/** A priced quote (wallet and QR pages with a known price); refuses `unpriced` requests. */
export function createQuote(
  deps: QuoteDeps,
  body: ParsedQuoteRequest,
): { quote: SignedQuote; token: string; response: QuoteResponse } {
  const issued = issueQuote(deps, body);
  const { response } = issued;
  if (response.amount === null)
    throw new DomainError('invalid', 'unpriced_not_allowed', 'A priced quote was expected.');
  return { ...issued, response };
}

/** POST /api/quotes: a priced quote, or (QR products, no fresh price, `unpriced: true`) an unpriced one. */
export function issueQuote(
  deps: QuoteDeps,
  request: ParsedQuoteRequest,
): { quote: SignedQuote; token: string; response: AnyQuoteResponse } {
  return issueDraft(deps, draftQuote(deps, request));
}

/**
 * A quote before its reference and signature: the request checked against the catalogue and priced (or refused:
 * unknown product, mixed vendors, no price…). The quote route asks the stock and a drop's line between the two,
 * so a buyer refused there costs no reference, payment link or signature.
 */
export interface QuoteDraft {
  now: Date;
  items: SignedQuote['items'];
  vendor: Catalog['vendors'][number];
  payment: 'wallet' | 'qr';
  ttlMs: number;
  totalCents: number;
  recipient: string;
  mint: string;
  /** The renewed quote's reference (`renew`), checked. */
  renewed?: string;
  priced: { priceUsd: string; amount: bigint } | null;
}

export function draftQuote(deps: QuoteDeps, request: ParsedQuoteRequest): QuoteDraft {
  const now = deps.now();
  const items: SignedQuote['items'] = [];
  let vendorId: string | undefined;
  let payment: 'wallet' | 'qr' | undefined;
  const seen = new Set<string>();
  let ttlMs = deps.settings.quote.ttlMs;
  for (const [i, it] of request.items.entries()) {
    const field = `items.${i}`;
    const product = deps.catalog.products.find((p) => p.id === it.productId);
    if (!product)
      throw new DomainError('invalid', 'unknown_product', `Unknown product '${it.productId}'.`, {
        field: `${field}.productId`,
      });
    // Stock is the store's: the quote route refuses more than is available (409), the order reserves it
    // (src/server/stock/repository.ts, docs/decisions/catalogue.md "Stock").
    const key = `${it.productId}/${it.variantId ?? ''}`;
    if (seen.has(key))
      throw new DomainError(
        'invalid',
        'duplicate_item',
        `${product.name} is listed twice; send one line with its quantity.`,
        { field },
      );
    seen.add(key);
    if (vendorId !== undefined && product.vendorId !== vendorId) {
      throw new DomainError(
        'invalid',
        'mixed_vendors',
        'All items of one order must come from the same vendor.',
        {
          field: `${field}.productId`,
        },
      );
    }
    if (payment !== undefined && product.payment !== payment) {
      throw new DomainError(
        'invalid',
        'mixed_payment',
        'Wallet and QR products cannot be ordered together.',
        {
          field: `${field}.productId`,
        },
      );
    }
    // A drop (core/drop.ts) is on sale from its start, to the second, by this server's clock; its quote lasts as
    // long as its hold, so every timer that follows the quote (QR and wallet pages) follows the hold.
    const drop = dropRules(product);
    if (drop) {
      if (!dropOpen(drop, now)) throw dropNotOpen(product.name, drop);
      ttlMs = Math.min(ttlMs, drop.holdMs);
    }
    vendorId = product.vendorId;
    payment = product.payment;
    let unitCents: number;
    try {
      unitCents = unitPriceCents(product, it.variantId);
    } catch (err) {
      throw new DomainError('invalid', 'invalid_variant', (err as Error).message, {
        field: `${field}.variantId`,
      });
    }
    if (!product.quantity && it.quantity !== 1) {
      throw new DomainError(
        'invalid',
        'invalid_quantity',
        `${product.name} is sold one at a time (quantity 1).`,
        {
          field: `${field}.quantity`,
        },
      );
    }
    const variantLabel = product.variants?.find((v) => v.id === it.variantId)?.label;
    items.push({
      productId: product.id,
      ...(it.variantId !== undefined ? { variantId: it.variantId } : {}),
      ...(variantLabel !== undefined ? { variantLabel } : {}),
      name: product.name,
      quantity: it.quantity,
      unitCents,
      lineCents: unitCents * it.quantity,
    });
  }
  const vendor = deps.catalog.vendors.find((v) => v.id === vendorId);
  if (!vendor || !payment) throw new DomainError('invalid', 'unknown_vendor', 'The product has no vendor.');

  const renewed =
    request.renew !== undefined
      ? renewedReference(request.renew, deps.settings.quote.secret, now, vendor.id, payment)
      : undefined;
  const recipient = deps.settings.recipients[vendor.payoutGroup];
  // Settings are validated against the catalogue's payout groups at start, so this is a configuration bug.
  if (recipient === undefined) throw new Error(`no payout wallet for payout group '${vendor.payoutGroup}'`);
  const mint = deps.settings.claimMint;
  const totalCents = items.reduce((n, i) => n + i.lineCents, 0);

  // Price: known, fresh and trusted, or no priced quote (an untrusted price is no price for the QR fallback).
  const fresh = freshPrice(deps, now);
  const price = fresh && 'refusal' in fresh ? undefined : fresh;
  let priced: QuoteDraft['priced'] = null;
  if (request.unpriced === true) {
    // Spec §3: QR pages confirm with totalCLAIM 'N/A' when the price is unknown. Wallet pages never order without
    // a price, and with a price the payment link must be used.
    if (payment !== 'qr') {
      throw new DomainError(
        'invalid',
        'unpriced_not_allowed',
        'Only QR products can be ordered without a price.',
        {
          field: 'unpriced',
        },
      );
    }
    if (price)
      throw new DomainError('conflict', 'price_available', 'The price is known: ask for a priced quote.', {
        field: 'unpriced',
      });
  } else {
    if (fresh && 'refusal' in fresh)
      throw new DomainError('unavailable', 'price_untrusted', fresh.refusal.message);
    if (!price) throw new DomainError('unavailable', 'price_unavailable', PRICE_UNAVAILABLE);
    const amount = tokenBaseUnitsForCents(totalCents, price);
    if (amount <= 0n) throw new DomainError('unavailable', 'price_unavailable', PRICE_UNAVAILABLE);
    priced = { priceUsd: price.text, amount };
  }
  return {
    now,
    items,
    vendor,
    payment,
    ttlMs,
    totalCents,
    recipient,
    mint,
    ...(renewed !== undefined ? { renewed } : {}),
    priced,
  };
}

/** The draft's quote: its reference (new, or the renewed one), payment link and signature. */
export function issueDraft(
  deps: QuoteDeps,
  draft: QuoteDraft,
  turn?: SignedQuote['turn'],
): { quote: SignedQuote; token: string; response: AnyQuoteResponse } {
  const { now, items, vendor, payment, ttlMs, totalCents, recipient, mint } = draft;
  const reference = draft.renewed ?? deps.newReference?.() ?? newReference();
  const priced = draft.priced && {
    priceUsd: draft.priced.priceUsd,
    amount: draft.priced.amount,
    solanaPayUrl: encodeTransferRequestUrl({
      recipient,
      amountBaseUnits: draft.priced.amount,
      splToken: mint,
      reference,
      label: vendor.name,
      message: quantityMessage(
        items.map((i) => ({
          quantity: i.quantity,
          name: i.variantLabel ? `${i.name} (${i.variantLabel})` : i.name,
        })),
      ),
    }),
  };

  const quote: SignedQuote = {
    v: 1,
    vendorId: vendor.id,
    vendorName: vendor.name,
    payoutGroup: vendor.payoutGroup,
    payment,
    items,
    totalCents,
    priceUsd: priced?.priceUsd ?? null,
    amountBaseUnits: priced?.amount.toString() ?? null,
    reference,
    recipient,
    mint,
    solanaPayUrl: priced?.solanaPayUrl ?? null,
    issuedAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + ttlMs).toISOString(),
    ...(turn ? { turn } : {}),
  };
  const token = signQuote(quote, deps.settings.quote.secret);
  const common = {
    quote: token,
    items: items.map((i) => ({
      productId: i.productId,
      ...(i.variantId !== undefined ? { variantId: i.variantId } : {}),
      name: i.name,
      quantity: i.quantity,
      unitCents: i.unitCents,
      lineCents: i.lineCents,
    })),
    totalCents,
    reference,
    recipient,
    mint,
    expiresAt: quote.expiresAt,
  };
  const response: AnyQuoteResponse = priced
    ? {
        ...common,
        priceUsd: priced.priceUsd,
        amountBaseUnits: priced.amount.toString(),
        amount: formatBaseUnits(priced.amount),
        solanaPayUrl: priced.solanaPayUrl,
      }
    : { ...common, priceUsd: null, amountBaseUnits: null, amount: null, solanaPayUrl: null };
  return { quote, token, response };
}

/** The current price when known, fresh (spec: at most `price.maxAgeMs` old) and usable; undefined otherwise. */
function freshPrice(
  deps: QuoteDeps,
  now: Date,
): ReturnType<typeof parsePriceUsd> | { refusal: { message: string } } | undefined {
  const current = deps.priceSource.current();
  if (!current || now.getTime() - current.fetchedAt.getTime() > deps.settings.price.maxAgeMs)
    return undefined;
  if (current.refusal) return { refusal: current.refusal };
  try {
    return parsePriceUsd(current.priceUsd);
  } catch (err) {
    if (err instanceof MoneyError) return undefined;
    throw err;
  }
}
