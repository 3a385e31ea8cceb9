/**
 * Decoding a transaction as a node receives it: the wire bytes into the message, its signatures and its account
 * keys in runtime order (static keys, then the keys loaded from lookup tables), and checking its signatures.
 *
 * Three wire formats: legacy and v0 start with the signature count (compact-u16) and the signatures, then the
 * message (v0's first byte `0x80`); v1 (SIMD-0385) starts with its message (`0x81`) and ends with its signatures,
 * as many as the header requires and no count. The envelope is split here, the message decoded by kit's
 * compiled-message decoder (legacy, v0 and v1), and signatures are checked over the message bytes as they came.
 */
import { createPublicKey, verify } from 'node:crypto';
import bs58 from 'bs58';
import {
  fixDecoderSize,
  getAddressDecoder,
  getArrayDecoder,
  getBytesDecoder,
  getCompiledTransactionMessageDecoder,
  getShortU16Decoder,
  transactionConfigMaskHasComputeUnitLimit,
  transactionConfigMaskHasHeapSize,
  transactionConfigMaskHasLoadedAccountsDataSizeLimit,
  transactionConfigMaskHasPriorityFee,
  type CompiledTransactionMessage,
} from '@solana/kit';
import type { AccountView } from './accounts.js';
import { addressBytes } from './address.js';
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

/** The message header in the names of the RPC's JSON (`message.header`). */
export interface MessageHeader {
  numRequiredSignatures: number;
  numReadonlySignedAccounts: number;
  numReadonlyUnsignedAccounts: number;
}

export interface CompiledInstruction {
  programIdIndex: number;
  accountKeyIndexes: number[];
  data: Uint8Array;
}

export interface Decoded {
  version: 'legacy' | 0 | 1;
  signatures: Uint8Array[];
  header: MessageHeader;
  recentBlockhash: string;
  /** The static account keys (signers first). */
  staticKeys: string[];
  instructions: CompiledInstruction[];
  addressTableLookups: { accountKey: string; writableIndexes: number[]; readonlyIndexes: number[] }[];
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

function invalidIndex(): RpcError {
  return new RpcError(-32602, 'invalid transaction: Transaction address table lookup uses an invalid index');
}

const shortU16 = getShortU16Decoder();
const signatureList = (size: number) => getArrayDecoder(fixDecoderSize(getBytesDecoder(), 64), { size });
const messageDecoder = getCompiledTransactionMessageDecoder();
const addressDecoder = getAddressDecoder();

/** An address lookup table account's addresses: a 56-byte header, then 32-byte keys. */
const LOOKUP_TABLE_META_SIZE = 56;
function lookupTableAddresses(data: Uint8Array): string[] {
  const out: string[] = [];
  for (let o = LOOKUP_TABLE_META_SIZE; o + 32 <= data.length; o += 32)
    out.push(addressDecoder.decode(data.subarray(o, o + 32)));
  return out;
}

/** A v1 message's config values, by its mask (priority fee, compute unit limit, loaded data limit, heap size). */
function v1ConfigOf(mask: number, values: readonly { value: number | bigint }[]): V1Config {
  const config: V1Config = {
    computeUnitLimit: null,
    heapSize: null,
    loadedAccountsDataSizeLimit: null,
    priorityFee: null,
  };
  let i = 0;
  const next = (): number => Number(values[i++]?.value ?? 0);
  if (transactionConfigMaskHasPriorityFee(mask)) config.priorityFee = next();
  if (transactionConfigMaskHasComputeUnitLimit(mask)) config.computeUnitLimit = next();
  if (transactionConfigMaskHasLoadedAccountsDataSizeLimit(mask)) config.loadedAccountsDataSizeLimit = next();
  if (transactionConfigMaskHasHeapSize(mask)) config.heapSize = next();
  return config;
}

interface Envelope {
  signatures: Uint8Array[];
  messageBytes: Uint8Array;
  message: CompiledTransactionMessage;
}

/** Splits the wire bytes into signatures and message and decodes the message; throws on malformed bytes. */
function readEnvelope(bytes: Uint8Array): Envelope {
  if (bytes.length === 0) throw new Error('empty transaction bytes');
  if (bytes[0] === V1_PREFIX) {
    if (bytes.length < 2) throw new Error('truncated v1 message');
    const count = bytes[1] ?? 0;
    const messageBytes = bytes.subarray(0, bytes.length - 64 * count);
    if (bytes.length < 64 * count) throw new Error('fewer bytes than the signatures the header requires');
    const [message, end] = messageDecoder.read(messageBytes, 0);
    if (end !== messageBytes.length)
      throw new Error('Expected no bytes to remain after deserializing a version 1 message');
    const signatures = signatureList(count).decode(bytes, messageBytes.length);
    return { signatures: signatures.map((sig) => new Uint8Array(sig)), messageBytes, message };
  }
  const [count, afterCount] = shortU16.read(bytes, 0);
  const [signatures, afterSignatures] = signatureList(count).read(bytes, afterCount);
  const messageBytes = bytes.subarray(afterSignatures);
  const message = messageDecoder.decode(messageBytes);
  if (message.version !== 'legacy' && message.version !== 0)
    throw new Error(`unsupported message version ${String(message.version)} after the signatures`);
  return { signatures: signatures.map((sig) => new Uint8Array(sig)), messageBytes, message };
}

/** Decodes wire bytes; `getAccount` reads the lookup tables a v0 message names. */
export function decodeTransaction(
  bytes: Uint8Array,
  getAccount: (address: string) => AccountView | null,
): Decoded {
  let envelope: Envelope;
  try {
    envelope = readEnvelope(bytes);
  } catch (e) {
    throw new RpcError(
      -32602,
      `failed to deserialize solana_transaction::versioned::VersionedTransaction: ${(e as Error).message}`,
    );
  }
  const { signatures, messageBytes, message: msg } = envelope;
  const header: MessageHeader = {
    numRequiredSignatures: msg.header.numSignerAccounts,
    numReadonlySignedAccounts: msg.header.numReadonlySignerAccounts,
    numReadonlyUnsignedAccounts: msg.header.numReadonlyNonSignerAccounts,
  };
  if (header.numRequiredSignatures !== signatures.length || signatures.length === 0) throw sanitizeFailure();
  const staticKeys: string[] = [...msg.staticAccounts];
  let v1Config: V1Config | null = null;
  let instructions: CompiledInstruction[];
  let lookups: Decoded['addressTableLookups'] = [];
  if (msg.version === 1) {
    if (
      staticKeys.length > V1_MAX_ADDRESSES ||
      msg.instructionHeaders.length > V1_MAX_INSTRUCTIONS ||
      signatures.length > V1_MAX_SIGNATURES ||
      signatures.length > staticKeys.length
    )
      throw sanitizeFailure();
    v1Config = v1ConfigOf(msg.configMask, msg.configValues);
    instructions = msg.instructionHeaders.map((h, i) => ({
      programIdIndex: h.programAccountIndex,
      accountKeyIndexes: [...(msg.instructionPayloads[i]?.instructionAccountIndices ?? [])],
      data: new Uint8Array(msg.instructionPayloads[i]?.instructionData ?? new Uint8Array(0)),
    }));
  } else {
    instructions = msg.instructions.map((ix) => ({
      programIdIndex: ix.programAddressIndex,
      accountKeyIndexes: [...(ix.accountIndices ?? [])],
      data: new Uint8Array(ix.data ?? new Uint8Array(0)),
    }));
    if (msg.version === 0)
      lookups = (msg.addressTableLookups ?? []).map((l) => ({
        accountKey: l.lookupTableAddress,
        writableIndexes: [...l.writableIndexes],
        readonlyIndexes: [...l.readonlyIndexes],
      }));
  }
  const loaded = { writable: [] as string[], readonly: [] as string[] };
  for (const lookup of lookups) {
    const table = getAccount(lookup.accountKey);
    if (!table || table.owner !== LOOKUP_TABLE_PROGRAM) {
      throw new RpcError(
        -32602,
        "invalid transaction: Transaction loads an address table account that doesn't exist",
      );
    }
    const addresses = lookupTableAddresses(table.data);
    for (const i of lookup.writableIndexes) {
      const k = addresses[i];
      if (k === undefined) throw invalidIndex();
      loaded.writable.push(k);
    }
    for (const i of lookup.readonlyIndexes) {
      const k = addresses[i];
      if (k === undefined) throw invalidIndex();
      loaded.readonly.push(k);
    }
  }
  const first = signatures[0];
  return {
    version: msg.version,
    signatures,
    header,
    recentBlockhash: (msg as unknown as { lifetimeToken: string }).lifetimeToken, // v1's too (its type omits it)
    staticKeys,
    instructions,
    addressTableLookups: lookups,
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
  return d.signatures.every((sig, i) => {
    const key = d.staticKeys[i];
    return key !== undefined && ed25519Verify(d.messageBytes, sig, addressBytes(key));
  });
}
