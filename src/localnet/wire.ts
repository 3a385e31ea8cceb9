/**
 * Decoding a transaction as a node receives it: the wire bytes into the message, its signatures and its account
 * keys in runtime order (static keys, then the keys loaded from lookup tables), and checking its signatures.
 */
import bs58 from 'bs58';
import nacl from 'tweetnacl';
import { AddressLookupTableAccount, VersionedTransaction } from '@solana/web3.js';
import type { AccountView } from './accounts.js';
import { RpcError } from './rpc-error.js';

const LOOKUP_TABLE_PROGRAM = 'AddressLookupTab1e1111111111111111111111111';

export interface Decoded {
  tx: VersionedTransaction;
  bytes: Uint8Array;
  signature: string;
  accountKeys: string[];
  staticKeyCount: number;
  loaded: { writable: string[]; readonly: string[] };
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
  if (msg.header.numRequiredSignatures !== tx.signatures.length || tx.signatures.length === 0) {
    throw new RpcError(
      -32602,
      'invalid transaction: Transaction failed to sanitize accounts offsets correctly',
    );
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
  };
}

/** Every signature verifies against its signer's key over the message bytes. */
export function verifySignatures(d: Decoded): boolean {
  const message = d.tx.message.serialize();
  return d.tx.signatures.every((sig, i) => {
    const key = d.tx.message.staticAccountKeys[i];
    return key !== undefined && nacl.sign.detached.verify(message, sig, key.toBytes());
  });
}
