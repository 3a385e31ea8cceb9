/**
 * Sign-In-With-Solana for the seller console, and its sessions. Everything lives in the store so several
 * instances agree: a nonce is issued into `seller_nonces` with the whole request issued for it, and consumed by
 * deleting it (one DELETE decides, so it is used at most once even when two instances race); a session is a
 * random id whose SHA-256 is the key of `seller_sessions` (the cookie is the only copy of the id).
 *
 * A sign-in is accepted when, in this order: the text is a standard sign-in message (the Wallet Standard's
 * parser: `Resources:` and trailing newlines allowed), the ed25519 signature is the named address's over exactly
 * the signed bytes, its nonce is one we issued, every field equals the one issued for that nonce (domain,
 * statement, URI, version 1, this cluster's chain id, nonce, issued-at, expiration, not-before, request id,
 * resources — the Wallet Standard's `verifySignIn` then agrees), the request has not expired, the address is a
 * vendor's payout address, and the nonce was not used yet. Each refusal names what was wrong.
 */
import { createHash, randomBytes } from 'node:crypto';
import { deriveSignInMessageText, verifyMessageSignature, verifySignIn } from '@solana/wallet-standard-util';
import bs58 from 'bs58';
import type { Catalog, Vendor } from '../../core/catalog';
import type { SellerSession } from '../../core/seller-api';
import {
  canonicalSiwsText,
  formatSiwsMessage,
  parseSiwsMessage,
  SIWS_FIELDS,
  SiwsParseError,
  type SiwsFields,
  type SiwsRequest,
} from '../../core/siws';
import type { Settings } from '../settings';
import type { Store } from '../store/store';
import { DomainError } from '../../core/errors';
import { NOT_A_SELLER } from './errors';
import { vendorsOfAddress } from './vendors';

export const NONCE_TTL_MS = 5 * 60_000;
export const SESSION_TTL_MS = 8 * 60 * 60_000;
/** Clock difference tolerated between the wallet's clock and ours for Not Before. */
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
  /** The session's handle (the SHA-256 of its id, never the id). */
  session: string;
}

/** The Sign-In-With-Solana chain id of a cluster (the Wallet Standard's `solana:<cluster>` names). */
export function chainIdOf(cluster: Settings['solana']['cluster']): string {
  return cluster === 'mainnet-beta' ? 'mainnet' : cluster;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Issues a nonce and the SIWS fields the wallet signs (the address is the wallet's); stores them per nonce. */
export async function issueSignInRequest(
  deps: SellerAuthDeps,
  origin: { domain: string; uri: string },
): Promise<SiwsRequest> {
  const now = deps.now();
  const nonce = bs58.encode(randomBytes(16));
  const request: SiwsRequest = {
    domain: origin.domain,
    statement: SIWS_STATEMENT,
    uri: origin.uri,
    version: '1',
    chainId: chainIdOf(deps.settings.solana.cluster),
    nonce,
    issuedAt: now.toISOString(),
    expirationTime: new Date(now.getTime() + NONCE_TTL_MS).toISOString(),
    // What the sign-in opens, shown by wallets that display resources.
    resources: [`${origin.uri}/seller`],
  };
  await deps.store.db
    .insertInto('seller_nonces')
    .values({ nonce, issued_at: request.issuedAt, request_json: JSON.stringify(request) })
    .execute();
  return request;
}

export interface SignInProof {
  /** The exact signed text (UTF-8). */
  message: string;
  /** The ed25519 signature over it. */
  signature: Uint8Array;
}

const refuse = (code: string, message: string, field?: string) =>
  new DomainError('unauthenticated', code, message, field ? { field } : {});

const STALE = 'This sign-in request has expired. Please sign in again.';
const NOT_ISSUED =
  'This sign-in request was not issued by this site, was already used or has expired. Please sign in again.';

/** The first field of a signed message that differs from the issued request, as a refusal; undefined if none. */
export function fieldRefusal(issued: SiwsRequest, signed: SiwsFields): DomainError | undefined {
  if (signed.domain !== issued.domain)
    return refuse(
      'wrong_domain',
      `This sign-in message is for ${signed.domain}, not for this site.`,
      'domain',
    );
  for (const [key, label] of SIWS_FIELDS) {
    const want = issued[key];
    const got = signed[key];
    if (JSON.stringify(want) === JSON.stringify(got)) continue;
    const what = key === 'statement' ? 'statement' : `${label}`;
    let message: string;
    if (got === undefined) message = `The signed message has no ${what}; this site asked for ${show(want)}.`;
    else if (want === undefined) message = `The signed message has a ${what} this site did not ask for.`;
    else message = `The signed message's ${what} is ${show(got)}; this site asked for ${show(want)}.`;
    return refuse('changed_field', message, key);
  }
  return undefined;
}

function show(v: string | string[] | undefined): string {
  if (Array.isArray(v)) return v.length ? v.map((r) => `'${r}'`).join(', ') : 'none';
  return `'${String(v).slice(0, 80)}'`;
}

function publicKeyOf(address: string): Uint8Array | undefined {
  try {
    const key = bs58.decode(address);
    return key.length === 32 ? key : undefined;
  } catch {
    return undefined;
  }
}

/** The ed25519 signature of the address over exactly the signed bytes. */
function signatureValid(address: string, signedText: string, signature: Uint8Array): boolean {
  const publicKey = publicKeyOf(address);
  if (!publicKey || signature.length !== 64) return false;
  const bytes = new TextEncoder().encode(signedText);
  try {
    return verifyMessageSignature({ message: bytes, signedMessage: bytes, signature, publicKey });
  } catch {
    return false;
  }
}

/** The Wallet Standard's own verdict on a signed sign-in for the issued request (its `verifySignIn`). */
function standardVerdict(
  issued: SiwsRequest,
  address: string,
  signedText: string,
  signature: Uint8Array,
): boolean {
  const publicKey = publicKeyOf(address);
  if (!publicKey) return false;
  const signedMessage = new TextEncoder().encode(signedText);
  const input = { ...issued, address };
  const output = { account: { address, publicKey, chains: [], features: [] }, signedMessage, signature };
  if (signedText === canonicalSiwsText(signedText)) return verifySignIn(input, output);
  // Trailing newlines, which the standard's parser accepts: the same field-by-field check, and the signature
  // over the bytes as signed (verifySignIn compares them with the text rebuilt without the newlines).
  return deriveSignInMessageText(input, output) !== null && signatureValid(address, signedText, signature);
}

/**
 * Checks a signed SIWS message against the request issued for its nonce; on success starts a session (and ends
 * the session it replaces: the browser's earlier one, `replacing`). Returns the session id (cookie value).
 */
export async function signIn(
  deps: SellerAuthDeps,
  proof: SignInProof,
  options: { replacing?: string | undefined; device?: string | undefined } = {},
): Promise<{ sessionId: string; seller: SellerPrincipal }> {
  let fields: SiwsFields;
  try {
    fields = parseSiwsMessage(proof.message);
  } catch (err) {
    if (err instanceof SiwsParseError)
      throw new DomainError('invalid', 'invalid_message', `That is not a sign-in message: ${err.message}.`);
    throw err;
  }
  if (formatSiwsMessage(fields) !== canonicalSiwsText(proof.message))
    throw new DomainError(
      'invalid',
      'invalid_message',
      'That is not a sign-in message in the standard layout.',
    );
  if (!signatureValid(fields.address, proof.message, proof.signature))
    throw refuse('bad_signature', 'The signature does not match the wallet.');

  if (!fields.nonce) throw refuse('changed_field', 'The signed message has no Nonce.', 'nonce');
  const row = await deps.store.db
    .selectFrom('seller_nonces')
    .select(['issued_at', 'request_json'])
    .where('nonce', '=', fields.nonce)
    .executeTakeFirst();
  if (!row?.request_json) throw refuse('nonce_used', NOT_ISSUED);
  const issued = JSON.parse(row.request_json) as SiwsRequest;
  const changed = fieldRefusal(issued, fields);
  if (changed) throw changed;
  // Belt and braces: the Wallet Standard's verifier agrees (the checks above give the reason when it does not).
  if (!standardVerdict(issued, fields.address, proof.message, proof.signature))
    throw refuse('bad_signature', 'The signed message does not verify as the sign-in this site issued.');

  const now = deps.now();
  const t = now.getTime();
  if (t - Date.parse(row.issued_at) > NONCE_TTL_MS || Date.parse(issued.expirationTime) <= t)
    throw refuse('expired_request', STALE);
  if (issued.notBefore && Date.parse(issued.notBefore) > t + CLOCK_SKEW_MS)
    throw refuse('expired_request', 'This sign-in request is not valid yet.');

  const vendors = vendorsOfAddress(deps.catalog, deps.settings, fields.address);
  if (vendors.length === 0) throw new DomainError('forbidden', 'not_a_seller', NOT_A_SELLER);

  // Single use: the DELETE that removes the nonce is the one sign-in that gets it.
  const used = await deps.store.db
    .deleteFrom('seller_nonces')
    .where('nonce', '=', fields.nonce)
    .executeTakeFirst();
  if (Number(used.numDeletedRows) !== 1) throw refuse('nonce_used', NOT_ISSUED);

  const sessionId = randomBytes(32).toString('base64url');
  const expiresAt = new Date(t + SESSION_TTL_MS).toISOString();
  await deps.store.db.transaction().execute(async (tx) => {
    // Signing in again in the same browser ends the session it replaces (other devices' sessions stay, listed in
    // the console, where the seller can end them).
    if (options.replacing && options.replacing.length <= 128)
      await tx.deleteFrom('seller_sessions').where('id_hash', '=', sha256(options.replacing)).execute();
    await tx
      .insertInto('seller_sessions')
      .values({
        id_hash: sha256(sessionId),
        address: fields.address,
        created_at: now.toISOString(),
        expires_at: expiresAt,
        device: options.device ?? null,
      })
      .execute();
  });
  return { sessionId, seller: { address: fields.address, vendors, expiresAt, session: sha256(sessionId) } };
}

/** The seller of a session id, or undefined (unknown, expired, or the wallet is no longer a payout wallet). */
export async function sellerOfSession(
  deps: SellerAuthDeps,
  sessionId: string | undefined,
): Promise<SellerPrincipal | undefined> {
  if (!sessionId || sessionId.length > 128) return undefined;
  const now = deps.now().toISOString();
  const handle = sha256(sessionId);
  const row = await deps.store.db
    .selectFrom('seller_sessions')
    .select(['address', 'expires_at'])
    .where('id_hash', '=', handle)
    .executeTakeFirst();
  if (!row || row.expires_at <= now) return undefined;
  const vendors = vendorsOfAddress(deps.catalog, deps.settings, row.address);
  if (vendors.length === 0) return undefined;
  return { address: row.address, vendors, expiresAt: row.expires_at, session: handle };
}

export async function signOut(deps: SellerAuthDeps, sessionId: string | undefined): Promise<void> {
  if (!sessionId || sessionId.length > 128) return;
  await deps.store.db.deleteFrom('seller_sessions').where('id_hash', '=', sha256(sessionId)).execute();
}

/** The wallet's open sessions, newest first; `current` marks the one asking. */
export async function listSessions(deps: SellerAuthDeps, seller: SellerPrincipal): Promise<SellerSession[]> {
  const rows = await deps.store.db
    .selectFrom('seller_sessions')
    .select(['id_hash', 'created_at', 'expires_at', 'device'])
    .where('address', '=', seller.address)
    .where('expires_at', '>', deps.now().toISOString())
    .orderBy('created_at', 'desc')
    .orderBy('id_hash')
    .execute();
  return rows.map((r) => ({
    id: r.id_hash,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    device: r.device,
    current: r.id_hash === seller.session,
  }));
}

/** Ends one of the wallet's sessions by its handle (another wallet's is not found). */
export async function endSession(deps: SellerAuthDeps, seller: SellerPrincipal, id: string): Promise<void> {
  const r = await deps.store.db
    .deleteFrom('seller_sessions')
    .where('id_hash', '=', id)
    .where('address', '=', seller.address)
    .executeTakeFirst();
  if (Number(r.numDeletedRows) !== 1)
    throw new DomainError('not_found', 'no_such_session', 'That session has already ended.');
}

/** Ends every session of the wallet except the one asking. Returns how many ended. */
export async function endOtherSessions(deps: SellerAuthDeps, seller: SellerPrincipal): Promise<number> {
  const r = await deps.store.db
    .deleteFrom('seller_sessions')
    .where('address', '=', seller.address)
    .where('id_hash', '!=', seller.session)
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** Deletes expired sessions and nonces nobody used in time (run on a schedule; indexed deletes). */
export async function purgeExpiredSignIns(deps: Pick<SellerAuthDeps, 'store' | 'now'>): Promise<{
  sessions: number;
  nonces: number;
}> {
  const now = deps.now();
  const sessions = await deps.store.db
    .deleteFrom('seller_sessions')
    .where('expires_at', '<=', now.toISOString())
    .executeTakeFirst();
  const nonces = await deps.store.db
    .deleteFrom('seller_nonces')
    .where('issued_at', '<', new Date(now.getTime() - NONCE_TTL_MS).toISOString())
    .executeTakeFirst();
  return { sessions: Number(sessions.numDeletedRows), nonces: Number(nonces.numDeletedRows) };
}
