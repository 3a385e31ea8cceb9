/**
 * The browser's Solana JSON-RPC: the few reads the wallet flows make (blockhash, accounts, balance, rent, recent
 * priority fees), sending a signed transaction (wallets that only sign), and waiting until a signature is
 * confirmed — by polling `getSignatureStatuses` until the blockhash's last valid block height, so no WebSocket code
 * is shipped. A plain JSON-RPC POST per call (about 1 KB): kit's RPC client with its transformers would add about
 * 9 KB gzip to the wallet chunk for these eight methods (docs/decisions/solana-libraries.md). Every call has a
 * timeout.
 */
import type { Address } from '@solana/kit';

/** The endpoint the calls go to (the store's public RPC, from GET /api/config). */
export interface SolanaRpc {
  url: string;
}

const RPC_TIMEOUT_MS = 15_000;

export function solanaRpc(url: string): SolanaRpc {
  return { url };
}

/** An error answer of the RPC: its message, code, and the simulation's logs when there are some. */
export class RpcError extends Error {
  override name = 'RpcError';
  constructor(
    message: string,
    readonly code: number,
    readonly logs?: string[],
  ) {
    super(message);
  }
}

async function rpcCall<T>(rpc: SolanaRpc, method: string, params: unknown[], what = method): Promise<T> {
  const res = await withTimeout(
    fetch(rpc.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    }),
    RPC_TIMEOUT_MS,
    what,
  );
  if (!res.ok) throw new RpcError(`${method}: HTTP ${res.status}`, -32000);
  const body = (await res.json()) as {
    result?: T;
    error?: { code: number; message: string; data?: { logs?: unknown } };
  };
  if (body.error) {
    const logs = body.error.data?.logs;
    throw new RpcError(
      body.error.message,
      body.error.code,
      Array.isArray(logs) ? logs.filter((l): l is string => typeof l === 'string') : undefined,
    );
  }
  return body.result as T;
}

export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`${what} timed out`)), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(t);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

export interface Blockhash {
  blockhash: string;
  lastValidBlockHeight: bigint;
}

export async function latestBlockhash(
  rpc: SolanaRpc,
  commitment: 'finalized' | 'confirmed' = 'finalized',
): Promise<Blockhash> {
  const { value } = await rpcCall<{ value: { blockhash: string; lastValidBlockHeight: number } }>(
    rpc,
    'getLatestBlockhash',
    [{ commitment }],
  );
  return { blockhash: value.blockhash, lastValidBlockHeight: BigInt(value.lastValidBlockHeight) };
}

/** The data of each account (null where it does not exist), read with 'confirmed'. */
export async function accountsData(rpc: SolanaRpc, addresses: Address[]): Promise<(Uint8Array | null)[]> {
  const { value } = await rpcCall<{ value: ({ data: [string, string] } | null)[] }>(
    rpc,
    'getMultipleAccounts',
    [addresses, { encoding: 'base64', commitment: 'confirmed' }],
    'reading accounts',
  );
  return value.map((a) => (a ? fromBase64(a.data[0]) : null));
}

/** Lamports of `owner` (read as a JSON number: exact up to 9 million SOL, far above any fee check). */
export async function balanceLamports(rpc: SolanaRpc, owner: Address): Promise<bigint> {
  const { value } = await rpcCall<{ value: number }>(
    rpc,
    'getBalance',
    [owner, { commitment: 'confirmed' }],
    'reading the balance',
  );
  return BigInt(value);
}

export async function rentExemptLamports(rpc: SolanaRpc, size: number): Promise<bigint> {
  return BigInt(
    await rpcCall<number>(
      rpc,
      'getMinimumBalanceForRentExemption',
      [size, { commitment: 'confirmed' }],
      'reading the rent',
    ),
  );
}

/** Recent prioritization fees of slots that write-locked `accounts`. */
export function recentPrioritizationFees(
  rpc: SolanaRpc,
  accounts: Address[],
): Promise<{ slot: number; prioritizationFee: number }[]> {
  return rpcCall(rpc, 'getRecentPrioritizationFees', [accounts]);
}

/** Sends signed wire bytes (a wallet that only signs); resolves to the signature. */
export function sendSigned(rpc: SolanaRpc, signed: Uint8Array): Promise<string> {
  return rpcCall<string>(rpc, 'sendTransaction', [
    toBase64(signed),
    { encoding: 'base64', preflightCommitment: 'confirmed' },
  ]);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Resolves once `signature` is confirmed; throws when it failed on chain, or when the network passed the
 * blockhash's last valid block height without it (it can then never land).
 */
export async function confirmSignature(
  rpc: SolanaRpc,
  signature: string,
  lastValidBlockHeight: bigint,
  what = 'the transaction',
  everyMs = 500,
  giveUpMs = 120_000,
): Promise<void> {
  const deadline = Date.now() + giveUpMs;
  for (;;) {
    if (Date.now() > deadline) throw new Error(`confirming ${what} timed out`);
    try {
      const { value } = await rpcCall<{
        value: ({ err: unknown; confirmationStatus?: string | null } | null)[];
      }>(rpc, 'getSignatureStatuses', [[signature]]);
      const status = value[0];
      if (status?.err) throw new OnChainError(`${what} failed on chain (${JSON.stringify(status.err)})`);
      if (status?.confirmationStatus === 'confirmed' || status?.confirmationStatus === 'finalized') return;
      if (!status) {
        const height = await rpcCall<number>(rpc, 'getBlockHeight', [{ commitment: 'confirmed' }]);
        if (BigInt(height) > lastValidBlockHeight)
          throw new OnChainError(`${what} has expired: block height exceeded before it was confirmed`);
      }
    } catch (err) {
      if (err instanceof OnChainError) throw err;
      // A failed poll is tried again: the signature is out there, only our view of it is late.
    }
    await sleep(everyMs);
  }
}

class OnChainError extends Error {
  override name = 'OnChainError';
}

function fromBase64(s: string): Uint8Array {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}
