/** Solana JSON-RPC methods answered by the localnet, with the real request and response shapes. */
import bs58 from 'bs58';
import { PublicKey, VersionedMessage } from '@solana/web3.js';
import {
  RpcParamError,
  encodeAccount,
  isTokenProgram,
  parseEncoding,
  parseMint,
  parseTokenAccount,
  uiTokenAmount,
  type AccountView,
  type DataSlice,
  type Encoding,
} from './accounts.js';
import { Chain, RpcError, type Commitment } from './chain.js';
import type { TxRecord } from './history.js';
import { blockNotAvailable, formatBlock, maxSupportedVersion, type TransactionDetails } from './block.js';
import { formatTransaction, parsedInstruction, type TxEncoding } from './tx-format.js';

export const API_VERSION = '2.2.7';
const MAX_TX_BYTES = 1232;

export interface RpcContext {
  chain: Chain;
  /** Airdrops lamports to an address (a real system transfer from the faucet); returns the signature. */
  airdrop(address: PublicKey, lamports: bigint): string;
  identity: string;
}

type Params = unknown[];
type Handler = (params: Params, ctx: RpcContext) => unknown;
type Config = Record<string, unknown>;

const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
/** Solana answers for the last 150 slots (its prioritization-fee cache). */
const PRIORITIZATION_FEE_SLOTS = 150;

/** The compute-unit price a landed transaction set (ComputeBudget SetComputeUnitPrice, tag 3), else 0. */
function computeUnitPriceOf(tx: TxRecord): bigint {
  for (const ix of tx.instructions) {
    if (tx.accountKeys[ix.programIdIndex] !== COMPUTE_BUDGET_PROGRAM) continue;
    if (ix.data.length >= 9 && ix.data[0] === 3)
      return new DataView(ix.data.buffer, ix.data.byteOffset + 1, 8).getBigUint64(0, true);
  }
  return 0n;
}

/**
 * getRecentPrioritizationFees([addresses?]): one entry per recent slot (oldest first), `prioritizationFee` = the
 * lowest compute-unit price among the slot's successful transactions (those write-locking one of `addresses` when
 * given), raised to the chain's background level (`Chain.prioritizationFeeFloor`). As on Solana: at most 128
 * addresses, and a slot with no such transaction reports the background level.
 */
function recentPrioritizationFees(p: Params, ctx: RpcContext): { slot: number; prioritizationFee: number }[] {
  const raw = p[0] ?? [];
  if (!Array.isArray(raw) || raw.some((a) => typeof a !== 'string'))
    throw invalid('Invalid params: expected an array of base-58 addresses.');
  if (raw.length > 128) throw invalid('Too many inputs provided; max 128');
  for (const a of raw as string[]) pubkey(a);
  const wanted = new Set(raw as string[]);
  const floor = BigInt(Math.max(0, Math.floor(ctx.chain.prioritizationFeeFloor)));
  const last = ctx.chain.slot;
  const out: { slot: number; prioritizationFee: number }[] = [];
  for (let slot = Math.max(0, last - PRIORITIZATION_FEE_SLOTS + 1); slot <= last; slot++) {
    let lowest: bigint | null = null;
    for (const tx of ctx.chain.history.inSlot(slot)) {
      if (tx.err !== null) continue;
      if (wanted.size > 0 && !tx.accountKeys.some((k, i) => tx.writable[i] === true && wanted.has(k)))
        continue;
      const price = computeUnitPriceOf(tx);
      if (lowest === null || price < lowest) lowest = price;
    }
    const fee = lowest !== null && lowest > floor ? lowest : floor;
    out.push({ slot, prioritizationFee: Number(fee) });
  }
  return out;
}

function invalid(message: string): RpcError {
  return new RpcError(-32602, message);
}

function config(params: Params, i: number): Config {
  const c = params[i];
  if (c === undefined || c === null) return {};
  if (typeof c !== 'object' || Array.isArray(c))
    throw invalid(`Invalid params: invalid type: expected a config map at position ${i}.`);
  return c as Config;
}

function str(params: Params, i: number, what: string): string {
  const v = params[i];
  if (typeof v !== 'string') throw invalid(`Invalid params: expected a string (${what}) at position ${i}.`);
  return v;
}

function pubkey(v: unknown): PublicKey {
  if (typeof v !== 'string') throw invalid('Invalid param: Invalid');
  try {
    const k = new PublicKey(v);
    if (k.toBase58() !== v) throw new Error('non-canonical');
    return k;
  } catch {
    throw invalid('Invalid param: Invalid');
  }
}

function commitment(c: Config): Commitment {
  const v = c.commitment;
  if (v === undefined || v === null) return 'finalized';
  switch (v) {
    case 'processed':
    case 'recent':
      return 'processed';
    case 'confirmed':
    case 'single':
    case 'singleGossip':
      return 'confirmed';
    case 'finalized':
    case 'max':
    case 'root':
      return 'finalized';
    default:
      throw invalid(
        `Invalid params: unknown variant \`${String(v)}\`, expected one of \`processed\`, \`confirmed\`, \`finalized\`.`,
      );
  }
}

/** A transaction encoding of getTransaction and getBlock. */
function txEncoding(enc: unknown): TxEncoding {
  if (enc === 'json' || enc === 'jsonParsed' || enc === 'base64' || enc === 'base58') return enc;
  throw invalid(
    `Invalid params: unknown variant \`${String(enc)}\`, expected one of \`binary\`, \`base64\`, \`base58\`, \`json\`, \`jsonParsed\`.`,
  );
}

function atLeastConfirmed(c: Config): Commitment {
  const level = commitment(c);
  if (level === 'processed') throw invalid('Method does not support commitment below `confirmed`');
  return level;
}

function context(ctx: RpcContext, c: Commitment, cfg: Config): { slot: number; apiVersion: string } {
  const slot = ctx.chain.slotAt(c);
  const min = cfg.minContextSlot;
  if (typeof min === 'number' && min > slot) {
    throw new RpcError(-32016, 'Minimum context slot has not been reached', { contextSlot: slot });
  }
  return { slot, apiVersion: API_VERSION };
}

function withContext(ctx: RpcContext, cfg: Config, value: unknown, c: Commitment = commitment(cfg)): unknown {
  return { context: context(ctx, c, cfg), value };
}

function dataSlice(cfg: Config): DataSlice | undefined {
  const s = cfg.dataSlice;
  if (s === undefined || s === null) return undefined;
  if (typeof s !== 'object') throw invalid('Invalid params: dataSlice must be {offset, length}.');
  const { offset, length } = s as Record<string, unknown>;
  if (
    !Number.isInteger(offset) ||
    !Number.isInteger(length) ||
    (offset as number) < 0 ||
    (length as number) < 0
  ) {
    throw invalid('Invalid params: dataSlice must be {offset, length} with non-negative integers.');
  }
  return { offset: offset as number, length: length as number };
}

function render(ctx: RpcContext, acc: AccountView | null, enc: Encoding, slice?: DataSlice): unknown {
  if (!acc) return null;
  try {
    return encodeAccount(acc, enc, (m) => ctx.chain.mint(m), slice);
  } catch (e) {
    if (e instanceof RpcParamError) throw new RpcError(e.code, e.message, e.data);
    throw e;
  }
}

function encoding(cfg: Config, fallback: Encoding): Encoding {
  try {
    return parseEncoding(cfg.encoding, fallback);
  } catch (e) {
    if (e instanceof RpcParamError) throw new RpcError(e.code, e.message);
    throw e;
  }
}

function decodeWire(data: string, enc: unknown): Uint8Array {
  let bytes: Uint8Array;
  if (enc === undefined || enc === null || enc === 'base58') {
    if (data.length > 1683)
      throw invalid(
        `base58 encoded solana_transaction::versioned::VersionedTransaction too large: ${data.length} bytes (max: encoded/raw 1683/${MAX_TX_BYTES})`,
      );
    try {
      bytes = bs58.decode(data);
    } catch {
      throw invalid('invalid base58 encoding: InvalidCharacter');
    }
  } else if (enc === 'base64') {
    if (data.length > 1644)
      throw invalid(
        `base64 encoded solana_transaction::versioned::VersionedTransaction too large: ${data.length} bytes (max: encoded/raw 1644/${MAX_TX_BYTES})`,
      );
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(data)) throw invalid('invalid base64 encoding: InvalidByte');
    bytes = new Uint8Array(Buffer.from(data, 'base64'));
  } else {
    throw invalid(`unsupported encoding: ${String(enc)}. Supported encodings: base58, base64`);
  }
  if (bytes.length > MAX_TX_BYTES)
    throw invalid(
      `decoded solana_transaction::versioned::VersionedTransaction too large: ${bytes.length} bytes (max: ${MAX_TX_BYTES} bytes)`,
    );
  return bytes;
}

function status(ctx: RpcContext, r: TxRecord): Record<string, unknown> {
  const level = ctx.chain.levelOf(r.slot);
  return {
    slot: r.slot,
    confirmations: level === 'finalized' ? null : ctx.chain.slot - r.slot,
    err: r.err,
    status: r.err === null ? { Ok: null } : { Err: r.err },
    confirmationStatus: level,
  };
}

function tokenProgramOf(ctx: RpcContext, filter: Config): { program: string; mint?: string } {
  if (typeof filter.mint === 'string') {
    const mint = pubkey(filter.mint).toBase58();
    const acc = ctx.chain.getAccount(mint);
    if (!acc || !parseMint(acc)) throw invalid('Invalid param: could not find mint');
    return { program: acc.owner, mint };
  }
  if (typeof filter.programId === 'string') {
    const program = pubkey(filter.programId).toBase58();
    if (!isTokenProgram(program)) throw invalid('Invalid param: unrecognized Token program id');
    return { program };
  }
  throw invalid('Invalid params: expected a filter object {mint} or {programId}.');
}

function tokenAccountsBy(ctx: RpcContext, params: Params, field: 'owner' | 'delegate'): unknown {
  const who = pubkey(params[0]).toBase58();
  const f = params[1];
  if (typeof f !== 'object' || f === null || Array.isArray(f))
    throw invalid('Invalid params: expected a filter object {mint} or {programId}.');
  const { program, mint } = tokenProgramOf(ctx, f as Config);
  const cfg = config(params, 2);
  const enc = encoding(cfg, 'binary');
  const slice = dataSlice(cfg);
  const value = ctx.chain
    .programAccounts(program)
    .filter(({ account }) => {
      const t = parseTokenAccount(account);
      return t !== null && t[field] === who && (mint === undefined || t.mint === mint);
    })
    .map(({ pubkey: key, account }) => ({ pubkey: key, account: render(ctx, account, enc, slice) }));
  return withContext(ctx, cfg, value);
}

function memcmpMatches(data: Uint8Array, filter: Record<string, unknown>): boolean {
  const offset = filter.offset;
  const bytesStr = filter.bytes;
  if (!Number.isInteger(offset) || typeof bytesStr !== 'string')
    throw invalid('Invalid params: memcmp filter needs offset and bytes.');
  const want =
    filter.encoding === 'base64' ? Buffer.from(bytesStr, 'base64') : Buffer.from(bs58.decode(bytesStr));
  const start = offset as number;
  if (start + want.length > data.length) return false;
  return Buffer.from(data.subarray(start, start + want.length)).equals(want);
}

export const methods: Record<string, Handler> = {
  getHealth: () => 'ok',
  getVersion: () => ({ 'solana-core': API_VERSION, 'feature-set': 3294202862 }),
  getGenesisHash: (_p, ctx) => ctx.chain.genesisHash,
  getIdentity: (_p, ctx) => ({ identity: ctx.identity }),
  getSlot: (p, ctx) => {
    const cfg = config(p, 0);
    context(ctx, commitment(cfg), cfg);
    return ctx.chain.slotAt(commitment(cfg));
  },
  getBlockHeight: (p, ctx) => {
    const cfg = config(p, 0);
    context(ctx, commitment(cfg), cfg);
    return ctx.chain.blockHeightAt(commitment(cfg));
  },
  getEpochInfo: (p, ctx) => ctx.chain.epochInfo(commitment(config(p, 0))),
  getEpochSchedule: () => ({
    firstNormalEpoch: 0,
    firstNormalSlot: 0,
    leaderScheduleSlotOffset: 432000,
    slotsPerEpoch: 432000,
    warmup: false,
  }),
  getTransactionCount: (_p, ctx) => ctx.chain.history.size,
  getFirstAvailableBlock: () => 0,
  minimumLedgerSlot: () => 0,
  getSlotLeader: (_p, ctx) => ctx.identity,
  getRecentPrioritizationFees: (p, ctx) => recentPrioritizationFees(p, ctx),
  getMaxRetransmitSlot: (_p, ctx) => ctx.chain.slot,
  getMaxShredInsertSlot: (_p, ctx) => ctx.chain.slot,
  getBlockTime: (p, ctx) => {
    const slot = p[0];
    if (!Number.isInteger(slot)) throw invalid('Invalid params: expected a slot number.');
    const t = ctx.chain.blockTime(slot as number);
    if (t === null) throw new RpcError(-32004, `Block not available for slot ${String(slot)}`);
    return t;
  },
  getLatestBlockhash: (p, ctx) => {
    const cfg = config(p, 0);
    const c = commitment(cfg);
    return withContext(ctx, cfg, ctx.chain.latestBlockhash(c), c);
  },
  isBlockhashValid: (p, ctx) => {
    const hash = str(p, 0, 'blockhash');
    const cfg = config(p, 1);
    return withContext(ctx, cfg, ctx.chain.isBlockhashValid(hash));
  },
  getFeeForMessage: (p, ctx) => {
    const b64 = str(p, 0, 'message');
    const cfg = config(p, 1);
    let msg: VersionedMessage;
    try {
      msg = VersionedMessage.deserialize(new Uint8Array(Buffer.from(b64, 'base64')));
    } catch {
      throw invalid('Invalid params: invalid message');
    }
    const fee = ctx.chain.isBlockhashValid(msg.recentBlockhash)
      ? 5000 * msg.header.numRequiredSignatures
      : null;
    return withContext(ctx, cfg, fee);
  },
  getMinimumBalanceForRentExemption: (p, ctx) => {
    const len = p[0];
    if (!Number.isInteger(len) || (len as number) < 0 || (len as number) > 10 * 1024 * 1024) {
      throw invalid('Invalid params: expected a data length (usize).');
    }
    return ctx.chain.minimumBalanceForRentExemption(len as number);
  },
  getBalance: (p, ctx) => {
    const key = pubkey(p[0]).toBase58();
    const cfg = config(p, 1);
    return withContext(ctx, cfg, Number(ctx.chain.getAccount(key)?.lamports ?? 0n));
  },
  getAccountInfo: (p, ctx) => {
    const key = pubkey(p[0]).toBase58();
    const cfg = config(p, 1);
    const enc = encoding(cfg, 'binary');
    return withContext(ctx, cfg, render(ctx, ctx.chain.getAccount(key), enc, dataSlice(cfg)));
  },
  getMultipleAccounts: (p, ctx) => {
    const keys = p[0];
    if (!Array.isArray(keys)) throw invalid('Invalid params: expected an array of pubkeys.');
    if (keys.length > 100) throw invalid('Too many inputs provided; max 100');
    const cfg = config(p, 1);
    const enc = encoding(cfg, 'base64');
    const slice = dataSlice(cfg);
    const value = keys.map((k) => render(ctx, ctx.chain.getAccount(pubkey(k).toBase58()), enc, slice));
    return withContext(ctx, cfg, value);
  },
  getProgramAccounts: (p, ctx) => {
    const program = pubkey(p[0]).toBase58();
    const cfg = config(p, 1);
    const enc = encoding(cfg, 'binary');
    const slice = dataSlice(cfg);
    const filters = cfg.filters ?? [];
    if (!Array.isArray(filters)) throw invalid('Invalid params: filters must be an array.');
    const list = ctx.chain.programAccounts(program).filter(({ account }) =>
      filters.every((f: unknown) => {
        if (typeof f !== 'object' || f === null) throw invalid('Invalid params: bad filter.');
        const filter = f as Record<string, unknown>;
        if ('dataSize' in filter) return account.data.length === filter.dataSize;
        if ('memcmp' in filter && typeof filter.memcmp === 'object' && filter.memcmp !== null) {
          return memcmpMatches(account.data, filter.memcmp as Record<string, unknown>);
        }
        throw invalid('Invalid params: unsupported filter.');
      }),
    );
    const value = list.map(({ pubkey: key, account }) => ({
      pubkey: key,
      account: render(ctx, account, enc, slice),
    }));
    return cfg.withContext === true ? withContext(ctx, cfg, value) : value;
  },
  getTokenAccountBalance: (p, ctx) => {
    const key = pubkey(p[0]).toBase58();
    const cfg = config(p, 1);
    const acc = ctx.chain.getAccount(key);
    if (!acc) throw invalid('Invalid param: could not find account');
    const t = parseTokenAccount(acc);
    if (!t) throw invalid('Invalid param: not a Token account');
    const mint = ctx.chain.mint(t.mint);
    if (!mint) throw invalid('Invalid param: could not find mint');
    return withContext(ctx, cfg, uiTokenAmount(t.amount, mint.decimals));
  },
  getTokenSupply: (p, ctx) => {
    const key = pubkey(p[0]).toBase58();
    const cfg = config(p, 1);
    const acc = ctx.chain.getAccount(key);
    const mint = acc ? parseMint(acc) : null;
    if (!mint) throw invalid('Invalid param: not a Token mint');
    return withContext(ctx, cfg, uiTokenAmount(mint.supply, mint.decimals));
  },
  getTokenAccountsByOwner: (p, ctx) => tokenAccountsBy(ctx, p, 'owner'),
  getTokenAccountsByDelegate: (p, ctx) => tokenAccountsBy(ctx, p, 'delegate'),
  requestAirdrop: (p, ctx) => {
    const key = pubkey(p[0]);
    const lamports = p[1];
    if (!Number.isSafeInteger(lamports) || (lamports as number) <= 0)
      throw invalid('Invalid params: lamports must be a positive integer.');
    if ((lamports as number) > 1_000_000 * 1_000_000_000)
      throw new RpcError(-32600, 'airdrop request too large; max 1000000 SOL');
    return ctx.airdrop(key, BigInt(lamports as number));
  },
  sendTransaction: (p, ctx) => {
    const data = str(p, 0, 'transaction');
    const cfg = config(p, 1);
    const d = ctx.chain.decode(decodeWire(data, cfg.encoding));
    if (!ctx.chain.verifySignatures(d))
      throw new RpcError(-32003, 'Transaction signature verification failure');
    if (cfg.skipPreflight !== true) {
      const preflight = commitment({ commitment: cfg.preflightCommitment });
      context(ctx, preflight, cfg);
      const sim = ctx.chain.history.has(d.signature)
        ? {
            err: 'AlreadyProcessed',
            errMessage: 'This transaction has already been processed',
            logs: [] as string[],
            unitsConsumed: 0,
          }
        : ctx.chain.simulate(d, { sigVerify: false, replaceRecentBlockhash: false });
      if (sim.err !== null) {
        throw new RpcError(-32002, `Transaction simulation failed: ${sim.errMessage}`, {
          accounts: null,
          err: sim.err,
          innerInstructions: null,
          loadedAccountsDataSize: 0,
          logs: sim.logs,
          replacementBlockhash: null,
          returnData: null,
          unitsConsumed: sim.unitsConsumed,
        });
      }
    }
    ctx.chain.process(d); // a dropped transaction still answers its signature, as a real node does
    return d.signature;
  },
  simulateTransaction: (p, ctx) => {
    const data = str(p, 0, 'transaction');
    const cfg = config(p, 1);
    const sigVerify = cfg.sigVerify === true;
    const replace = cfg.replaceRecentBlockhash === true;
    if (sigVerify && replace) throw invalid('sigVerify may not be used with replaceRecentBlockhash');
    const d = ctx.chain.decode(decodeWire(data, cfg.encoding));
    if (sigVerify && !ctx.chain.verifySignatures(d))
      throw new RpcError(-32003, 'Transaction signature verification failure');
    const sim = ctx.chain.simulate(d, { sigVerify, replaceRecentBlockhash: replace });
    let accounts: unknown = null;
    const req = cfg.accounts;
    if (req && typeof req === 'object') {
      const { addresses, encoding: accEnc } = req as Record<string, unknown>;
      if (!Array.isArray(addresses)) throw invalid('Invalid params: accounts.addresses must be an array.');
      const enc = encoding({ encoding: accEnc }, 'base64');
      accounts = addresses.map((a) => {
        const key = pubkey(a).toBase58();
        const acc = sim.postAccounts.has(key)
          ? (sim.postAccounts.get(key) ?? null)
          : ctx.chain.getAccount(key);
        return render(ctx, acc && acc.lamports > 0n ? acc : null, enc);
      });
    }
    const value = {
      accounts,
      err: sim.err,
      fee: sim.err === null ? sim.fee : null,
      innerInstructions:
        cfg.innerInstructions === true
          ? sim.innerInstructions.map((g) => ({
              index: g.index,
              instructions: g.instructions.map((ix) => parsedInstruction(ix, sim.accountKeys)),
            }))
          : null,
      loadedAccountsDataSize: 0,
      logs: sim.logs,
      replacementBlockhash: sim.replacementBlockhash,
      returnData: sim.returnData
        ? {
            programId: sim.returnData.programId,
            data: [Buffer.from(sim.returnData.data).toString('base64'), 'base64'],
          }
        : null,
      unitsConsumed: sim.unitsConsumed,
    };
    return withContext(ctx, cfg, value);
  },
  getSignatureStatuses: (p, ctx) => {
    const sigs = p[0];
    if (!Array.isArray(sigs) || sigs.some((s) => typeof s !== 'string'))
      throw invalid('Invalid params: expected an array of signatures.');
    if (sigs.length > 256) throw invalid('Too many inputs provided; max 256');
    const cfg = config(p, 1);
    const value = (sigs as string[]).map((s) => {
      const r = ctx.chain.history.get(s);
      return r ? status(ctx, r) : null;
    });
    return withContext(ctx, cfg, value, 'processed');
  },
  getSignaturesForAddress: (p, ctx) => {
    const key = pubkey(p[0]).toBase58();
    const cfg = config(p, 1);
    const level = atLeastConfirmed(cfg);
    context(ctx, level, cfg);
    const limit = cfg.limit ?? 1000;
    if (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > 1000)
      throw invalid('Invalid limit; max 1000');
    for (const k of ['before', 'until'] as const) {
      const v = cfg[k];
      if (v !== undefined && v !== null && (typeof v !== 'string' || bs58.decode(v).length !== 64))
        throw invalid('Invalid param: Invalid');
    }
    const records = ctx.chain.history.forAddress(key, {
      before: typeof cfg.before === 'string' ? cfg.before : undefined,
      until: typeof cfg.until === 'string' ? cfg.until : undefined,
      limit: limit as number,
      visible: (r) => ctx.chain.reached(r.slot, level),
    });
    return records.map((r) => ({
      blockTime: r.blockTime,
      confirmationStatus: ctx.chain.levelOf(r.slot),
      err: r.err,
      memo: r.memo,
      signature: r.signature,
      slot: r.slot,
    }));
  },
  getBlock: (p, ctx) => {
    const slot = p[0];
    if (!Number.isSafeInteger(slot) || (slot as number) < 0)
      throw invalid('Invalid params: invalid type: expected u64 (a slot number).');
    const raw = p[1];
    const cfg: Config = typeof raw === 'string' ? { encoding: raw } : config(p, 1);
    const level = atLeastConfirmed(cfg);
    const encoding = txEncoding(cfg.encoding ?? 'json');
    const details = cfg.transactionDetails ?? 'full';
    if (!['full', 'accounts', 'signatures', 'none'].includes(details as string))
      throw invalid(
        `Invalid params: unknown variant \`${String(details)}\`, expected one of \`full\`, \`signatures\`, \`none\`, \`accounts\`.`,
      );
    const max = maxSupportedVersion(cfg.maxSupportedTransactionVersion);
    if ((slot as number) > ctx.chain.slotAt(level)) throw blockNotAvailable(slot as number);
    return formatBlock(ctx.chain, slot as number, {
      encoding,
      transactionDetails: details as TransactionDetails,
      rewards: cfg.rewards !== false,
      maxSupportedTransactionVersion: max,
    });
  },
  getTransaction: (p, ctx) => {
    const sig = str(p, 0, 'signature');
    const raw = p[1];
    const cfg: Config = typeof raw === 'string' ? { encoding: raw } : config(p, 1);
    const level = atLeastConfirmed(cfg);
    const enc = txEncoding(cfg.encoding ?? 'json');
    const r = ctx.chain.history.get(sig);
    if (!r || !ctx.chain.reached(r.slot, level)) return null;
    const max = maxSupportedVersion(cfg.maxSupportedTransactionVersion);
    if (r.version !== 'legacy' && (max === undefined || max < r.version)) {
      throw new RpcError(
        -32015,
        `Transaction version (${r.version}) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": ${r.version}`,
      );
    }
    return formatTransaction(r, enc, max !== undefined);
  },
};
