/**
 * Solana wallets through the Wallet Standard, directly (no adapter library): discovery with
 * `@wallet-standard/app`, and the four requests the shop makes of a wallet — connect, sign a message (the hold
 * proof, the console's sign-in fallback), sign in (`solana:signIn`), and sign-and-send a transaction
 * (`solana:signAndSendTransaction`, else `solana:signTransaction` and our own send). No React here: the checkout
 * and the seller console share it (docs/decisions/solana-libraries.md).
 */
import { getWallets } from '@wallet-standard/app';
import type { IdentifierString, Wallet, WalletAccount } from '@wallet-standard/base';
import type {
  StandardConnectFeature,
  StandardDisconnectFeature,
  StandardEventsFeature,
} from '@wallet-standard/features';
import type {
  SolanaSignAndSendTransactionFeature,
  SolanaSignInFeature,
  SolanaSignInInput,
  SolanaSignMessageFeature,
  SolanaSignTransactionFeature,
} from '@solana/wallet-standard-features';
import type { PublicConfig } from '../../core/api';

export type { Wallet, WalletAccount };

export const PHANTOM_NAME = 'Phantom';
/** The name @solana-mobile/wallet-standard-mobile registers Android's Mobile Wallet Adapter under. */
export const MOBILE_WALLET_NAME = 'Mobile Wallet Adapter';

const CONNECT = 'standard:connect';
const DISCONNECT = 'standard:disconnect';
const EVENTS = 'standard:events';
const SIGN_AND_SEND = 'solana:signAndSendTransaction';
const SIGN_TRANSACTION = 'solana:signTransaction';
const SIGN_MESSAGE = 'solana:signMessage';
const SIGN_IN = 'solana:signIn';

type Features = Partial<
  StandardConnectFeature &
    StandardDisconnectFeature &
    StandardEventsFeature &
    SolanaSignAndSendTransactionFeature &
    SolanaSignTransactionFeature &
    SolanaSignMessageFeature &
    SolanaSignInFeature
>;
const features = (w: Wallet): Features => w.features as Features;

/** The Wallet Standard chain of the store's cluster. */
export function chainOf(cluster: PublicConfig['cluster']): IdentifierString {
  return cluster === 'mainnet-beta' ? 'solana:mainnet' : `solana:${cluster}`;
}

/** A wallet the shop can pay with: it connects and signs (and sends) Solana transactions. */
export function canPay(w: Wallet): boolean {
  const f = features(w);
  return (
    Boolean(f[CONNECT]) &&
    (Boolean(f[SIGN_AND_SEND]) || Boolean(f[SIGN_TRANSACTION])) &&
    w.chains.some((c) => c.startsWith('solana:'))
  );
}

export const canSignIn = (w: Wallet): boolean => Boolean(features(w)[SIGN_IN]);
export const canSignMessage = (w: Wallet): boolean => Boolean(features(w)[SIGN_MESSAGE]);

/**
 * The wallets to offer, in order: the browser's own (injected) wallets first, Phantom first among them, then
 * Android's Mobile Wallet Adapter (it is registered on every Android browser, so it says nothing about what is
 * installed). Wallets that cannot pay are left out.
 */
export function offeredWallets(wallets: readonly Wallet[]): Wallet[] {
  const rank = (w: Wallet) => (w.name === MOBILE_WALLET_NAME ? 2 : w.name === PHANTOM_NAME ? 0 : 1);
  return wallets
    .filter(canPay)
    .map((w, i) => ({ w, i }))
    .sort((a, b) => rank(a.w) - rank(b.w) || a.i - b.i)
    .map(({ w }) => w);
}

/** A wallet found in this browser (every Wallet Standard wallet but the Mobile Wallet Adapter, which is a path). */
export const isDetected = (w: Wallet): boolean => w.name !== MOBILE_WALLET_NAME;

/** Every registered wallet now, and each change (a wallet registering late, an extension removed). */
export function watchWallets(onChange: (wallets: readonly Wallet[]) => void): () => void {
  const api = getWallets();
  const update = () => onChange(api.get());
  const offRegister = api.on('register', update);
  const offUnregister = api.on('unregister', update);
  update();
  return () => {
    offRegister();
    offUnregister();
  };
}

/** The current registered wallets (for a click handler that must not wait for React). */
export const currentWallets = (): readonly Wallet[] => getWallets().get();

/** The wallet's account changes (switched or disconnected in the wallet itself). */
export function onAccountsChange(
  w: Wallet,
  listener: (accounts: readonly WalletAccount[]) => void,
): () => void {
  const events = features(w)[EVENTS];
  if (!events) return () => undefined;
  return events.on('change', (props) => {
    if (props.accounts) listener(props.accounts);
  });
}

/**
 * Connects the wallet (the wallet asks the user, unless `silent` and it already trusts the site) and returns its
 * first Solana account; null when a silent connect is not granted.
 */
export async function connectWallet(w: Wallet, silent = false): Promise<WalletAccount | null> {
  const connect = features(w)[CONNECT];
  if (!connect) throw new Error(`${w.name} cannot connect`);
  const { accounts } = await connect.connect(silent ? { silent: true } : undefined);
  const account = accounts.find((a) => a.chains.some((c) => c.startsWith('solana:'))) ?? accounts[0];
  if (!account) {
    if (silent) return null;
    throw new Error(`${w.name} connected no account`);
  }
  return account;
}

export async function disconnectWallet(w: Wallet): Promise<void> {
  await features(w)[DISCONNECT]?.disconnect();
}

/** The wallet signs `message` with `account` (`solana:signMessage`); undefined when it cannot sign messages. */
export async function signMessageWith(
  w: Wallet,
  account: WalletAccount,
  message: Uint8Array,
): Promise<Uint8Array | undefined> {
  const sign = features(w)[SIGN_MESSAGE];
  if (!sign) return undefined;
  const [out] = await sign.signMessage({ account, message });
  if (!out) throw new Error(`${w.name} returned no signature`);
  return out.signature;
}

/** Sign In With Solana (`solana:signIn`): the wallet writes and signs the message; it connects as it signs. */
export async function signInWith(
  w: Wallet,
  input: SolanaSignInInput,
): Promise<{ account: WalletAccount; signedMessage: Uint8Array; signature: Uint8Array }> {
  const signIn = features(w)[SIGN_IN];
  if (!signIn) throw new Error(`${w.name} cannot sign in`);
  const [out] = await signIn.signIn(input);
  if (!out) throw new Error(`${w.name} returned no sign-in`);
  return out;
}

/** Version 0 where the wallet says it takes it (Phantom and most do), else legacy. */
export function transactionVersionFor(w: Wallet): 0 | 'legacy' {
  const f = features(w);
  const versions = (f[SIGN_AND_SEND] ?? f[SIGN_TRANSACTION])?.supportedTransactionVersions ?? [];
  return versions.includes(0) ? 0 : 'legacy';
}

/** Sends signed transaction bytes ourselves (for wallets that only sign); resolves to the signature. */
export type SendSigned = (signedTransaction: Uint8Array) => Promise<string>;

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
/** Base58 of bytes (a 64-byte signature is at most 88 characters). */
export function base58(bytes: Uint8Array): string {
  const digits: number[] = [];
  for (const byte of bytes) {
    let carry = byte;
    for (let i = 0; i < digits.length; i++) {
      carry += (digits[i] ?? 0) << 8;
      digits[i] = carry % 58;
      carry = Math.floor(carry / 58);
    }
    while (carry > 0) {
      digits.push(carry % 58);
      carry = Math.floor(carry / 58);
    }
  }
  let out = '';
  for (const byte of bytes) {
    if (byte !== 0) break;
    out += '1';
  }
  for (let i = digits.length - 1; i >= 0; i--) out += BASE58[digits[i] ?? 0];
  return out;
}

/**
 * The wallet signs and sends `transaction` (wire bytes, unsigned): `solana:signAndSendTransaction` where the wallet
 * has it (Phantom, most wallets: they add their own fee handling and send through their own nodes), else
 * `solana:signTransaction` and `send` (our RPC). Resolves to the transaction's signature (base58) once sent.
 */
export async function signAndSend(
  w: Wallet,
  account: WalletAccount,
  chain: IdentifierString,
  transaction: Uint8Array,
  send: SendSigned,
): Promise<string> {
  const f = features(w);
  const signAndSendFeature = f[SIGN_AND_SEND];
  if (signAndSendFeature) {
    const [out] = await signAndSendFeature.signAndSendTransaction({
      account,
      chain,
      transaction,
      options: { preflightCommitment: 'confirmed' },
    });
    if (!out) throw new Error(`${w.name} returned no signature`);
    return base58(out.signature);
  }
  const signFeature = f[SIGN_TRANSACTION];
  if (!signFeature) throw new Error(`${w.name} cannot sign transactions`);
  const [out] = await signFeature.signTransaction({ account, chain, transaction });
  if (!out) throw new Error(`${w.name} returned no signed transaction`);
  return send(out.signedTransaction);
}

/** A declined wallet request: Phantom's code 4001, the standard's "User rejected", MWA's declines. */
export function isUserRejection(err: unknown): boolean {
  const e = err as { code?: unknown; error?: { code?: unknown }; message?: unknown; cause?: unknown };
  if (e?.code === 4001 || e?.error?.code === 4001) return true;
  if (typeof e?.message === 'string' && /user rejected|declined|ERROR_AUTHORIZATION_FAILED/i.test(e.message))
    return true;
  const cause = e?.cause as { code?: unknown } | undefined;
  return cause?.code === 'ERROR_AUTHORIZATION_FAILED' || cause?.code === 4001;
}

export function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

/** "AbCd..WxYz": the connected wallet button's label. */
export const shortAddress = (address: string): string => `${address.slice(0, 4)}..${address.slice(-4)}`;
