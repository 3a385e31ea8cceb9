/**
 * Quotes: the server prices the items from the catalogue and the current $CLAIM price, issues a fresh Solana Pay
 * reference, and hands the whole quote to the browser as an HMAC-signed opaque token (no database write). An
 * order later presents the token; the signature proves the server issued it unchanged.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Keypair } from '@solana/web3.js';
import { z } from 'zod';
import type { QuoteResponse } from '../../core/api';
import { unitPriceCents, type Catalog } from '../../core/catalog';
import { formatBaseUnits, MoneyError, parsePriceUsd, tokenBaseUnitsForCents } from '../../core/money';
import { describeIssues, QuoteRequestSchema } from '../../core/order';
import { encodeTransferRequestUrl, quantityMessage } from '../../core/solana-pay';
import type { Settings } from '../settings';
import { ApiProblem } from '../http/errors';

/** The price port (b)'s price service satisfies. */
export interface PriceSource {
  current(): { priceUsd: string; fetchedAt: Date } | undefined;
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
    payoutGroup: z.enum(['coopersglass', 'gorilla']),
    payment: z.enum(['wallet', 'qr']),
    items: z.array(QuoteItemSchema).min(1),
    totalCents: z.number().int().positive(),
    priceUsd: z.string(),
    amountBaseUnits: z.string().regex(/^\d+$/),
    reference: z.string(),
    recipient: z.string(),
    mint: z.string(),
    solanaPayUrl: z.string(),
    issuedAt: z.string(),
    expiresAt: z.string(),
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

export type QuoteCheck = { ok: true; quote: SignedQuote } | { ok: false; reason: 'malformed' | 'bad_signature' | 'expired'; quote?: SignedQuote };

/** Verifies the signature first, then the shape, then the expiry. */
export function verifyQuote(token: string, secret: string, now: Date): QuoteCheck {
  const parts = token.split('.');
  if (parts.length !== 2 || !parts[0] || !parts[1] || !/^[A-Za-z0-9_-]+$/.test(parts[0]) || !/^[A-Za-z0-9_-]+$/.test(parts[1])) {
    return { ok: false, reason: 'malformed' };
  }
  const expected = createHmac('sha256', secret).update(parts[0]).digest();
  const given = Buffer.from(parts[1], 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'bad_signature' };
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

export const PRICE_UNAVAILABLE = 'The $CLAIM price is not available right now, so we cannot quote. Please try again in a minute.';

export function createQuote(deps: QuoteDeps, body: unknown): { quote: SignedQuote; token: string; response: QuoteResponse } {
  const req = QuoteRequestSchema.safeParse(body);
  if (!req.success) {
    const issues = describeIssues(req.error);
    throw new ApiProblem(400, 'invalid_quote_request', issues[0]?.message ?? 'Invalid quote request', { field: issues[0]?.path, issues });
  }
  const now = deps.now();
  const items: SignedQuote['items'] = [];
  let vendorId: string | undefined;
  let payment: 'wallet' | 'qr' | undefined;
  const seen = new Set<string>();
  for (const [i, it] of req.data.items.entries()) {
    const field = `items.${i}`;
    const product = deps.catalog.products.find((p) => p.id === it.productId);
    if (!product) throw new ApiProblem(400, 'unknown_product', `Unknown product '${it.productId}'.`, { field: `${field}.productId` });
    // Sold out marks the catalogue tile only (not clickable); the product's own page keeps selling, as the
    // original's pages did (docs/decisions/catalogue.md).
    const key = `${it.productId}/${it.variantId ?? ''}`;
    if (seen.has(key)) throw new ApiProblem(400, 'duplicate_item', `${product.name} is listed twice; send one line with its quantity.`, { field });
    seen.add(key);
    if (vendorId !== undefined && product.vendorId !== vendorId) {
      throw new ApiProblem(400, 'mixed_vendors', 'All items of one order must come from the same vendor.', { field: `${field}.productId` });
    }
    if (payment !== undefined && product.payment !== payment) {
      throw new ApiProblem(400, 'mixed_payment', 'Wallet and QR products cannot be ordered together.', { field: `${field}.productId` });
    }
    vendorId = product.vendorId;
    payment = product.payment;
    let unitCents: number;
    try {
      unitCents = unitPriceCents(product, it.variantId);
    } catch (err) {
      throw new ApiProblem(400, 'invalid_variant', (err as Error).message, { field: `${field}.variantId` });
    }
    if (!product.quantity && it.quantity !== 1) {
      throw new ApiProblem(400, 'invalid_quantity', `${product.name} is sold one at a time (quantity 1).`, { field: `${field}.quantity` });
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
  if (!vendor || !payment) throw new ApiProblem(400, 'unknown_vendor', 'The product has no vendor.');

  // Price: known and fresh, or no quote.
  const current = deps.priceSource.current();
  if (!current || now.getTime() - current.fetchedAt.getTime() > deps.settings.price.maxAgeMs) {
    throw new ApiProblem(503, 'price_unavailable', PRICE_UNAVAILABLE);
  }
  let price;
  try {
    price = parsePriceUsd(current.priceUsd);
  } catch (err) {
    if (err instanceof MoneyError) throw new ApiProblem(503, 'price_unavailable', PRICE_UNAVAILABLE);
    throw err;
  }
  const totalCents = items.reduce((n, i) => n + i.lineCents, 0);
  const amount = tokenBaseUnitsForCents(totalCents, price);
  if (amount <= 0n) throw new ApiProblem(503, 'price_unavailable', PRICE_UNAVAILABLE);

  const reference = deps.newReference?.() ?? Keypair.generate().publicKey.toBase58();
  const recipient = deps.settings.recipients[vendor.payoutGroup];
  const mint = deps.settings.claimMint;
  const solanaPayUrl = encodeTransferRequestUrl({
    recipient,
    amountBaseUnits: amount,
    splToken: mint,
    reference,
    label: vendor.name,
    message: quantityMessage(items.map((i) => ({ quantity: i.quantity, name: i.variantLabel ? `${i.name} (${i.variantLabel})` : i.name }))),
  });
  const quote: SignedQuote = {
    v: 1,
    vendorId: vendor.id,
    vendorName: vendor.name,
    payoutGroup: vendor.payoutGroup,
    payment,
    items,
    totalCents,
    priceUsd: price.text,
    amountBaseUnits: amount.toString(),
    reference,
    recipient,
    mint,
    solanaPayUrl,
    issuedAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + deps.settings.quote.ttlMs).toISOString(),
  };
  const token = signQuote(quote, deps.settings.quote.secret);
  const response: QuoteResponse = {
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
    priceUsd: price.text,
    amountBaseUnits: quote.amountBaseUnits,
    amount: formatBaseUnits(amount),
    reference,
    recipient,
    mint,
    solanaPayUrl,
    expiresAt: quote.expiresAt,
  };
  return { quote, token, response };
}
