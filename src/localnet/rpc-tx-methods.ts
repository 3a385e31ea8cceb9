/** The JSON-RPC methods about transactions: sending, simulating, statuses, history, getTransaction and getBlock. */
import bs58 from 'bs58';
import { blockNotAvailable, formatBlock, maxSupportedVersion, type TransactionDetails } from './block.js';
import type { TxRecord } from './history.js';
import { RpcError } from './rpc-error.js';
import {
  atLeastConfirmed,
  commitment,
  config,
  context,
  encoding,
  invalid,
  pubkey,
  render,
  str,
  txEncoding,
  withContext,
  type Config,
  type Handler,
  type RpcContext,
} from './rpc-params.js';
import { formatTransaction, parsedInstruction } from './tx-format.js';
import { MAX_LEGACY_TX_BYTES, MAX_V1_TX_BYTES, V1_PREFIX } from './wire.js';

/**
 * A sent transaction's wire bytes, with the node's limits: base58 stays at a packet (1,683 characters, 1,232
 * bytes; deprecated, not raised for v1); base64 whose first byte reads `0x81` or above (text from "gQ") may carry
 * a v1 transaction of up to 4,096 bytes (5,464 characters), any other at most a packet (1,644 / 1,232); once
 * decoded, a v1 transaction is held to 4,096 bytes and the others to 1,232.
 */
function decodeWire(data: string, enc: unknown): Uint8Array {
  let bytes: Uint8Array;
  let maxRaw = MAX_LEGACY_TX_BYTES;
  if (enc === undefined || enc === null || enc === 'base58') {
    if (data.length > 1683)
      throw invalid(
        `base58 encoded solana_transaction::versioned::VersionedTransaction too large: ${data.length} bytes (max: encoded/raw 1683/${MAX_LEGACY_TX_BYTES})`,
      );
    try {
      bytes = bs58.decode(data);
    } catch {
      throw invalid('invalid base58 encoding: InvalidCharacter');
    }
  } else if (enc === 'base64') {
    const v1 = data.slice(0, 2) >= 'gQ' && data.length >= 2;
    maxRaw = v1 ? MAX_V1_TX_BYTES : MAX_LEGACY_TX_BYTES;
    const maxEncoded = v1 ? 5464 : 1644;
    if (data.length > maxEncoded)
      throw invalid(
        `base64 encoded solana_transaction::versioned::VersionedTransaction too large: ${data.length} bytes (max: encoded/raw ${maxEncoded}/${maxRaw})`,
      );
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(data)) throw invalid('invalid base64 encoding: InvalidByte');
    bytes = new Uint8Array(Buffer.from(data, 'base64'));
  } else {
    throw invalid(`unsupported encoding: ${String(enc)}. Supported encodings: base58, base64`);
  }
  const limit = bytes[0] === V1_PREFIX ? Math.min(maxRaw, MAX_V1_TX_BYTES) : MAX_LEGACY_TX_BYTES;
  if (bytes.length > limit)
    throw invalid(
      `decoded solana_transaction::versioned::VersionedTransaction too large: ${bytes.length} bytes (max: ${limit} bytes)`,
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

export const transactionMethods: Record<string, Handler> = {
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
        const key = pubkey(a);
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
    const key = pubkey(p[0]);
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
