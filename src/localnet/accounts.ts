/** Account data decoding and RPC account encodings (base64, base58, jsonParsed for SPL Token). */
import bs58 from 'bs58';

export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
export const SYSTEM_PROGRAM = '11111111111111111111111111111111';

export function isTokenProgram(owner: string): boolean {
  return owner === TOKEN_PROGRAM || owner === TOKEN_2022_PROGRAM;
}

/** One account as the localnet sees it (lamports as bigint, owner base58). */
export interface AccountView {
  lamports: bigint;
  data: Uint8Array;
  owner: string;
  executable: boolean;
}

export interface TokenAccountData {
  mint: string;
  owner: string;
  amount: bigint;
  delegate: string | null;
  state: 'uninitialized' | 'initialized' | 'frozen';
  isNative: boolean;
  delegatedAmount: bigint;
  closeAuthority: string | null;
}

export interface MintData {
  mintAuthority: string | null;
  supply: bigint;
  decimals: number;
  isInitialized: boolean;
  freezeAuthority: string | null;
}

const ACCOUNT_LEN = 165;
const MINT_LEN = 82;

function readU64(data: Uint8Array, offset: number): bigint {
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(offset, true);
}
function readU32(data: Uint8Array, offset: number): number {
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(offset, true);
}
function key(data: Uint8Array, offset: number): string {
  return bs58.encode(data.subarray(offset, offset + 32));
}
function optionKey(data: Uint8Array, offset: number): string | null {
  return readU32(data, offset) === 1 ? key(data, offset + 4) : null;
}

/** Parses an SPL Token (or Token-2022 base) token account; null if the data is not one. */
export function parseTokenAccount(acc: AccountView): TokenAccountData | null {
  if (!isTokenProgram(acc.owner)) return null;
  const d = acc.data;
  if (d.length < ACCOUNT_LEN) return null;
  // Token-2022 accounts longer than 165 bytes carry an account-type byte (2 = account) at 165.
  if (d.length > ACCOUNT_LEN && (acc.owner !== TOKEN_2022_PROGRAM || d[ACCOUNT_LEN] !== 2)) return null;
  const stateByte = d[108];
  if (stateByte === 0 || stateByte === undefined || stateByte > 2) return null;
  return {
    mint: key(d, 0),
    owner: key(d, 32),
    amount: readU64(d, 64),
    delegate: optionKey(d, 72),
    state: stateByte === 2 ? 'frozen' : 'initialized',
    isNative: readU32(d, 109) === 1,
    delegatedAmount: readU64(d, 121),
    closeAuthority: optionKey(d, 129),
  };
}

/** Parses an SPL Token (or Token-2022 base) mint; null if the data is not one. */
export function parseMint(acc: AccountView): MintData | null {
  if (!isTokenProgram(acc.owner)) return null;
  const d = acc.data;
  if (d.length < MINT_LEN) return null;
  if (
    d.length !== MINT_LEN &&
    (acc.owner !== TOKEN_2022_PROGRAM || d.length <= ACCOUNT_LEN || d[ACCOUNT_LEN] !== 1)
  ) {
    return null;
  }
  if (d[45] !== 1) return null;
  return {
    mintAuthority: optionKey(d, 0),
    supply: readU64(d, 36),
    decimals: d[44] ?? 0,
    isInitialized: true,
    freezeAuthority: optionKey(d, 46),
  };
}

/** Exact decimal string of a base-unit amount: formatUnits(1500000n, 6) === "1.5". */
export function formatUnits(amount: bigint, decimals: number): string {
  const neg = amount < 0n;
  const abs = neg ? -amount : amount;
  const s = abs.toString().padStart(decimals + 1, '0');
  const int = s.slice(0, s.length - decimals);
  const frac = decimals > 0 ? s.slice(s.length - decimals).replace(/0+$/, '') : '';
  return (neg ? '-' : '') + int + (frac ? `.${frac}` : '');
}

export interface UiTokenAmount {
  amount: string;
  decimals: number;
  uiAmount: number | null;
  uiAmountString: string;
}

export function uiTokenAmount(amount: bigint, decimals: number): UiTokenAmount {
  const s = formatUnits(amount, decimals);
  return { amount: amount.toString(), decimals, uiAmount: Number(s), uiAmountString: s };
}

export type Encoding = 'base64' | 'base58' | 'binary' | 'jsonParsed';

export class RpcParamError extends Error {
  constructor(
    message: string,
    readonly code: number = -32602,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export function parseEncoding(value: unknown, fallback: Encoding): Encoding {
  if (value === undefined || value === null) return fallback;
  if (value === 'base64' || value === 'base58' || value === 'binary' || value === 'jsonParsed') return value;
  if (value === 'base64+zstd')
    throw new RpcParamError('Invalid params: base64+zstd encoding is not supported by the localnet.');
  throw new RpcParamError(
    `Invalid params: unknown variant \`${String(value)}\`, expected one of \`binary\`, \`base58\`, \`base64\`, \`jsonParsed\`, \`base64+zstd\`.`,
  );
}

export interface DataSlice {
  offset: number;
  length: number;
}

/** Context needed to render jsonParsed token accounts (decimals come from the mint). */
export type MintLookup = (mint: string) => MintData | null;

// Solana answers rentEpoch u64::MAX for rent-exempt accounts; JSON numbers lose precision past 2^53 exactly as
// they do for web3.js reading mainnet, so this mirrors the real response.
// eslint-disable-next-line no-loss-of-precision
const U64_MAX_RENT_EPOCH = 18446744073709551615;

function binaryData(data: Uint8Array, enc: 'base64' | 'base58' | 'binary'): unknown {
  if (enc === 'base64') return [Buffer.from(data).toString('base64'), 'base64'];
  if (data.length > 128) {
    throw new RpcParamError(
      'Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.',
      -32600,
    );
  }
  return enc === 'base58' ? [bs58.encode(data), 'base58'] : bs58.encode(data);
}

function parsedTokenAccountInfo(t: TokenAccountData, decimals: number): Record<string, unknown> {
  const info: Record<string, unknown> = {
    isNative: t.isNative,
    mint: t.mint,
    owner: t.owner,
    state: t.state,
    tokenAmount: uiTokenAmount(t.amount, decimals),
  };
  if (t.delegate) {
    info.delegate = t.delegate;
    info.delegatedAmount = uiTokenAmount(t.delegatedAmount, decimals);
  }
  if (t.closeAuthority) info.closeAuthority = t.closeAuthority;
  return info;
}

/** jsonParsed rendering of account data; undefined when the account is not a parseable type. */
export function parseAccountData(acc: AccountView, mints: MintLookup): unknown {
  const program = acc.owner === TOKEN_2022_PROGRAM ? 'spl-token-2022' : 'spl-token';
  const token = parseTokenAccount(acc);
  if (token) {
    const mint = mints(token.mint);
    if (!mint) return undefined;
    return {
      program,
      parsed: { info: parsedTokenAccountInfo(token, mint.decimals), type: 'account' },
      space: acc.data.length,
    };
  }
  const mint = parseMint(acc);
  if (mint) {
    return {
      program,
      parsed: {
        info: {
          decimals: mint.decimals,
          freezeAuthority: mint.freezeAuthority,
          isInitialized: mint.isInitialized,
          mintAuthority: mint.mintAuthority,
          supply: mint.supply.toString(),
        },
        type: 'mint',
      },
      space: acc.data.length,
    };
  }
  return undefined;
}

/** An account in the RPC's UiAccount shape. */
export function encodeAccount(
  acc: AccountView,
  enc: Encoding,
  mints: MintLookup,
  slice?: DataSlice,
): Record<string, unknown> {
  let data: unknown;
  if (enc === 'jsonParsed') {
    data = parseAccountData(acc, mints) ?? binaryData(acc.data, 'base64');
  } else {
    const bytes = slice ? acc.data.subarray(slice.offset, slice.offset + slice.length) : acc.data;
    data = binaryData(bytes, enc);
  }
  return {
    data,
    executable: acc.executable,
    lamports: Number(acc.lamports),
    owner: acc.owner,
    rentEpoch: U64_MAX_RENT_EPOCH,
    space: acc.data.length,
  };
}
