/**
 * Solana JSON-RPC methods answered by the localnet, with the real request and response shapes: the cluster and
 * account methods here, the transaction methods in rpc-tx-methods.ts.
 */
import bs58 from 'bs58';
import { getCompiledTransactionMessageDecoder, type CompiledTransactionMessage } from '@solana/kit';
import { isTokenProgram, parseMint, parseTokenAccount, uiTokenAmount } from './accounts.js';
import { recentPrioritizationFees } from './priority-fees.js';
import { RpcError } from './rpc-error.js';
import {
  API_VERSION,
  commitment,
  config,
  context,
  dataSlice,
  encoding,
  invalid,
  pubkey,
  render,
  str,
  withContext,
  type Config,
  type Handler,
  type Params,
  type RpcContext,
} from './rpc-params.js';
import { transactionMethods } from './rpc-tx-methods.js';

export { API_VERSION, type RpcContext } from './rpc-params.js';

function tokenProgramOf(ctx: RpcContext, filter: Config): { program: string; mint?: string } {
  if (typeof filter.mint === 'string') {
    const mint = pubkey(filter.mint);
    const acc = ctx.chain.getAccount(mint);
    if (!acc || !parseMint(acc)) throw invalid('Invalid param: could not find mint');
    return { program: acc.owner, mint };
  }
  if (typeof filter.programId === 'string') {
    const program = pubkey(filter.programId);
    if (!isTokenProgram(program)) throw invalid('Invalid param: unrecognized Token program id');
    return { program };
  }
  throw invalid('Invalid params: expected a filter object {mint} or {programId}.');
}

function tokenAccountsBy(ctx: RpcContext, params: Params, field: 'owner' | 'delegate'): unknown {
  const who = pubkey(params[0]);
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
    let msg: CompiledTransactionMessage;
    try {
      msg = getCompiledTransactionMessageDecoder().decode(new Uint8Array(Buffer.from(b64, 'base64')));
    } catch {
      throw invalid('Invalid params: invalid message');
    }
    const blockhash = (msg as unknown as { lifetimeToken: string }).lifetimeToken; // v1's too (its type omits it)
    const fee = ctx.chain.isBlockhashValid(blockhash) ? 5000 * msg.header.numSignerAccounts : null;
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
    const key = pubkey(p[0]);
    const cfg = config(p, 1);
    return withContext(ctx, cfg, Number(ctx.chain.getAccount(key)?.lamports ?? 0n));
  },
  getAccountInfo: (p, ctx) => {
    const key = pubkey(p[0]);
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
    const value = keys.map((k) => render(ctx, ctx.chain.getAccount(pubkey(k)), enc, slice));
    return withContext(ctx, cfg, value);
  },
  getProgramAccounts: (p, ctx) => {
    const program = pubkey(p[0]);
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
    const key = pubkey(p[0]);
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
    const key = pubkey(p[0]);
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
  ...transactionMethods,
};
