/**
 * The two routes of a Solana Pay transaction request (docs/decisions/transaction-requests.md), keyed by the
 * order's pay token (orders/pay-requests.ts), and the icon they name:
 *
 * - GET /api/pay/:token → {label, icon}: the vendor's name and the absolute URL of /api/pay/icon.svg.
 * - POST /api/pay/:token {account} → {transaction, message}: the buyer's payment, built by the shared kit builder
 *   (src/core/payment-tx.ts) for `account` to sign and send, unsigned: the server holds no key. No RPC call per
 *   request: the blockhash and the priority price come from the shared snapshot (payments/recent-chain.ts),
 *   whether the vendor's token account exists from the payout-account cache (payments/payout-accounts.ts; the
 *   idempotent creation is added unless it is known to exist).
 * - OPTIONS (a browser's preflight) and GET /api/pay/icon.svg (the shop's mark, SVG, gzip when asked).
 *
 * Every answer of these routes (refusals and rate limits included) carries `Access-Control-Allow-Origin: *` and
 * `Cross-Origin-Resource-Policy: cross-origin` (wallets and web wallets fetch them from anywhere); no other route
 * does. Answers are `no-store`. Refusals are ApiError bodies in words: 404 unknown token, 400 malformed account,
 * 409 paid or closed, 410 time run out; POST is limited per client like every writing route, GET like the order
 * page reads (security.ts).
 */
import { gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { isAddress } from '@solana/kit';
import { z } from 'zod';
import { DomainError } from '../../core/errors';
import { TOKEN_DECIMALS } from '../../core/money';
import { compilePaymentTransaction, PaymentTxError } from '../../core/payment-tx';
import { PAY_REQUEST_PATH, type PayRequests } from '../orders/pay-requests';
import type { PayoutAccounts } from '../payments/payout-accounts';
import type { RecentChain } from '../payments/recent-chain';
import { parseWith } from './validate';

export const PAY_ICON_PATH = `${PAY_REQUEST_PATH}icon.svg`;

/** The shop's mark (the favicon's drawing), square, as wallets show a request's icon. */
export const PAY_ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32" width="96" height="96">' +
  '<rect width="32" height="32" rx="8" fill="#12101c"/>' +
  '<text x="16" y="23" text-anchor="middle" font-family="sans-serif" font-size="20" font-weight="800" ' +
  'fill="#7ee0c3">$</text></svg>';
const PAY_ICON_GZIP = gzipSync(PAY_ICON_SVG);

export interface PayRoutesDeps {
  requests: PayRequests;
  chain: RecentChain;
  payoutAccounts: Pick<PayoutAccounts, 'state' | 'peek'>;
  /** The shop's public origin (PUBLIC_URL, or the bound URL on port 0): the icon's absolute URL. */
  origin: () => string;
}

const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': 'content-type, accept, cache-control, accept-encoding',
  'access-control-max-age': '600',
  'cross-origin-resource-policy': 'cross-origin',
};

const TokenParams = z.object({ token: z.string().max(100) });
const ACCOUNT =
  'The body must be {"account": "<your wallet address>"}: the base58 address of the account that signs.';
const AccountBody = z.object({
  account: z
    .string({ required_error: ACCOUNT, invalid_type_error: ACCOUNT })
    .refine((v) => isAddress(v), 'account is not a Solana address: send your wallet address (base58).'),
});

const notFound = () =>
  new DomainError(
    'not_found',
    'payment_request_not_found',
    "This payment code is not one of this shop's, or its order no longer exists. Go back to the shop's page for a new one.",
  );

export async function payRoutes(app: FastifyInstance, deps: PayRoutesDeps): Promise<void> {
  await app.register(async (scope) => {
    // On every answer of this scope, refusals and 429s included.
    scope.addHook('onSend', async (_req, reply, payload) => {
      reply.headers(CORS_HEADERS);
      return payload;
    });

    const tokenOf = (params: unknown) =>
      parseWith(TokenParams, params, { whole: '', refuse: notFound }).token;

    scope.options(`${PAY_REQUEST_PATH}:token`, async (_req, reply) => reply.status(204).send());

    scope.get(PAY_ICON_PATH, async (req, reply) => {
      reply
        .type('image/svg+xml')
        .header('cache-control', 'public, max-age=86400')
        .header('vary', 'accept-encoding');
      if (/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? '')))
        return reply.header('content-encoding', 'gzip').send(PAY_ICON_GZIP);
      return reply.send(PAY_ICON_SVG);
    });

    scope.get(`${PAY_REQUEST_PATH}:token`, async (req, reply) => {
      const label = await deps.requests.label(tokenOf(req.params));
      const icon = `${deps.origin().replace(/\/+$/, '')}${PAY_ICON_PATH}`;
      return reply.header('cache-control', 'no-store').send({ label, icon });
    });

    scope.post(`${PAY_REQUEST_PATH}:token`, async (req, reply) => {
      const token = tokenOf(req.params);
      const { account } = parseWith(AccountBody, req.body ?? {}, {
        whole: ACCOUNT,
        codes: { account: 'invalid_account' },
      });
      const order = await deps.requests.payable(token);
      const snapshot = deps.chain.current();
      // Known to exist: no creation. Missing, unknown or not read yet: the idempotent creation rides along (a
      // no-op when the account exists after all), so the payment never depends on a read made now.
      const known = deps.payoutAccounts.peek?.(order.payoutGroup);
      let transaction: string;
      try {
        transaction = (
          await compilePaymentTransaction({
            payer: account,
            mint: order.mint,
            sellerOwner: order.recipient,
            amountBaseUnits: order.dueBaseUnits,
            decimals: TOKEN_DECIMALS,
            reference: order.reference,
            priorityMicroLamports: snapshot.priorityMicroLamports,
            sellerAccountExists: known === 'exists',
            lifetime: { blockhash: snapshot.blockhash, lastValidBlockHeight: snapshot.lastValidBlockHeight },
          })
        ).base64;
      } catch (err) {
        if (err instanceof PaymentTxError)
          throw new DomainError(
            'invalid',
            'invalid_account',
            `This account cannot pay this order: ${err.message}.`,
            {
              field: 'account',
            },
          );
        throw err;
      }
      return reply.header('cache-control', 'no-store').send({ transaction, message: order.message });
    });
  });
}
