/**
 * Sign-In-With-Solana for the seller console, and its sessions. Everything lives in the store so several
 * instances agree: a nonce is issued into `seller_nonces` and consumed by deleting it (one DELETE decides, so it
 * is used at most once even when two instances race), a session is a random id whose SHA-256 is the key of
 * `seller_sessions` (the cookie is the only copy of the id).
 *
 * A sign-in is accepted when, in this order: the text is a SIWS message for our domain, the ed25519 signature
 * is the named address's over exactly that text, it is not expired and was issued at most 5 minutes ago, the
 * address is a vendor's payout address, and its nonce is one we issued in the last 5 minutes and not yet used.
 */
import { createHash, randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import nacl from 'tweetnacl';
import type { Catalog, Vendor } from '../../core/catalog';
import { parseSiwsMessage, SiwsParseError, type SiwsRequest } from '../../core/siws';
import type { Settings } from '../settings';
import type { Store } from '../store/store';
import { DomainError } from '../../core/errors';
import { NOT_A_SELLER } from './errors';
import { vendorsOfAddress } from './vendors';

export const NONCE_TTL_MS = 5 * 60_000;
export const SESSION_TTL_MS = 8 * 60 * 60_000;
/** Clock difference tolerated between the wallet's issued-at and ours. */
const CLOCK_SKEW_MS = 60_000;
export const SIWS_STATEMENT = 'Sign in to the $CLAIM seller console with your payout wallet.';

export interface SellerAuthDeps {
  store: Store;
  catalog: Catalog;
  settings: Pick<Settings, 'recipients' | 'solana'>;
  now: () => Date;
}

/** The signed-in seller: the payout address and the vendors it is paid for. */
export interface SellerPrincipal {
  address: string;
  vendors: Vendor[];
  expiresAt: string;
}

function chainIdOf(cluster: Settings['solana']['cluster']): string {
  return cluster === 'mainnet-beta' ? 'mainnet' : cluster;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Issues a nonce and the SIWS fields the wallet signs (the address is the wallet's). */
export async function issueSignInRequest(
  deps: SellerAuthDeps,
  origin: { domain: string; uri: string },
): Promise<SiwsRequest> {
  const now = deps.now();
  const nonce = bs58.encode(randomBytes(16));
  const db = deps.store.db;
  // Forget nonces nobody used (cheap: indexed), then issue this one.
  await db
    .deleteFrom('seller_nonces')
    .where('issued_at', '<', new Date(now.getTime() - NONCE_TTL_MS).toISOString())
    .execute();
  await db.insertInto('seller_nonces').values({ nonce, issued_at: now.toISOString() }).execute();
  return {
    domain: origin.domain,
    statement: SIWS_STATEMENT,
    uri: origin.uri,
    version: '1',
    chainId: chainIdOf(deps.settings.solana.cluster),
    nonce,
    issuedAt: now.toISOString(),
    expirationTime: new Date(now.getTime() + NONCE_TTL_MS).toISOString(),
  };
}

export interface SignInProof {
  /** The exact signed text (UTF-8). */
  message: string;
  /** The ed25519 signature over it. */
  signature: Uint8Array;
}

const refuse = (code: string, message: string) => new DomainError('unauthenticated', code, message);

/** Checks a signed SIWS message; on success starts a session. Returns the session id (cookie value). */
export async function signIn(
  deps: SellerAuthDeps,
  proof: SignInProof,
  expected: { domain: string },
): Promise<{ sessionId: string; seller: SellerPrincipal }> {
  let fields;
  try {
    fields = parseSiwsMessage(proof.message);
  } catch (err) {
    if (err instanceof SiwsParseError)
      throw new DomainError('invalid', 'invalid_message', `That is not a sign-in message: ${err.message}.`);
    throw err;
  }
  if (fields.domain !== expected.domain)
    throw refuse('wrong_domain', `This sign-in message is for ${fields.domain}, not for this site.`);

  let publicKey: Uint8Array;
  try {
    publicKey = bs58.decode(fields.address);
  } catch {
    throw refuse('bad_signature', 'The signature does not match the wallet.');
  }
  const ok =
    publicKey.length === 32 &&
    proof.signature.length === 64 &&
    nacl.sign.detached.verify(new TextEncoder().encode(proof.message), proof.signature, publicKey);
  if (!ok) throw refuse('bad_signature', 'The signature does not match the wallet.');

  const now = deps.now();
  const t = now.getTime();
  const issued = fields.issuedAt ? Date.parse(fields.issuedAt) : NaN;
  const expires = fields.expirationTime ? Date.parse(fields.expirationTime) : NaN;
  const notBefore = fields.notBefore ? Date.parse(fields.notBefore) : NaN;
  const stale = 'This sign-in request has expired. Please sign in again.';
  if (!fields.nonce || Number.isNaN(issued)) throw refuse('expired_request', stale);
  if (issued > t + CLOCK_SKEW_MS || t - issued > NONCE_TTL_MS) throw refuse('expired_request', stale);
  if (!Number.isNaN(expires) && expires <= t) throw refuse('expired_request', stale);
  if (fields.expirationTime && Number.isNaN(expires)) throw refuse('expired_request', stale);
  if (!Number.isNaN(notBefore) && notBefore > t + CLOCK_SKEW_MS) throw refuse('expired_request', stale);

  const vendors = vendorsOfAddress(deps.catalog, deps.settings, fields.address);
  if (vendors.length === 0) throw new DomainError('forbidden', 'not_a_seller', NOT_A_SELLER);

  // Single use: the DELETE that removes the nonce is the one sign-in that gets it.
  const used = await deps.store.db
    .deleteFrom('seller_nonces')
    .where('nonce', '=', fields.nonce)
    .where('issued_at', '>=', new Date(t - NONCE_TTL_MS).toISOString())
    .executeTakeFirst();
  if (Number(used.numDeletedRows) !== 1)
    throw refuse('nonce_used', 'This sign-in request was already used or has expired. Please sign in again.');

  const sessionId = randomBytes(32).toString('base64url');
  const expiresAt = new Date(t + SESSION_TTL_MS).toISOString();
  await deps.store.db
    .insertInto('seller_sessions')
    .values({
      id_hash: sha256(sessionId),
      address: fields.address,
      created_at: now.toISOString(),
      expires_at: expiresAt,
    })
    .execute();
  return { sessionId, seller: { address: fields.address, vendors, expiresAt } };
}

/** The seller of a session id, or undefined (unknown, expired, or the wallet is no longer a payout wallet). */
export async function sellerOfSession(
  deps: SellerAuthDeps,
  sessionId: string | undefined,
): Promise<SellerPrincipal | undefined> {
  if (!sessionId || sessionId.length > 128) return undefined;
  const now = deps.now().toISOString();
  const row = await deps.store.db
    .selectFrom('seller_sessions')
    .select(['address', 'expires_at'])
    .where('id_hash', '=', sha256(sessionId))
    .executeTakeFirst();
  if (!row || row.expires_at <= now) return undefined;
  const vendors = vendorsOfAddress(deps.catalog, deps.settings, row.address);
  if (vendors.length === 0) return undefined;
  return { address: row.address, vendors, expiresAt: row.expires_at };
}

export async function signOut(deps: SellerAuthDeps, sessionId: string | undefined): Promise<void> {
  if (!sessionId) return;
  await deps.store.db
    .deleteFrom('seller_sessions')
    .where((eb) =>
      eb.or([eb('id_hash', '=', sha256(sessionId)), eb('expires_at', '<=', deps.now().toISOString())]),
    )
    .execute();
}
