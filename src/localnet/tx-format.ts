/** Renders history records as getTransaction answers (encodings json and jsonParsed) and parses known instructions. */
import bs58 from 'bs58';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM, SYSTEM_PROGRAM, uiTokenAmount } from './accounts.js';
import type { CompiledIx, TxRecord } from './history.js';

const ATA_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
const MEMO_PROGRAMS = new Set([
  'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr',
  'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo',
]);

type Json = Record<string, unknown>;

function u64(d: Uint8Array, o: number): bigint {
  if (d.length < o + 8) throw new Error('short');
  return new DataView(d.buffer, d.byteOffset, d.byteLength).getBigUint64(o, true);
}
function u32(d: Uint8Array, o: number): number {
  if (d.length < o + 4) throw new Error('short');
  return new DataView(d.buffer, d.byteOffset, d.byteLength).getUint32(o, true);
}
function pk(d: Uint8Array, o: number): string {
  if (d.length < o + 32) throw new Error('short');
  return bs58.encode(d.subarray(o, o + 32));
}

function parseSystem(data: Uint8Array, a: (i: number) => string): Json | null {
  const tag = u32(data, 0);
  switch (tag) {
    case 0:
      return {
        type: 'createAccount',
        info: {
          source: a(0),
          newAccount: a(1),
          lamports: Number(u64(data, 4)),
          space: Number(u64(data, 12)),
          owner: pk(data, 20),
        },
      };
    case 1:
      return { type: 'assign', info: { account: a(0), owner: pk(data, 4) } };
    case 2:
      return { type: 'transfer', info: { source: a(0), destination: a(1), lamports: Number(u64(data, 4)) } };
    case 8:
      return { type: 'allocate', info: { account: a(0), space: Number(u64(data, 4)) } };
    default:
      return null;
  }
}

function parseToken(data: Uint8Array, a: (i: number) => string, n: number): Json | null {
  const tag = data[0];
  const optKey = (o: number): string | undefined => (data[o] === 1 ? pk(data, o + 1) : undefined);
  switch (tag) {
    case 0:
    case 20: {
      const info: Json = { mint: a(0), decimals: data[1], mintAuthority: pk(data, 2) };
      if (tag === 0) info.rentSysvar = a(1);
      const freeze = optKey(34);
      if (freeze) info.freezeAuthority = freeze;
      return { type: tag === 0 ? 'initializeMint' : 'initializeMint2', info };
    }
    case 1:
      return {
        type: 'initializeAccount',
        info: { account: a(0), mint: a(1), owner: a(2), rentSysvar: a(3) },
      };
    case 16:
      return {
        type: 'initializeAccount2',
        info: { account: a(0), mint: a(1), owner: pk(data, 1), rentSysvar: a(2) },
      };
    case 18:
      return { type: 'initializeAccount3', info: { account: a(0), mint: a(1), owner: pk(data, 1) } };
    case 3:
      return {
        type: 'transfer',
        info: { source: a(0), destination: a(1), authority: a(2), amount: u64(data, 1).toString() },
      };
    case 12:
      return {
        type: 'transferChecked',
        info: {
          source: a(0),
          mint: a(1),
          destination: a(2),
          authority: a(3),
          tokenAmount: uiTokenAmount(u64(data, 1), data[9] ?? 0),
        },
      };
    case 4:
      return {
        type: 'approve',
        info: { source: a(0), delegate: a(1), owner: a(2), amount: u64(data, 1).toString() },
      };
    case 5:
      return { type: 'revoke', info: { source: a(0), owner: a(1) } };
    case 7:
      return {
        type: 'mintTo',
        info: { mint: a(0), account: a(1), mintAuthority: a(2), amount: u64(data, 1).toString() },
      };
    case 14:
      return {
        type: 'mintToChecked',
        info: {
          mint: a(0),
          account: a(1),
          mintAuthority: a(2),
          tokenAmount: uiTokenAmount(u64(data, 1), data[9] ?? 0),
        },
      };
    case 8:
      return {
        type: 'burn',
        info: { account: a(0), mint: a(1), authority: a(2), amount: u64(data, 1).toString() },
      };
    case 15:
      return {
        type: 'burnChecked',
        info: {
          account: a(0),
          mint: a(1),
          authority: a(2),
          tokenAmount: uiTokenAmount(u64(data, 1), data[9] ?? 0),
        },
      };
    case 9:
      return { type: 'closeAccount', info: { account: a(0), destination: a(1), owner: a(2) } };
    case 17:
      return { type: 'syncNative', info: { account: a(0) } };
    case 21:
      return { type: 'getAccountDataSize', info: n > 0 ? { mint: a(0) } : {} };
    case 22:
      return { type: 'initializeImmutableOwner', info: { account: a(0) } };
    default:
      return null;
  }
}

function parseAta(data: Uint8Array, a: (i: number) => string): Json | null {
  const tag = data.length === 0 ? 0 : data[0];
  if (tag !== 0 && tag !== 1) return null;
  return {
    type: tag === 0 ? 'create' : 'createIdempotent',
    info: { source: a(0), account: a(1), wallet: a(2), mint: a(3), systemProgram: a(4), tokenProgram: a(5) },
  };
}

/** One instruction in jsonParsed form: parsed when the program is known, partially decoded otherwise. */
export function parsedInstruction(ix: CompiledIx, keys: string[]): Json {
  const programId = keys[ix.programIdIndex] ?? '';
  const accounts = ix.accounts.map((i) => keys[i] ?? '');
  const a = (i: number): string => {
    const k = accounts[i];
    if (k === undefined) throw new Error('missing account');
    return k;
  };
  const partial = { accounts, data: bs58.encode(ix.data), programId, stackHeight: ix.stackHeight };
  try {
    if (MEMO_PROGRAMS.has(programId)) {
      return {
        parsed: Buffer.from(ix.data).toString('utf8'),
        program: 'spl-memo',
        programId,
        stackHeight: ix.stackHeight,
      };
    }
    let parsed: Json | null = null;
    let program = '';
    if (programId === SYSTEM_PROGRAM) {
      parsed = parseSystem(ix.data, a);
      program = 'system';
    } else if (programId === TOKEN_PROGRAM || programId === TOKEN_2022_PROGRAM) {
      parsed = parseToken(ix.data, a, accounts.length);
      program = programId === TOKEN_PROGRAM ? 'spl-token' : 'spl-token-2022';
    } else if (programId === ATA_PROGRAM) {
      parsed = parseAta(ix.data, a);
      program = 'spl-associated-token-account';
    }
    if (parsed) return { parsed, program, programId, stackHeight: ix.stackHeight };
  } catch {
    // fall through to the partially decoded form, like the RPC does for unparseable instructions
  }
  return partial;
}

function compiledJson(ix: CompiledIx): Json {
  return {
    accounts: ix.accounts,
    data: bs58.encode(ix.data),
    programIdIndex: ix.programIdIndex,
    stackHeight: ix.stackHeight,
  };
}

export type TxEncoding = 'json' | 'jsonParsed' | 'base64' | 'base58';

/**
 * What a message's version adds to its JSON: v0 its lookups (`addressTableLookups`), v1 its compute budget
 * (`transactionConfig`, the four values or null, as web3.js 1.99 and kit read them; v1 has no lookup tables).
 */
function versionFields(r: TxRecord, message: Json): void {
  if (r.version === 0) message.addressTableLookups = r.addressTableLookups;
  if (r.version === 1)
    message.transactionConfig = r.transactionConfig ?? {
      computeUnitLimit: null,
      heapSize: null,
      loadedAccountsDataSizeLimit: null,
      priorityFee: null,
    };
}

/** getTransaction's result object for a record. `withVersion` when the client sent maxSupportedTransactionVersion. */
export function formatTransaction(r: TxRecord, encoding: TxEncoding, withVersion: boolean): Json {
  const rawBytes = r.raw;
  const parsed = encoding === 'jsonParsed';
  const meta: Json = {
    computeUnitsConsumed: r.computeUnitsConsumed,
    err: r.err,
    fee: r.fee,
    innerInstructions: r.innerInstructions.map((g) => ({
      index: g.index,
      instructions: g.instructions.map((ix) =>
        parsed ? parsedInstruction(ix, r.accountKeys) : compiledJson(ix),
      ),
    })),
    logMessages: r.logs,
    postBalances: r.postBalances,
    postTokenBalances: r.postTokenBalances,
    preBalances: r.preBalances,
    preTokenBalances: r.preTokenBalances,
    rewards: [],
    status: r.err === null ? { Ok: null } : { Err: r.err },
  };
  // A real node lists the addresses loaded from lookup tables in `json` and binary encodings only; in jsonParsed
  // they are the accountKeys with source `lookupTable`, and meta has no loadedAddresses.
  if (!parsed) meta.loadedAddresses = r.loadedAddresses;
  let transaction: unknown;
  if ((encoding === 'base64' || encoding === 'base58') && rawBytes) {
    transaction =
      encoding === 'base64'
        ? [Buffer.from(rawBytes).toString('base64'), 'base64']
        : [bs58.encode(rawBytes), 'base58'];
  } else if (parsed) {
    const message: Json = {
      accountKeys: r.accountKeys.map((pubkey, i) => ({
        pubkey,
        signer: r.signer[i] ?? false,
        source: i < r.staticKeyCount ? 'transaction' : 'lookupTable',
        writable: r.writable[i] ?? false,
      })),
      instructions: r.instructions.map((ix) => parsedInstruction(ix, r.accountKeys)),
      recentBlockhash: r.recentBlockhash,
    };
    versionFields(r, message);
    transaction = { message, signatures: r.signatures };
  } else {
    const message: Json = {
      accountKeys: r.accountKeys.slice(0, r.staticKeyCount),
      header: r.header,
      instructions: r.instructions.map(compiledJson),
      recentBlockhash: r.recentBlockhash,
    };
    versionFields(r, message);
    transaction = { message, signatures: r.signatures };
  }
  const out: Json = { blockTime: r.blockTime, meta, slot: r.slot, transaction };
  if (withVersion) out.version = r.version;
  return out;
}
