/**
 * Decoding a transaction as a node receives it: the wire bytes into the message, its signatures and its account
 * keys in runtime order (static keys, then the keys loaded from lookup tables), and checking its signatures.
 *
 * Three wire formats: legacy and v0 start with the signature count (compact-u16) and the signatures, then the
 * message (v0's first byte `0x80`); v1 (SIMD-0385) starts with its message (`0x81`) and ends with its signatures,
 * as many as the header requires and no count. web3.js 1.99 decodes all three but cannot serialize a v1 message,
 * so signatures are checked over the message bytes as they came.
 */
import { createPublicKey, verify } from 'node:crypto';
import bs58 from 'bs58';
import { AddressLookupTableAccount, VersionedTransaction, type MessageV1 } from '@solana/web3.js';
import type { AccountView } from './accounts.js';
import type { V1Config } from './history.js';
import { RpcError } from './rpc-error.js';

const LOOKUP_TABLE_PROGRAM = 'AddressLookupTab1e1111111111111111111111111';
/** The first byte of a v1 transaction (its message's version prefix). */
export const V1_PREFIX = 0x81;
/** Wire size limits: legacy and v0 fit a packet, v1 up to 4,096 bytes. */
export const MAX_LEGACY_TX_BYTES = 1232;
export const MAX_V1_TX_BYTES = 4096;
/** SIMD-0385's bounds on a v1 message. */
const V1_MAX_ADDRESSES = 64;
const V1_MAX_INSTRUCTIONS = 64;
const V1_MAX_SIGNATURES = 12;

export interface Decoded {
  tx: VersionedTransaction;
  bytes: Uint8Array;
  signature: string;
  accountKeys: string[];
  staticKeyCount: number;
  loaded: { writable: string[]; readonly: string[] };
  /** The signed bytes: the message as it came on the wire. */
  messageBytes: Uint8Array;
  /** A v1 message's compute budget; null for legacy and v0. */
  v1Config: V1Config | null;
}

function sanitizeFailure(): RpcError {
  return new RpcError(
    -32602,
    'invalid transaction: Transaction failed to sanitize accounts offsets correctly',
  );
}

/** Where the message starts in legacy/v0 wire bytes: after the compact-u16 signature count and the signatures. */
function messageOffset(bytes: Uint8Array, count: number): number {
  let len = 0;
  for (let i = 0; i < 3; i++) {
    const b = bytes[i] ?? 0;
    len += 1;
    if ((b & 0x80) === 0) break;
  }
  return len + 64 * count;
}

function invalidIndex(): RpcError {
  return new RpcError(-32602, 'invalid transaction: Transaction address table lookup uses an invalid index');
}

/** Decodes wire bytes; `getAccount` reads the lookup tables a v0 message names. */
export function decodeTransaction(
  bytes: Uint8Array,
  getAccount: (address: string) => AccountView | null,
): Decoded {
  let tx: VersionedTransaction;
  try {
    tx = VersionedTransaction.deserialize(bytes);
  } catch (e) {
    throw new RpcError(
      -32602,
      `failed to deserialize solana_transaction::versioned::VersionedTransaction: ${(e as Error).message}`,
    );
  }
  const msg = tx.message;
  if (msg.header.numRequiredSignatures !== tx.signatures.length || tx.signatures.length === 0)
    throw sanitizeFailure();
  let v1Config: V1Config | null = null;
  let messageBytes: Uint8Array;
  if (tx.version === 1) {
    const m = msg as MessageV1;
    if (
      m.staticAccountKeys.length > V1_MAX_ADDRESSES ||
      m.compiledInstructions.length > V1_MAX_INSTRUCTIONS ||
      tx.signatures.length > V1_MAX_SIGNATURES ||
      tx.signatures.length > m.staticAccountKeys.length
    )
      throw sanitizeFailure();
    v1Config = { ...m.transactionConfig };
    messageBytes = bytes.subarray(0, bytes.length - 64 * tx.signatures.length);
  } else {
    messageBytes = bytes.subarray(messageOffset(bytes, tx.signatures.length));
  }
  const staticKeys = msg.staticAccountKeys.map((k) => k.toBase58());
  const loaded = { writable: [] as string[], readonly: [] as string[] };
  for (const lookup of msg.addressTableLookups) {
    const table = getAccount(lookup.accountKey.toBase58());
    if (!table || table.owner !== LOOKUP_TABLE_PROGRAM) {
      throw new RpcError(
        -32602,
        "invalid transaction: Transaction loads an address table account that doesn't exist",
      );
    }
    const state = AddressLookupTableAccount.deserialize(table.data);
    for (const i of lookup.writableIndexes) {
      const k = state.addresses[i];
      if (!k) throw invalidIndex();
      loaded.writable.push(k.toBase58());
    }
    for (const i of lookup.readonlyIndexes) {
      const k = state.addresses[i];
      if (!k) throw invalidIndex();
      loaded.readonly.push(k.toBase58());
    }
  }
  const first = tx.signatures[0];
  return {
    tx,
    bytes,
    signature: bs58.encode(first ?? new Uint8Array(64)),
    accountKeys: [...staticKeys, ...loaded.writable, ...loaded.readonly],
    staticKeyCount: staticKeys.length,
    loaded,
    messageBytes,
    v1Config,
  };
}

/** The DER (SPKI) header of an ed25519 public key: the 32 key bytes follow it. */
const ED25519_SPKI_HEADER = Buffer.from('302a300506032b6570032100', 'hex');

/**
 * An ed25519 signature over `message` by the 32-byte `publicKey`, checked with Node's native ed25519 (tweetnacl's
 * pure-JavaScript check took several milliseconds a signature on a loaded machine, and every transaction sent to
 * the node is checked). A key that is not a point on the curve verifies nothing.
 */
export function ed25519Verify(message: Uint8Array, signature: Uint8Array, publicKey: Uint8Array): boolean {
  if (signature.length !== 64 || publicKey.length !== 32) return false;
  try {
    const key = createPublicKey({
      key: Buffer.concat([ED25519_SPKI_HEADER, publicKey]),
      format: 'der',
      type: 'spki',
    });
    return verify(null, message, key, signature);
  } catch {
    return false;
  }
}

/** Every signature verifies against its signer's key over the message bytes. */
export function verifySignatures(d: Decoded): boolean {
  return d.tx.signatures.every((sig, i) => {
    const key = d.tx.message.staticAccountKeys[i];
    return key !== undefined && ed25519Verify(d.messageBytes, sig, key.toBytes());
  });
}
