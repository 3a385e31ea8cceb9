/**
 * The seller console in-process (app.inject), shared by the integration tests that sign in as a vendor: the
 * request helper, Sign-In-With-Solana with a real ed25519 key, the settings with two vendors' keys, and the server
 * the refund tests start against the localnet.
 */
import type { Keypair, PublicKey } from '@solana/web3.js';
import type { LightMyRequestResponse } from 'fastify';
import nacl from 'tweetnacl';
import { expect } from 'vitest';
import { formatSiwsMessage, type SiwsRequest } from '../../src/core/siws';
import { demoRecipientKeypair } from './demo-keypairs';
import { startServer, type RunningServer, type ServerOverrides } from '../../src/server/server';
import { loadSettings, type Settings } from '../../src/server/settings';
import { TEST_DATA_KEYS } from './fixtures';
import { restock } from './stock';

export const SITE = 'https://shop.example';

/** Settings for an in-process server with no chain or price API: `coopers` and `gorilla` receive payments. */
export function sellerSettings(coopers: Keypair, gorilla: Keypair, mint: string): Settings {
  return loadSettings({
    DATA_KEYS: TEST_DATA_KEYS,
    SOLANA_RPC_URL: 'http://127.0.0.1:9',
    MIGRATE_ON_START: '1', // a fresh store per test: migrated at start (the release step: migrate.test.ts)
    PRICE_API_URL: 'http://127.0.0.1:9',
    QUOTE_SECRET: 'test-secret-0123456789-0123456789-abcdef',
    SELLER_EMAIL: 'seller@shop.test',
    CLAIM_MINT: mint,
    RECIPIENT_COOPERSGLASS: coopers.publicKey.toBase58(),
    RECIPIENT_GORILLA: gorilla.publicKey.toBase58(),
    PUBLIC_URL: SITE,
    PORT: '0',
    MAIL_TRANSPORT: 'file',
  });
}

export interface InjectOptions {
  body?: unknown;
  cookie?: string;
  headers?: Record<string, string>;
}

export type Inject = (
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  opts?: InjectOptions,
) => Promise<LightMyRequestResponse>;

/**
 * Requests to the server `current()` returns (tests start a new one per test). `originWithCookie`: the Origin
 * header sent with every request that carries a cookie.
 */
export function injector(current: () => RunningServer, originWithCookie?: string): Inject {
  return (method, url, opts = {}) =>
    current().app.inject({
      method,
      url,
      ...(opts.body !== undefined ? { payload: opts.body as object } : {}),
      headers: {
        ...(opts.cookie
          ? { cookie: opts.cookie, ...(originWithCookie ? { origin: originWithCookie } : {}) }
          : {}),
        ...opts.headers,
      },
    });
}

/** Signs in as the vendor whose payout key is `key`; returns the session cookie (`claim_seller=…`). */
export async function signInSeller(inject: Inject, key: Keypair): Promise<string> {
  const request = (await inject('GET', '/api/seller/nonce')).json<SiwsRequest>();
  const message = formatSiwsMessage({ ...request, address: key.publicKey.toBase58() });
  const signature = Buffer.from(
    nacl.sign.detached(new TextEncoder().encode(message), key.secretKey),
  ).toString('base64');
  const r = await inject('POST', '/api/seller/session', { body: { message, signature } });
  expect(r.statusCode, r.body).toBe(200);
  const cookie = /claim_seller=([^;]+)/.exec(String(r.headers['set-cookie']))?.[1];
  if (!cookie) throw new Error('the seller session set no claim_seller cookie');
  return `claim_seller=${cookie}`;
}

/**
 * The refund tests' server: the localnet's RPC (`localnetPort`) with a budget for many refund checks, `vendor` as
 * Coopers Glass's payout key, outbox and expiry off, and 10 of the glass piece in stock.
 */
export async function startLocalnetSellerServer(
  localnetPort: number,
  mint: PublicKey,
  vendor: Keypair,
  overrides: ServerOverrides,
): Promise<RunningServer> {
  const server = await startServer(
    loadSettings(
      {
        PORT: '0',
        LOCALNET_PORT: String(localnetPort),
        SELLER_EMAIL: 'seller@shop.test',
        // Every refund check reads the refund and the order's payments: more than the default budget allows
        // in 10 s across these tests.
        SOLANA_RPC_BUDGET: '1000',
      },
      {
        claimMint: mint.toBase58(),
        recipients: {
          coopersglass: vendor.publicKey.toBase58(),
          gorilla: demoRecipientKeypair('gorilla').publicKey.toBase58(),
        },
      },
    ),
    { ...overrides, listen: false, startOutbox: false, expireEveryMs: 0 },
  );
  await restock(server, 'sonic-crushed-opal-spillproof', 10);
  return server;
}
