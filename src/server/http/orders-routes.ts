/**
 * Thin routes over the quote and order services. Every param and body is parsed at the edge (./validate.ts)
 * before anything happens, the quote and order bodies by their schemas in src/core/order.ts (which the web app
 * shares), so the services take parsed requests. Every refusal is a DomainError (src/core/errors.ts), mapped to its status and ApiError body by
 * ./errors.ts.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { OrderService } from '../orders/service';
import { draftQuote, issueDraft, type QuoteDeps } from '../orders/quotes';
import type { StockRepository } from '../stock/repository';
import { DomainError } from '../../core/errors';
import { holderOf } from '../stock/holds';
import { admitToDrop, type QuoteTurn } from '../stock/drop-admit';
import { dropsIn } from '../orders/holds';
import { clientKey } from './security';
import type { PayoutAccounts } from '../payments/payout-accounts';
import type { WatchLanes } from '../payments/lanes';
import type { WalletBalances } from '../payments/wallet-balances';
import { redactError } from '../redact';
import { payoutRefusal } from '../../core/payout-account';
import {
  invalidOrderRequest,
  invalidQuoteRequest,
  OrderRequestSchema,
  QuoteRequestSchema,
} from '../../core/order';
import { optionalBody, orderIdParam, pageTokenParam, parseWith } from './validate';
import { qrSvgOfShopLink } from './qr-route';

/** A priced QR record's answer with its QR drawn in (the link it shows: the transaction request, else the transfer). */
async function withQrSvg<T extends { solanaPayUrl: string | null; transactionRequestUrl?: string }>(
  body: T,
): Promise<T & { qrSvg?: string }> {
  const link = body.transactionRequestUrl ?? body.solanaPayUrl;
  const svg = link === null ? undefined : await qrSvgOfShopLink(link);
  return svg === undefined ? body : { ...body, qrSvg: svg };
}

export interface OrderRoutesDeps {
  orders: OrderService;
  quotes: QuoteDeps;
  stock: StockRepository;
  /** Whether a vendor's $CLAIM token account exists: no QR or payment link otherwise (plain HTTP). */
  payoutAccounts: PayoutAccounts;
  /** The shop is reached over HTTPS: QR records carry Solana Pay transaction requests (orders/pay-requests.ts). */
  transactionRequests?: boolean;
  /** The payment watcher's hint lane (payments/lanes.ts): the wallet's "I sent it" goes straight to it. */
  lanes: Pick<WatchLanes, 'hint'>;
  /** The wallets' $CLAIM (payments/wallet-balances.ts): a drop's quote that lets a buyer through reads it early. */
  balances?: Pick<WalletBalances, 'prefetch'>;
  /**
   * Can the store see payments arrive right now (ops/dependencies.ts createPaymentCheck: the RPC answers and the
   * watcher is not failing)? While 'delayed', an order awaiting payment says so on the buyer's pages. Absent: 'ok'.
   */
  paymentCheck?: () => 'ok' | 'delayed';
}

/** Statuses in which a buyer waits for the store to see a payment. */
const AWAITING: ReadonlySet<string> = new Set(['awaiting_payment', 'underpaid']);

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,128}$/;
const HintSchema = z
  .object({ signature: z.string({ required_error: 'signature is required' }).min(1).max(128) })
  .strict();

const REQUOTE_BODY = 'The body must be {"quote": "<quote>", "token": "<page token>"}.';
const RequoteSchema = z
  .object({ quote: z.string().min(1).max(8192), token: z.string().max(64).optional() })
  .strict();

/** QR confirmation: the shipping details (checked by the order service against the US form) and the page token. */
const ConfirmationSchema = z.object({ shipping: z.unknown(), token: z.unknown() }).partial().strict();

const VendorParams = z.object({ vendorId: z.string().max(100) });
const noSuchVendor = () => new DomainError('not_found', 'vendor_not_found', 'No such vendor.');

export async function orderRoutes(app: FastifyInstance, deps: OrderRoutesDeps): Promise<void> {
  // The buyer's pages say so in plain words while the store cannot see payments arrive (the RPC or the watcher is
  // down): the order stands, a payment sent is safe and shows once the store sees the chain again.
  const withPaymentCheck = <T extends { status: string }>(order: T): T & { paymentCheck?: 'delayed' } =>
    AWAITING.has(order.status) && deps.paymentCheck?.() === 'delayed'
      ? { ...order, paymentCheck: 'delayed' }
      : order;
  // The client's hold key (per-client cap on holds): a keyed hash of its client key (IPv6 by /64), never the address.
  const holder = (req: FastifyRequest) => holderOf(deps.quotes.settings.quote.secret, clientKey(req));
  app.post('/api/quotes', async (req, reply) => {
    const body = parseWith(QuoteRequestSchema, req.body, {
      whole: 'Invalid quote request',
      refuse: invalidQuoteRequest,
    });
    // Checked and priced first (400 / 503 in words), then the stock, then the reference and the signature: a buyer
    // refused for want of stock or by a drop's line costs no reference, payment link or signature.
    const draft = draftQuote(deps.quotes, body);
    // More than is available: 409 "Sold out" / "Reserved: may come back in N minutes" / "Only N left" (from memory
    // or one read without a lock, stock/sold-out.ts; the order reserves). A drop's quote is also its buyer's turn
    // (stock/drop-line.ts): a buyer in line is refused here with their place, before the wallet is asked to sign.
    const drops = dropsIn(deps.quotes.catalog, draft.items);
    let turn: QuoteTurn | undefined;
    if (drops.length > 0) {
      const client = holder(req);
      const until = await admitToDrop(deps.stock, drops, draft.items, client, deps.quotes.now());
      if (until !== undefined) turn = { holder: client, until };
      // Let through: the quote carries the buyer's turn (signed with it: their order does not ask the line again
      // while it is open, stock/drop-admit.ts), and the order that follows holds only with the wallet's balance, read now (batched with the
      // others let through) while the wallet signs, so the order finds it read. Only a buyer let through (as many
      // as there are free pieces) and within the quote route's per-client limit: no more reads than their orders'.
      if (body.wallet && draft.payment === 'wallet') deps.balances?.prefetch?.(body.wallet);
    } else await deps.stock.assertNotSoldOut(draft.items, deps.quotes.now().getTime());
    const { quote, response } = issueDraft(deps.quotes, draft, turn);
    // No QR to a recipient that cannot receive: a priced QR quote (its link is what the QR encodes) is refused in
    // words while the vendor's token account does not exist, or cannot be checked. A wallet quote is not: the
    // wallet checkout's transaction creates the account (a second approval); its payment-link path asks below.
    // Over HTTPS the QR carries the transaction request, whose transaction creates the account when it is missing
    // (docs/decisions/transaction-requests.md): every vendor is payable by QR, and this refusal is the plain-HTTP
    // demo's only.
    if (quote.payment === 'qr' && quote.solanaPayUrl !== null && !deps.transactionRequests)
      await deps.payoutAccounts.assertReceivable(quote.payoutGroup, quote.vendorName);
    // Over HTTPS: the transaction request reads the cache without waiting; a stale entry is read now, unawaited.
    else if (quote.payment === 'qr') deps.payoutAccounts.peek?.(quote.payoutGroup);
    return reply.header('cache-control', 'no-store').status(200).send(response);
  });

  // Whether a vendor can be paid by QR or payment link now (its token account exists): the wallet checkout asks
  // before it shows a payment link. Cached (payments/payout-accounts.ts), so page views cost no RPC beyond it.
  app.get('/api/vendors/:vendorId/payout-account', async (req, reply) => {
    const { vendorId } = parseWith(VendorParams, req.params, {
      whole: 'No such vendor.',
      refuse: noSuchVendor,
    });
    const vendor = deps.quotes.catalog.vendors.find((v) => v.id === vendorId);
    if (!vendor) throw noSuchVendor();
    const state = await deps.payoutAccounts.state(vendor.payoutGroup);
    const refusal = payoutRefusal(state, vendor.name);
    return reply
      .header('cache-control', 'no-store')
      .send({ vendorId: vendor.id, state, ...(refusal ? { message: refusal.message } : {}) });
  });

  app.post('/api/orders', async (req, reply) => {
    const raw = req.headers['idempotency-key'];
    const key = Array.isArray(raw) ? undefined : raw;
    if (key === undefined || !IDEMPOTENCY_KEY.test(key)) {
      throw new DomainError(
        'invalid',
        'idempotency_key_required',
        'The Idempotency-Key header is required (1–128 visible ASCII characters).',
        {
          field: 'Idempotency-Key',
        },
      );
    }
    const body = parseWith(OrderRequestSchema, req.body, {
      whole: 'Invalid order',
      refuse: invalidOrderRequest,
    });
    const result = await deps.orders.createOrder(body, key, holder(req));
    return (
      reply
        .header('cache-control', 'no-store')
        .header('idempotent-replayed', String(result.outcome === 'replayed'))
        // A replay answers as the creation it repeats did.
        .status(201)
        .send(body.paymentMethod === 'qr' ? await withQrSvg(result.body) : result.body)
    );
  });

  // The order's public status. The checkout's status poll sends the record's page token (`X-Order-Token`, from
  // its creation's answer): only then does the payment watcher count the order as awaited by this client (the
  // id alone is not a capability; payments.md "The payment lane cannot be bought").
  app.get('/api/orders/:id', async (req, reply) => {
    const token = req.headers['x-order-token'];
    const order = await deps.orders.getOrder(
      orderIdParam(req.params),
      typeof token === 'string' ? { pageToken: token, client: holder(req) } : undefined,
    );
    if (!order) throw new DomainError('not_found', 'order_not_found', 'No such order.');
    return reply.header('cache-control', 'no-store').send(withPaymentCheck(order));
  });

  app.post('/api/orders/:id/confirmation', async (req, reply) => {
    const id = orderIdParam(req.params);
    const fields = parseWith(ConfirmationSchema, optionalBody(req.body), {
      whole: 'The body must be a JSON object.',
    });
    // The shipping details of a QR record with the record's page token: the order id alone attaches nothing.
    const order = await deps.orders.requestConfirmation(id, fields.shipping, fields.token);
    return reply.header('cache-control', 'no-store').send(order);
  });

  app.put('/api/orders/:id/quote', async (req, reply) => {
    const id = orderIdParam(req.params);
    const body = parseWith(RequoteSchema, req.body, {
      whole: REQUOTE_BODY,
      refuse: () => new DomainError('invalid', 'invalid_quote', REQUOTE_BODY, { field: 'quote' }),
    });
    // With the record's page token (its creation's answer carried it): the id alone changes nothing.
    const created = await deps.orders.requote(id, body.quote, body.token);
    return reply.header('cache-control', 'no-store').send(await withQrSvg(created));
  });

  // The buyer's order page. Every unknown or malformed token is the same 404: nothing tells a guess apart.
  app.get('/api/order-pages/:token', async (req, reply) => {
    const view = await deps.orders.getOrderPage(pageTokenParam(req.params), holder(req));
    if (!view) throw new DomainError('not_found', 'order_not_found', 'No such order.');
    return reply
      .header('cache-control', 'no-store')
      .header('x-robots-tag', 'noindex')
      .send(withPaymentCheck(view));
  });

  app.post('/api/orders/:id/payment', async (req, reply) => {
    const id = orderIdParam(req.params);
    // One code for every problem with the hint, in zod's words.
    const { signature } = parseWith(HintSchema, req.body, {
      whole: 'signature is required',
      refuse: (error) =>
        new DomainError('invalid', 'invalid_signature', error.issues[0]?.message ?? 'signature is required', {
          field: 'signature',
        }),
    });
    const { order, watched } = await deps.orders.paymentHint(id, signature);
    // The verifier decides; its work must not hold the request.
    void Promise.resolve()
      .then(() => deps.lanes.hint(watched, signature))
      .catch((err: unknown) => console.error('payment hint:', redactError(err)));
    return reply.header('cache-control', 'no-store').status(202).send(order);
  });
}
