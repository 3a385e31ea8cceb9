/**
 * Sealing personal data at rest: every personal value (a buyer's shipping details, an e-mail body that quotes
 * them, a recipient address, a seller's note) is encrypted before it reaches the store, with AES-256-GCM (Node's
 * crypto), a random 12-byte nonce per value and associated data binding the value to its order and field, so a
 * sealed value copied onto another order (or into another field) is refused instead of read.
 *
 * Text form (fits the existing text columns, recognisable by its prefix, plain JSON never starts with it):
 *
 *   sealed:v1:<key id>:<base64url(nonce ‖ ciphertext ‖ tag)>
 *
 * Associated data: `claim-store/sealed/v1|<key id>|<order id>|<field>`.
 *
 * Keys (DATA_KEYS, parsed in settings/privacy.ts): one or more 32-byte keys with ids; the first seals, every one opens,
 * so a key can be rotated (npm run keys:rotate re-seals under the first) and the old one dropped afterwards.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

export interface DataKey {
  /** 1–32 characters of [A-Za-z0-9_-]; written in every sealed value. */
  id: string;
  /** 32 bytes. */
  key: Buffer;
}

export const SEALED_PREFIX = 'sealed:v1:';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
export const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/** A sealed value that cannot be opened: unknown key, tampered, moved to another order or field, malformed. */
export class UnreadableSealError extends Error {
  override name = 'UnreadableSealError';
  constructor(readonly reason: 'unknown_key' | 'tampered' | 'malformed') {
    // No value, order or key material in the message: it may be logged.
    super(`A sealed value could not be opened (${reason}).`);
  }
}

/** What a field is: the associated data names it, so a value sealed for one field opens only there. */
export type SealedField =
  | 'shipping'
  | 'outbox.recipient'
  | 'outbox.payload'
  | 'outbox.error'
  | 'action.detail'
  | 'idempotency.request'
  /** A vendor's webhook signing secret (bound to the endpoint id) and a delivery's body (bound to its id). */
  | 'webhook.secret'
  | 'webhook.payload';

export interface Sealer {
  /** The id of the key that seals (the first of DATA_KEYS). */
  readonly currentKeyId: string;
  readonly keyIds: readonly string[];
  seal(plain: string, orderId: string, field: SealedField): string;
  /**
   * Opens a sealed value; throws UnreadableSealError when it is not genuine for this order and field, and when it
   * is not sealed at all: a plain value in a sealed column is unreadable, never taken as written (issue 28).
   */
  open(sealed: string, orderId: string, field: SealedField): string;
}

export function isSealed(text: string | null | undefined): text is string {
  return typeof text === 'string' && text.startsWith(SEALED_PREFIX);
}

/** The key id a sealed value names (undefined for plain text). */
export function sealedKeyId(text: string): string | undefined {
  if (!isSealed(text)) return undefined;
  const rest = text.slice(SEALED_PREFIX.length);
  const colon = rest.indexOf(':');
  return colon > 0 ? rest.slice(0, colon) : undefined;
}

function aad(keyId: string, orderId: string, field: SealedField): Buffer {
  return Buffer.from(`claim-store/sealed/v1|${keyId}|${orderId}|${field}`, 'utf8');
}

export function createSealer(keys: readonly DataKey[]): Sealer {
  if (keys.length === 0) throw new Error('createSealer: at least one data key is needed');
  const byId = new Map<string, Buffer>();
  for (const k of keys) {
    if (!KEY_ID.test(k.id)) throw new Error('createSealer: a key id must be 1–32 of A-Z a-z 0-9 _ -');
    if (k.key.length !== 32) throw new Error('createSealer: a data key must be 32 bytes');
    if (byId.has(k.id)) throw new Error('createSealer: two data keys have the same id');
    byId.set(k.id, k.key);
  }
  const current = keys[0] as DataKey;

  function open(sealed: string, orderId: string, field: SealedField): string {
    if (!isSealed(sealed)) throw new UnreadableSealError('malformed');
    const rest = sealed.slice(SEALED_PREFIX.length);
    const colon = rest.indexOf(':');
    if (colon <= 0) throw new UnreadableSealError('malformed');
    const keyId = rest.slice(0, colon);
    const key = byId.get(keyId);
    if (!key) throw new UnreadableSealError('unknown_key');
    const body = rest.slice(colon + 1);
    if (!/^[A-Za-z0-9_-]+$/.test(body)) throw new UnreadableSealError('malformed');
    const raw = Buffer.from(body, 'base64url');
    if (raw.length < NONCE_BYTES + TAG_BYTES) throw new UnreadableSealError('malformed');
    const nonce = raw.subarray(0, NONCE_BYTES);
    const tag = raw.subarray(raw.length - TAG_BYTES);
    const data = raw.subarray(NONCE_BYTES, raw.length - TAG_BYTES);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
      decipher.setAAD(aad(keyId, orderId, field));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
    } catch {
      throw new UnreadableSealError('tampered');
    }
  }

  return {
    currentKeyId: current.id,
    keyIds: keys.map((k) => k.id),
    seal(plain, orderId, field) {
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv('aes-256-gcm', current.key, nonce, { authTagLength: TAG_BYTES });
      cipher.setAAD(aad(current.id, orderId, field));
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      const out = Buffer.concat([nonce, data, cipher.getAuthTag()]).toString('base64url');
      return `${SEALED_PREFIX}${current.id}:${out}`;
    },
    open,
  };
}

/**
 * Demo mode's key: derived from a fixed label, so a demo store reopens with the same key after a restart. It
 * protects nothing (the label is public): production refuses to start without DATA_KEYS.
 */
export function demoDataKey(): DataKey {
  return {
    id: 'demo',
    key: createHash('sha256').update('claim-storefront demo data key (demo mode only)').digest(),
  };
}

/**
 * Parses DATA_KEYS: `id:base64key[,id:base64key…]`, each key exactly 32 bytes (standard or URL-safe base64).
 * Returns the keys, or the problems (never quoting a key).
 */
export function parseDataKeys(raw: string): { keys: DataKey[]; problems: string[] } {
  const keys: DataKey[] = [];
  const problems: string[] = [];
  const parts = raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (parts.length === 0) problems.push('DATA_KEYS: give at least one key as id:base64 (32 bytes)');
  parts.forEach((part, n) => {
    const colon = part.indexOf(':');
    const id = colon > 0 ? part.slice(0, colon) : '';
    const b64 = colon > 0 ? part.slice(colon + 1) : '';
    if (!KEY_ID.test(id)) {
      problems.push(`DATA_KEYS: key ${n + 1} needs an id of 1–32 letters, digits, _ or - before a colon`);
      return;
    }
    if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(b64)) {
      problems.push(`DATA_KEYS: key '${id}' is not base64`);
      return;
    }
    const key = Buffer.from(b64.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (key.length !== 32) {
      problems.push(`DATA_KEYS: key '${id}' must be 32 bytes (44 base64 characters), got ${key.length}`);
      return;
    }
    if (keys.some((k) => k.id === id)) {
      problems.push(`DATA_KEYS: the id '${id}' is given twice`);
      return;
    }
    keys.push({ id, key });
  });
  return { keys, problems };
}
