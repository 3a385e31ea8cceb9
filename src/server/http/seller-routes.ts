/**
 * The seller console's API, `/api/seller/*`. Thin: parse, check the session, call src/server/seller, refusals are
 * DomainErrors, mapped to HTTP by the app's one error handler (./errors.ts).
 *
 * - Session: cookie `claim_seller` (HttpOnly, SameSite=Strict, Path=/api/seller, Secure when the site is https,
 *   8 h); every route except the sign-in ones answers 401 without a valid session, and only ever shows the
 *   signed-in payout wallet's vendors' orders.
 * - CSRF: every state-changing request (not GET/HEAD) under /api/seller is refused with 403 when the browser
 *   says it is cross-site (Sec-Fetch-Site other than same-origin/none) or its Origin is not this site. SameSite
 *   Strict already keeps the cookie off cross-site requests; this is the second lock.
 * - Refunds: POST /api/seller/orders/:id/refund reads the refund transaction on chain through `rpc` (the
 *   payments' port and RPC budget) before recording it; the order's detail reads who paid through it too.
 * - Fulfilment: ship, delivered, cancel (the buyer asked), tracking (changed after shipping), note, resolve, resend:
 *   the order service's.
 * - Live list and summary: GET /api/seller/changes?since=… (orders created or changed since the last check) and
 *   GET /api/seller/summary?tz=… (today, 7 and 30 days).
 * - Stock: GET/POST /api/seller/stock, the vendor's own lines only (the `npm run stock` repository).
 * - Demo mode only: POST /api/seller/demo-session signs in as a demo vendor, the server signing the SIWS message
 *   with the localnet's deterministic key of that vendor's payout group. The route does not exist when
 *   SOLANA_RPC_URL is set.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formatSiwsMessage } from '../../core/siws';
import type { SellerMe } from '../../core/seller-api';
import type { Catalog } from '../../core/catalog';
import { demoAddress, demoRecipientLabel, demoSign } from '../demo-keys';
import {
  endOtherSessions,
  endSession,
  issueSignInRequest,
  listSessions,
  sellerOfSession,
  SESSION_TTL_MS,
  signIn,
  signOut,
  type SellerAuthDeps,
  type SellerPrincipal,
} from '../seller/auth';
import { deviceOf } from '../seller/device';
import { ordersCsv } from '../seller/csv';
import { exportRows } from '../seller/export';
import { changesSince } from '../seller/live';
import { salesSummary } from '../seller/summary';
import { markRefunded } from '../seller/mark-refunded';
import { releaseSellerHolds, sellerStock, setSellerStock, type SellerStockDeps } from '../seller/stock';
import { orderDetail, type OrderDetailDeps } from '../seller/order-detail';
import { createPayerCache } from '../payments/payers';
import { listOrders, type SellerViewDeps } from '../seller/views';
import type { OrderService } from '../orders/service';
import type { PaymentRpc } from '../payments/rpc';
import type { Settings } from '../settings';
import type { Sealer } from '../privacy/seal';
import { createSearchCache } from '../privacy/search';
import type { StockRepository } from '../stock/repository';
import { DomainError } from '../../core/errors';
import {
  DemoSessionBody,
  parseNoteBody,
  parseChangesQuery,
  parseEmailParam,
  parseOrderQuery,
  parseRefundBody,
  parseSummaryQuery,
  parseResolveBody,
  parseSessionParam,
  parseShipBody,
  parseReleaseBody,
  parseStockBody,
  SessionBody,
} from './seller-schemas';
import { orderIdParam, parseWith } from './validate';
import { webhookRoutes } from './webhook-routes';
import type { EndpointDeps } from '../webhooks/endpoints';

export const SESSION_COOKIE = 'claim_seller';

export interface SellerRoutesDeps {
  /** Handed to the seller module's reads and sign-in (the routes themselves query nothing). */
  store: SellerViewDeps['store'];
  /** The order service: every seller action on an order is its (ship, deliver, resolve, refund, resend). */
  orders: OrderService;
  catalog: Catalog;
  settings: Settings;
  now: () => Date;
  /** This site's origin as browsers see it (PUBLIC_URL, or the bound address when PUBLIC_URL has port 0). */
  origin: () => string;
  /** Stock lines and their change log (the same repository as `npm run stock`). */
  stock: StockRepository;
  /** The payments' RPC port on the process's RPC budget: "Mark refunded" reads the refund on chain with it. */
  rpc?: PaymentRpc;
  /** Opens the buyers' sealed details for their vendor (console, search, CSV) and seals what the console writes. */
  sealer: Sealer;
  /** The vendors' webhook endpoints (./webhook-routes.ts); absent: no webhook routes. */
  webhooks?: EndpointDeps;
}

function cookieOf(req: FastifyRequest): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === SESSION_COOKIE) return rest.join('=');
  }
  return undefined;
}

function meOf(s: SellerPrincipal): SellerMe {
  return {
    address: s.address,
    vendors: s.vendors.map((v) => ({ id: v.id, name: v.name })),
    expiresAt: s.expiresAt,
  };
}

declare module 'fastify' {
  interface FastifyRequest {
    seller?: SellerPrincipal;
  }
}

export async function sellerRoutes(app: FastifyInstance, deps: SellerRoutesDeps): Promise<void> {
  const auth: SellerAuthDeps = deps;
  const views: SellerViewDeps = {
    store: deps.store,
    sealer: deps.sealer,
    search: createSearchCache(deps.sealer),
    now: deps.now,
    detailsGraceMs: deps.settings.qr.detailsGraceMs,
  };
  // Who paid each transfer, read once per process (the console's detail and the refund check alike).
  const payers = createPayerCache();
  const details: OrderDetailDeps = {
    ...views,
    ...(deps.rpc ? { rpc: deps.rpc } : {}),
    payers,
    solana: deps.settings.solana,
    reference: deps.settings.price.reference,
    shopOf: (vendorId) => {
      const vendor = deps.catalog.vendors.find((v) => v.id === vendorId);
      return {
        shopName: vendor?.name ?? vendorId,
        returnAddress: vendor ? (deps.settings.returnAddresses[vendor.payoutGroup] ?? []) : [],
      };
    },
  };
  const refunds = { orders: deps.orders, payers, ...(deps.rpc ? { rpc: deps.rpc } : {}) };
  const stockDeps: SellerStockDeps = { stock: deps.stock, catalog: deps.catalog, now: deps.now };
  const secure = deps.settings.publicUrl.startsWith('https:');
  const setSession = (reply: FastifyReply, id: string, maxAgeS: number) =>
    reply.header(
      'set-cookie',
      `${SESSION_COOKIE}=${id}; Path=/api/seller; HttpOnly; SameSite=Strict; Max-Age=${maxAgeS}${secure ? '; Secure' : ''}`,
    );
  const site = () => {
    const u = new URL(deps.origin());
    return { domain: u.host, uri: u.origin };
  };

  await app.register(async (scope) => {
    // CSRF: state-changing requests must come from this site.
    scope.addHook('onRequest', async (req) => {
      if (req.method === 'GET' || req.method === 'HEAD') return;
      const fetchSite = req.headers['sec-fetch-site'];
      const origin = req.headers.origin;
      const sameOrigin =
        origin === undefined || origin === site().uri || origin === `${req.protocol}://${req.headers.host}`;
      if ((fetchSite !== undefined && fetchSite !== 'same-origin' && fetchSite !== 'none') || !sameOrigin)
        throw new DomainError(
          'forbidden',
          'cross_site',
          'Cross-site requests to the seller console are refused.',
        );
    });

    // Every route but the sign-in ones needs a session.
    const open = new Set(['/api/seller/nonce', '/api/seller/session', '/api/seller/demo-session']);
    scope.addHook('preHandler', async (req, reply) => {
      reply.header('cache-control', 'no-store');
      if (open.has(req.routeOptions.url ?? '') && req.method !== 'GET') return;
      if (req.routeOptions.url === '/api/seller/nonce') return;
      const seller = await sellerOfSession(auth, cookieOf(req));
      if (!seller)
        throw new DomainError('unauthenticated', 'not_signed_in', 'Sign in with your payout wallet.');
      req.seller = seller;
    });

    scope.get('/api/seller/nonce', async () => issueSignInRequest(auth, site()));

    scope.post('/api/seller/session', async (req, reply) => {
      const body = parseWith(SessionBody, req.body, {
        whole: 'Send the signed message and its signature.',
      });
      const signature = Buffer.from(body.signature, 'base64');
      const { sessionId, seller } = await signIn(
        auth,
        { message: body.message, signature: new Uint8Array(signature) },
        { replacing: cookieOf(req), device: deviceOf(req.headers['user-agent']) },
      );
      setSession(reply, sessionId, SESSION_TTL_MS / 1000);
      return meOf(seller);
    });

    if (deps.settings.demo) {
      scope.post('/api/seller/demo-session', async (req, reply) => {
        const { vendorId } = parseWith(DemoSessionBody, req.body, {
          whole: 'Name the vendor.',
          codes: { vendorId: 'unknown_vendor' },
        });
        const vendor = deps.catalog.vendors.find((v) => v.id === vendorId);
        if (!vendor)
          throw new DomainError('invalid', 'unknown_vendor', 'No such vendor.', { field: 'vendorId' });
        // The same path as a wallet: a nonce, the SIWS text, an ed25519 signature, verified by signIn.
        const label = demoRecipientLabel(vendor.payoutGroup);
        const request = await issueSignInRequest(auth, site());
        const message = formatSiwsMessage({ ...request, address: demoAddress(label) });
        const signature = demoSign(label, new TextEncoder().encode(message));
        const { sessionId, seller } = await signIn(
          auth,
          { message, signature },
          { replacing: cookieOf(req), device: deviceOf(req.headers['user-agent']) },
        );
        setSession(reply, sessionId, SESSION_TTL_MS / 1000);
        return meOf(seller);
      });
    }

    scope.delete('/api/seller/session', async (req, reply) => {
      await signOut(auth, cookieOf(req));
      setSession(reply, '', 0);
      return { ok: true };
    });

    scope.get('/api/seller/me', async (req) => meOf(req.seller!));

    // The wallet's open sessions (every device it signed in on); the seller can end any of them.
    scope.get('/api/seller/sessions', async (req) => ({ sessions: await listSessions(auth, req.seller!) }));
    scope.delete('/api/seller/sessions/:id', async (req, reply) => {
      const id = parseSessionParam(req.params);
      await endSession(auth, req.seller!, id);
      if (id === req.seller!.session) setSession(reply, '', 0);
      return { ok: true };
    });
    scope.post('/api/seller/sessions/end-others', async (req) => ({
      ended: await endOtherSessions(auth, req.seller!),
    }));

    const vendorIds = (req: FastifyRequest) => req.seller!.vendors.map((v) => v.id);
    const actor = (req: FastifyRequest) => ({ address: req.seller!.address, vendorIds: vendorIds(req) });
    const idOf = (req: FastifyRequest) => orderIdParam(req.params);

    const detail = (req: FastifyRequest) => orderDetail(details, vendorIds(req), idOf(req));

    scope.get('/api/seller/orders', async (req) =>
      listOrders(views, vendorIds(req), parseOrderQuery(req.query)),
    );

    // The live list: what changed since the console's last check (it polls every few seconds).
    scope.get('/api/seller/changes', async (req) =>
      changesSince(deps.store.db, vendorIds(req), parseChangesQuery(req.query).since, deps.now()),
    );

    // Today / 7 days / 30 days, from midnight in the vendor's time zone.
    scope.get('/api/seller/summary', async (req) =>
      salesSummary(views, vendorIds(req), parseSummaryQuery(req.query).timeZone),
    );

    scope.get('/api/seller/orders.csv', async (req, reply) => {
      const rows = await exportRows(views, vendorIds(req), parseOrderQuery(req.query));
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="orders.csv"')
        .send(ordersCsv(rows));
    });

    scope.get('/api/seller/orders/:id', async (req) => detail(req));

    // The seller's actions are the order service's; each answers with the order's detail after it.
    scope.post('/api/seller/orders/:id/ship', async (req) => {
      await deps.orders.markShipped(actor(req), idOf(req), parseShipBody(req.body));
      return detail(req);
    });
    scope.post('/api/seller/orders/:id/delivered', async (req) => {
      await deps.orders.markDelivered(actor(req), idOf(req));
      return detail(req);
    });
    // The buyer asked to cancel: the order is cancelled (units back on sale) and all it received is owed back.
    scope.post('/api/seller/orders/:id/cancel', async (req) => {
      await deps.orders.cancelOrder(actor(req), idOf(req));
      return detail(req);
    });
    scope.post('/api/seller/orders/:id/resolve', async (req) => {
      await deps.orders.resolveException(actor(req), idOf(req), parseResolveBody(req.body));
      return detail(req);
    });
    scope.post('/api/seller/orders/:id/refund', async (req) => {
      await markRefunded(refunds, actor(req), idOf(req), parseRefundBody(req.body));
      return detail(req);
    });
    // After shipping: a new tracking number (the buyer is e-mailed it again), and the seller's own note.
    scope.post('/api/seller/orders/:id/tracking', async (req) => {
      await deps.orders.updateTracking(actor(req), idOf(req), parseShipBody(req.body));
      return detail(req);
    });
    scope.post('/api/seller/orders/:id/note', async (req) => {
      await deps.orders.setNote(actor(req), idOf(req), parseNoteBody(req.body));
      return detail(req);
    });
    scope.post('/api/seller/orders/:id/emails/:emailId/resend', async (req) => {
      const emailId = parseEmailParam(req.params);
      await deps.orders.resendEmail(actor(req), idOf(req), emailId);
      return detail(req);
    });

    // Stock page: the vendor's own lines; setting one records `seller:<address>` and the time.
    scope.get('/api/seller/stock', async (req) => sellerStock(stockDeps, vendorIds(req)));
    scope.post('/api/seller/stock', async (req) =>
      setSellerStock(stockDeps, actor(req), parseStockBody(req.body)),
    );
    // Releasing what open orders hold on a line (their units back on sale; the orders stay open).
    scope.post('/api/seller/stock/release', async (req) =>
      releaseSellerHolds(stockDeps, actor(req), parseReleaseBody(req.body)),
    );

    // Webhooks: the vendor's endpoints, their delivery log and resends (./webhook-routes.ts).
    if (deps.webhooks) webhookRoutes(scope, deps.webhooks, vendorIds);
  });
}
