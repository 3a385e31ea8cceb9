/**
 * Reading a `getTransaction` answer (encoding `json`) of any transaction version we parse — legacy, 0 and 1 —
 * into the plain data payment judging uses. Our own reader, not web3.js's: it says why an answer cannot be read
 * (a version above ours, a malformed answer) and keeps what it could read (the account keys), so the watcher can
 * set such a transaction aside and still tell which order it may concern (docs/decisions/transaction-versions.md).
 *
 * The three versions give the same fields: `transaction.message` with `header` and `accountKeys` (v0: static keys
 * only; the keys loaded from lookup tables are in `meta.loadedAddresses`; v1 has no lookup tables and carries its
 * compute budget in `message.transactionConfig`, which payments do not read), and `meta` with `err` and the
 * pre/post token balances. Pure.
 */
import {
  PaymentRpcError,
  type PaymentTransaction,
  type TokenBalanceEntry,
  UnreadableTransactionError,
} from './rpc';

/** The highest transaction version this reader parses: every read declares it (maxSupportedTransactionVersion). */
export const MAX_TRANSACTION_VERSION = 1;

/** The JSON-RPC error code of a transaction whose version is above the one the request declared. */
export const UNSUPPORTED_VERSION_CODE = -32015;

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const BASE58 = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
const isKey = (v: unknown): v is string => typeof v === 'string' && BASE58.test(v);
const isCount = (v: unknown): v is number =>
  Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 255;

class Malformed extends Error {}

function keys(v: unknown, what: string): string[] {
  if (!Array.isArray(v) || !v.every(isKey)) throw new Malformed(`${what} is not a list of addresses`);
  return v;
}

function balances(v: unknown, what: string, keyCount: number): TokenBalanceEntry[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new Malformed(`${what} is not a list`);
  return v.map((b) => {
    if (!isObject(b)) throw new Malformed(`${what} has an entry that is not an object`);
    const amount = isObject(b.uiTokenAmount) ? b.uiTokenAmount.amount : undefined;
    if (
      !Number.isInteger(b.accountIndex) ||
      (b.accountIndex as number) < 0 ||
      (b.accountIndex as number) >= keyCount
    )
      throw new Malformed(`${what} names an account index outside the transaction`);
    if (!isKey(b.mint)) throw new Malformed(`${what} has an entry without a mint`);
    if (typeof amount !== 'string' || !/^\d+$/.test(amount))
      throw new Malformed(`${what} has an entry without a raw amount`);
    const owner = b.owner === undefined || b.owner === null ? null : b.owner;
    if (owner !== null && !isKey(owner)) throw new Malformed(`${what} has an entry with an unreadable owner`);
    return { accountIndex: b.accountIndex as number, mint: b.mint, owner, amount };
  });
}

/** The account keys an answer names, as far as they read (static keys, then loaded ones); [] when none do. */
function partialKeys(result: unknown): string[] {
  if (!isObject(result) || !isObject(result.transaction) || !isObject(result.transaction.message)) return [];
  const raw = result.transaction.message.accountKeys;
  const out = Array.isArray(raw) ? raw.filter(isKey) : [];
  const loaded =
    isObject(result.meta) && isObject(result.meta.loadedAddresses) ? result.meta.loadedAddresses : {};
  for (const list of [loaded.writable, loaded.readonly])
    if (Array.isArray(list)) out.push(...list.filter(isKey));
  return [...new Set(out)];
}

/**
 * The answer's `result` (null: the node does not have the transaction) read into a PaymentTransaction. Throws
 * UnreadableTransactionError (reason `unsupported_version` or `malformed`, with the keys it could read) when the
 * answer is not one we can judge.
 */
export function readTransactionAnswer(signature: string, result: unknown): PaymentTransaction | null {
  if (result === null || result === undefined) return null;
  try {
    if (!isObject(result)) throw new Malformed('the answer is not an object');
    const version = result.version;
    if (typeof version === 'number' && Number.isInteger(version) && version > MAX_TRANSACTION_VERSION)
      throw new UnreadableTransactionError(
        'unsupported_version',
        `transaction version ${version} is newer than the ${MAX_TRANSACTION_VERSION} we read`,
        partialKeys(result),
      );
    if (version !== undefined && version !== 'legacy' && version !== 0 && version !== 1)
      throw new Malformed(`unknown transaction version ${JSON.stringify(version)}`);
    if (!Number.isInteger(result.slot) || (result.slot as number) < 0) throw new Malformed('no slot');
    const blockTime = result.blockTime ?? null;
    if (blockTime !== null && !Number.isInteger(blockTime)) throw new Malformed('blockTime is not a number');
    const tx = result.transaction;
    if (!isObject(tx) || !isObject(tx.message)) throw new Malformed('no transaction message');
    const message = tx.message;
    const header = message.header;
    if (
      !isObject(header) ||
      !isCount(header.numRequiredSignatures) ||
      !isCount(header.numReadonlySignedAccounts) ||
      !isCount(header.numReadonlyUnsignedAccounts)
    )
      throw new Malformed('no message header');
    const staticKeys = keys(message.accountKeys, 'message.accountKeys');
    if (staticKeys.length === 0 || header.numRequiredSignatures > staticKeys.length)
      throw new Malformed('the header does not fit the account keys');
    const meta = result.meta;
    if (meta !== null && meta !== undefined && !isObject(meta)) throw new Malformed('meta is not an object');
    const loadedRaw = isObject(meta) ? meta.loadedAddresses : undefined;
    let loaded = { writable: [] as string[], readonly: [] as string[] };
    if (loadedRaw !== undefined && loadedRaw !== null) {
      if (!isObject(loadedRaw)) throw new Malformed('meta.loadedAddresses is not an object');
      loaded = {
        writable: keys(loadedRaw.writable ?? [], 'meta.loadedAddresses.writable'),
        readonly: keys(loadedRaw.readonly ?? [], 'meta.loadedAddresses.readonly'),
      };
    }
    // Every account key in runtime order: static keys, then loaded writable, then loaded readonly.
    const accountKeys = [...staticKeys, ...loaded.writable, ...loaded.readonly];
    // Read-only non-signers (where a Solana Pay reference sits): the static keys' last numReadonlyUnsigned, and
    // the loaded read-only ones. The same rule for every version.
    const firstReadonlyUnsigned = staticKeys.length - header.numReadonlyUnsignedAccounts;
    const referenceKeys = [
      ...staticKeys.slice(Math.max(header.numRequiredSignatures, firstReadonlyUnsigned)),
      ...loaded.readonly,
    ];
    return {
      signature,
      slot: result.slot as number,
      blockTime: blockTime as number | null,
      // A transaction without meta cannot be verified: treat it as failed rather than as paid.
      err: isObject(meta) ? (meta.err ?? null) : { missingMeta: true },
      accountKeys,
      referenceKeys,
      preTokenBalances: isObject(meta)
        ? balances(meta.preTokenBalances, 'meta.preTokenBalances', accountKeys.length)
        : [],
      postTokenBalances: isObject(meta)
        ? balances(meta.postTokenBalances, 'meta.postTokenBalances', accountKeys.length)
        : [],
    };
  } catch (err) {
    if (err instanceof Malformed)
      throw new UnreadableTransactionError(
        'malformed',
        `malformed answer: ${err.message}`,
        partialKeys(result),
      );
    throw err;
  }
}

/**
 * A whole JSON-RPC answer (the parsed body) of getTransaction: its error as PaymentRpcError (code -32015, a
 * version above ours, as UnreadableTransactionError), or its result read as above.
 */
export function readGetTransactionBody(signature: string, body: unknown): PaymentTransaction | null {
  if (!isObject(body))
    throw new UnreadableTransactionError('malformed', 'malformed answer: not a JSON-RPC object');
  if (isObject(body.error)) {
    const code = typeof body.error.code === 'number' ? body.error.code : undefined;
    const text = typeof body.error.message === 'string' ? body.error.message.slice(0, 300) : 'no message';
    if (code === UNSUPPORTED_VERSION_CODE) throw new UnreadableTransactionError('unsupported_version', text);
    throw new PaymentRpcError('getTransaction', `${code ?? 'error'}: ${text}`, { code });
  }
  if (!('result' in body)) throw new UnreadableTransactionError('malformed', 'malformed answer: no result');
  return readTransactionAnswer(signature, body.result);
}
