/** The localnet's JSON-RPC plumbing shared by its methods: the context, reading params and configs, answering. */
import type { Address } from '@solana/kit';
import {
  RpcParamError,
  encodeAccount,
  parseEncoding,
  type AccountView,
  type DataSlice,
  type Encoding,
} from './accounts.js';
import { parseAddress } from './address.js';
import type { Chain, Commitment } from './chain.js';
import { RpcError } from './rpc-error.js';
import type { TxEncoding } from './tx-format.js';

export const API_VERSION = '2.2.7';

export interface RpcContext {
  chain: Chain;
  /** Airdrops lamports to an address (a real system transfer from the faucet); returns the signature. */
  airdrop(address: Address, lamports: bigint): string;
  identity: string;
}

export type Params = unknown[];
export type Handler = (params: Params, ctx: RpcContext) => unknown;
export type Config = Record<string, unknown>;

export function invalid(message: string): RpcError {
  return new RpcError(-32602, message);
}

export function config(params: Params, i: number): Config {
  const c = params[i];
  if (c === undefined || c === null) return {};
  if (typeof c !== 'object' || Array.isArray(c))
    throw invalid(`Invalid params: invalid type: expected a config map at position ${i}.`);
  return c as Config;
}

export function str(params: Params, i: number, what: string): string {
  const v = params[i];
  if (typeof v !== 'string') throw invalid(`Invalid params: expected a string (${what}) at position ${i}.`);
  return v;
}

/** A base58 public key param (canonical, 32 bytes), or the RPC's 'Invalid param: Invalid'. */
export function pubkey(v: unknown): Address {
  const k = parseAddress(v);
  if (k === null) throw invalid('Invalid param: Invalid');
  return k;
}

export function commitment(c: Config): Commitment {
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
export function txEncoding(enc: unknown): TxEncoding {
  if (enc === 'json' || enc === 'jsonParsed' || enc === 'base64' || enc === 'base58') return enc;
  throw invalid(
    `Invalid params: unknown variant \`${String(enc)}\`, expected one of \`binary\`, \`base64\`, \`base58\`, \`json\`, \`jsonParsed\`.`,
  );
}

export function atLeastConfirmed(c: Config): Commitment {
  const level = commitment(c);
  if (level === 'processed') throw invalid('Method does not support commitment below `confirmed`');
  return level;
}

export function context(ctx: RpcContext, c: Commitment, cfg: Config): { slot: number; apiVersion: string } {
  const slot = ctx.chain.slotAt(c);
  const min = cfg.minContextSlot;
  if (typeof min === 'number' && min > slot) {
    throw new RpcError(-32016, 'Minimum context slot has not been reached', { contextSlot: slot });
  }
  return { slot, apiVersion: API_VERSION };
}

export function withContext(
  ctx: RpcContext,
  cfg: Config,
  value: unknown,
  c: Commitment = commitment(cfg),
): unknown {
  return { context: context(ctx, c, cfg), value };
}

export function dataSlice(cfg: Config): DataSlice | undefined {
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

export function render(ctx: RpcContext, acc: AccountView | null, enc: Encoding, slice?: DataSlice): unknown {
  if (!acc) return null;
  try {
    return encodeAccount(acc, enc, (m) => ctx.chain.mint(m), slice);
  } catch (e) {
    if (e instanceof RpcParamError) throw new RpcError(e.code, e.message, e.data);
    throw e;
  }
}

export function encoding(cfg: Config, fallback: Encoding): Encoding {
  try {
    return parseEncoding(cfg.encoding, fallback);
  } catch (e) {
    if (e instanceof RpcParamError) throw new RpcError(e.code, e.message);
    throw e;
  }
}
