/**
 * Browser test wallet: a Phantom-compatible injected provider (`window.phantom.solana`, `window.solana`) whose
 * signing happens in Node with a test keypair. The in-page script has no imports and works with the app's own
 * @solana/web3.js objects (legacy Transaction and VersionedTransaction).
 */
import { VersionedTransaction, type Keypair, type PublicKey } from '@solana/web3.js';
import nacl from 'tweetnacl';
import type { Page } from 'playwright-core';
import { formatSiwsMessage, type SiwsFields } from '../../src/core/siws';

/**
 * 'sign': every signing request; 'transaction': the transaction ones only (the payment); 'message': signMessage
 * only (Buy Now's hold message, the console's sign-in).
 */
export type RejectKind = 'connect' | 'sign' | 'transaction' | 'message' | null;

export interface TestWalletOptions {
  keypair: Keypair;
  rpcUrl: string;
  /** Do not inject anything (the "no wallet installed" case). */
  absent?: boolean;
  /** Treat the site as already trusted, so `connect({ onlyIfTrusted: true })` succeeds (eager connect). */
  trusted?: boolean;
}

export interface TestWalletControl {
  readonly publicKey: PublicKey;
  /**
   * Makes requests of that kind fail with Phantom's `{ code: 4001, message: 'User rejected the request.' }`.
   * 'sign' covers signTransaction, signAllTransactions, signAndSendTransaction and signMessage; 'transaction' the
   * first three, 'message' signMessage alone.
   * With `{ once: true }` only the next such request is rejected. `null` clears it.
   */
  setReject(kind: RejectKind, opts?: { once?: boolean }): void;
  /** Provider methods called so far, in order (e.g. ['connect', 'signAndSendTransaction']). */
  requests(): string[];
  /** Signatures this wallet sent with signAndSendTransaction, in order. */
  sent(): string[];
}

export interface WalletRequest {
  method: string;
  payload?: unknown;
}

export type WalletReply = { result: unknown } | { error: { code: number; message: string; data?: unknown } };

const USER_REJECTED = { code: 4001, message: 'User rejected the request.' };
const SIGN_METHODS = new Set([
  'signTransaction',
  'signAllTransactions',
  'signAndSendTransaction',
  'signMessage',
  'signIn',
]);

function b64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64');
}
function unb64(s: unknown): Uint8Array {
  if (typeof s !== 'string') throw new Error('expected base64 string');
  return new Uint8Array(Buffer.from(s, 'base64'));
}

/** Node side of the test wallet: answers the page script's requests. Exported for unit tests. */
export class TestWalletSigner {
  private rejectKind: RejectKind = null;
  private rejectOnce = false;
  private readonly log: string[] = [];
  private readonly sentSigs: string[] = [];

  constructor(
    private readonly keypair: Keypair,
    private readonly rpcUrl: string,
  ) {}

  setReject(kind: RejectKind, opts?: { once?: boolean }): void {
    this.rejectKind = kind;
    this.rejectOnce = opts?.once === true;
  }

  requests(): string[] {
    return [...this.log];
  }

  sent(): string[] {
    return [...this.sentSigs];
  }

  /** Signs serialized transaction bytes; returns the signature and the signer slot it belongs to. */
  sign(bytes: Uint8Array): { signature: Uint8Array; index: number; signed: Uint8Array } {
    const tx = VersionedTransaction.deserialize(bytes);
    const me = this.keypair.publicKey.toBase58();
    const index = tx.message.staticAccountKeys.findIndex((k) => k.toBase58() === me);
    if (index < 0 || index >= tx.message.header.numRequiredSignatures) {
      throw Object.assign(new Error('The wallet is not a required signer of this transaction.'), {
        code: -32603,
      });
    }
    const signature = nacl.sign.detached(tx.message.serialize(), this.keypair.secretKey);
    tx.signatures[index] = signature;
    return { signature, index, signed: tx.serialize() };
  }

  private async send(signed: Uint8Array, options: unknown): Promise<string> {
    const o = (typeof options === 'object' && options !== null ? options : {}) as Record<string, unknown>;
    const config: Record<string, unknown> = { encoding: 'base64' };
    for (const k of ['skipPreflight', 'preflightCommitment', 'maxRetries', 'minContextSlot'])
      if (o[k] !== undefined) config[k] = o[k];
    const res = await fetch(this.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'sendTransaction',
        params: [b64(signed), config],
      }),
    });
    if (!res.ok) throw Object.assign(new Error(`RPC answered HTTP ${res.status}`), { code: -32603 });
    const body = (await res.json()) as {
      result?: string;
      error?: { code: number; message: string; data?: unknown };
    };
    if (body.error)
      throw Object.assign(new Error(body.error.message), { code: body.error.code, data: body.error.data });
    if (typeof body.result !== 'string')
      throw Object.assign(new Error('RPC returned no signature'), { code: -32603 });
    this.sentSigs.push(body.result);
    return body.result;
  }

  private rejected(method: string): boolean {
    const kind = method === 'connect' ? 'connect' : SIGN_METHODS.has(method) ? 'sign' : null;
    if (kind === null) return false;
    const hit =
      kind === this.rejectKind ||
      (kind === 'sign' &&
        this.rejectKind === (method === 'signMessage' || method === 'signIn' ? 'message' : 'transaction'));
    if (!hit) return false;
    if (this.rejectOnce) this.rejectKind = null;
    return true;
  }

  async handle(req: WalletRequest): Promise<WalletReply> {
    this.log.push(req.method);
    if (this.rejected(req.method)) return { error: USER_REJECTED };
    const p = (typeof req.payload === 'object' && req.payload !== null ? req.payload : {}) as Record<
      string,
      unknown
    >;
    try {
      switch (req.method) {
        case 'connect':
          return { result: { publicKey: this.keypair.publicKey.toBase58() } };
        case 'disconnect':
          return { result: null };
        case 'signTransaction': {
          const s = this.sign(unb64(p.tx));
          // `signed`: the whole signed transaction (what a Wallet Standard wallet's signTransaction returns).
          return { result: { signature: b64(s.signature), index: s.index, signed: b64(s.signed) } };
        }
        case 'signAllTransactions': {
          if (!Array.isArray(p.txs)) throw new Error('txs must be an array');
          return {
            result: p.txs.map((t) => {
              const s = this.sign(unb64(t));
              return { signature: b64(s.signature), index: s.index };
            }),
          };
        }
        case 'signAndSendTransaction': {
          const s = this.sign(unb64(p.tx));
          const signature = await this.send(s.signed, p.options);
          // `signatureBytes`: the raw signature (what a Wallet Standard wallet returns), base64.
          return {
            result: {
              signature,
              signatureBytes: b64(s.signature),
              publicKey: this.keypair.publicKey.toBase58(),
            },
          };
        }
        case 'signMessage': {
          const sig = nacl.sign.detached(unb64(p.message), this.keypair.secretKey);
          return { result: { signature: b64(sig), publicKey: this.keypair.publicKey.toBase58() } };
        }
        case 'signIn': {
          // The wallet writes the standard Sign-In-With-Solana text from the app's fields and its own address.
          const input = (
            typeof p.input === 'object' && p.input !== null ? p.input : {}
          ) as Partial<SiwsFields>;
          const text = formatSiwsMessage({
            ...input,
            domain: input.domain ?? String(p.host ?? ''),
            address: this.keypair.publicKey.toBase58(),
          });
          const message = new TextEncoder().encode(text);
          const sig = nacl.sign.detached(message, this.keypair.secretKey);
          return { result: { signedMessage: b64(message), signature: b64(sig) } };
        }
        default:
          return {
            error: { code: -32601, message: `Method not supported by the test wallet: ${req.method}` },
          };
      }
    } catch (e) {
      const err = e as Error & { code?: number; data?: unknown };
      return {
        error: {
          code: typeof err.code === 'number' ? err.code : -32603,
          message: err.message,
          data: err.data,
        },
      };
    }
  }
}

export const WALLET_BINDING = '__claimTestWallet';

/** The in-page provider script (plain JS, no imports). */
export function walletPageScript(
  publicKeyBase58: string,
  publicKeyBytes: Uint8Array,
  trusted: boolean,
): string {
  return `(() => {
  const BINDING = ${JSON.stringify(WALLET_BINDING)};
  const KEY = ${JSON.stringify(publicKeyBase58)};
  const KEY_BYTES = ${JSON.stringify(Array.from(publicKeyBytes))};
  let trusted = ${trusted ? 'true' : 'false'};
  const listeners = {};
  const emit = (ev, ...args) => (listeners[ev] || []).slice().forEach((f) => { try { f(...args); } catch (e) { console.error(e); } });
  const publicKey = {
    toBase58: () => KEY,
    toString: () => KEY,
    toJSON: () => KEY,
    toBytes: () => new Uint8Array(KEY_BYTES),
    toBuffer: () => new Uint8Array(KEY_BYTES),
    equals: (o) => !!o && typeof o.toBase58 === 'function' && o.toBase58() === KEY,
  };
  const toB64 = (bytes) => { let s = ''; const u = new Uint8Array(bytes); for (let i = 0; i < u.length; i++) s += String.fromCharCode(u[i]); return btoa(s); };
  const fromB64 = (s) => { const bin = atob(s); const u = new Uint8Array(bin.length); for (let i = 0; i < bin.length; i++) u[i] = bin.charCodeAt(i); return u; };
  const isVersioned = (tx) => tx && typeof tx === 'object' && 'version' in tx;
  const serialize = (tx) => isVersioned(tx) ? tx.serialize() : tx.serialize({ requireAllSignatures: false, verifySignatures: false });
  const call = async (method, payload) => {
    const reply = await window[BINDING]({ method, payload });
    if (reply && reply.error) {
      const e = new Error(reply.error.message);
      e.code = reply.error.code;
      if (reply.error.data !== undefined) e.data = reply.error.data;
      throw e;
    }
    return reply ? reply.result : undefined;
  };
  const applySignature = (tx, sigB64, index) => {
    const sig = fromB64(sigB64);
    if (isVersioned(tx)) { tx.signatures[index] = sig; return tx; }
    const pair = tx.signatures[index];
    if (pair && pair.publicKey) { tx.addSignature(pair.publicKey, typeof Buffer !== 'undefined' ? Buffer.from(sig) : sig); return tx; }
    throw new Error('test wallet: cannot place the signature on this transaction');
  };
  const provider = {
    isPhantom: true,
    publicKey: null,
    isConnected: false,
    async connect(opts) {
      if (opts && opts.onlyIfTrusted && !trusted) { const e = new Error('User rejected the request.'); e.code = 4001; throw e; }
      await call('connect', { onlyIfTrusted: !!(opts && opts.onlyIfTrusted) });
      trusted = true;
      provider.publicKey = publicKey;
      provider.isConnected = true;
      emit('connect', publicKey);
      return { publicKey };
    },
    async disconnect() {
      await call('disconnect');
      provider.publicKey = null;
      provider.isConnected = false;
      emit('disconnect');
    },
    on(ev, f) { (listeners[ev] = listeners[ev] || []).push(f); return provider; },
    off(ev, f) { listeners[ev] = (listeners[ev] || []).filter((g) => g !== f); return provider; },
    removeListener(ev, f) { return provider.off(ev, f); },
    removeAllListeners(ev) { if (ev) delete listeners[ev]; else for (const k of Object.keys(listeners)) delete listeners[k]; return provider; },
    async signTransaction(tx) {
      const r = await call('signTransaction', { tx: toB64(serialize(tx)) });
      return applySignature(tx, r.signature, r.index);
    },
    async signAllTransactions(txs) {
      const r = await call('signAllTransactions', { txs: txs.map((t) => toB64(serialize(t))) });
      return txs.map((tx, i) => applySignature(tx, r[i].signature, r[i].index));
    },
    async signAndSendTransaction(tx, options) {
      const r = await call('signAndSendTransaction', { tx: toB64(serialize(tx)), options: options || {} });
      return { signature: r.signature, publicKey };
    },
    async signMessage(message, display) {
      const r = await call('signMessage', { message: toB64(message), display: display || 'utf8' });
      return { signature: fromB64(r.signature), publicKey };
    },
    async request({ method, params }) {
      if (method === 'connect') return provider.connect(params);
      if (method === 'disconnect') return provider.disconnect();
      const e = new Error('Method not supported by the test wallet: ' + method); e.code = -32601; throw e;
    },
  };
  Object.defineProperty(window, 'phantom', { value: { solana: provider }, configurable: true, writable: true });
  // Real Phantom sets this flag too; @solana/wallet-adapter-phantom only reports 'Installed' when it is there.
  Object.defineProperty(window, 'isPhantomInstalled', { value: true, configurable: true, writable: true });
  Object.defineProperty(window, 'solana', { value: provider, configurable: true, writable: true });
})();`;
}

/** Installs the test wallet in `page` (call before the app's first navigation). */
export async function installTestWallet(page: Page, opts: TestWalletOptions): Promise<TestWalletControl> {
  const signer = new TestWalletSigner(opts.keypair, opts.rpcUrl);
  if (!opts.absent) {
    await page.exposeFunction(WALLET_BINDING, (req: WalletRequest) => signer.handle(req));
    await page.addInitScript({
      content: walletPageScript(
        opts.keypair.publicKey.toBase58(),
        opts.keypair.publicKey.toBytes(),
        opts.trusted === true,
      ),
    });
    // Real Phantom also registers itself as a Wallet Standard wallet named "Phantom": the store reaches it that
    // way (no Phantom adapter), through the same signer.
    await page.addInitScript({
      content: standardWalletPageScript(
        'Phantom',
        opts.keypair.publicKey.toBase58(),
        opts.keypair.publicKey.toBytes(),
        ['solana:signAndSendTransaction', 'solana:signTransaction', 'solana:signMessage'],
        { binding: WALLET_BINDING, trusted: opts.trusted === true },
      ),
    });
  }
  return {
    publicKey: opts.keypair.publicKey,
    setReject: (kind, o) => signer.setReject(kind, o),
    requests: () => signer.requests(),
    sent: () => signer.sent(),
  };
}

export const STANDARD_WALLET_BINDING = '__claimStandardTestWallet';
export type StandardFeature =
  'solana:signAndSendTransaction' | 'solana:signTransaction' | 'solana:signMessage' | 'solana:signIn';

/**
 * The in-page script of a Wallet Standard test wallet (plain JS): registers itself with the standard
 * `wallet-standard:register-wallet` event (and again on the app's `wallet-standard:app-ready`), with
 * standard:connect / disconnect / events and the given Solana features. Signing happens in Node (the binding).
 */
export function standardWalletPageScript(
  name: string,
  publicKeyBase58: string,
  publicKeyBytes: Uint8Array,
  features: readonly StandardFeature[],
  opts: { binding?: string; trusted?: boolean } = {},
): string {
  const icon =
    'data:image/svg+xml;base64,' +
    Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="8" fill="#2a7"/></svg>',
    ).toString('base64');
  return `(() => {
  const BINDING = ${JSON.stringify(opts.binding ?? STANDARD_WALLET_BINDING)};
  const NAME = ${JSON.stringify(name)};
  const ICON = ${JSON.stringify(icon)};
  const KEY = ${JSON.stringify(publicKeyBase58)};
  const KEY_BYTES = ${JSON.stringify(Array.from(publicKeyBytes))};
  const FEATURES = ${JSON.stringify(features)};
  const CHAINS = ['solana:mainnet', 'solana:devnet', 'solana:testnet', 'solana:localnet'];
  const toB64 = (bytes) => { let s = ''; const u = new Uint8Array(bytes); for (let i = 0; i < u.length; i++) s += String.fromCharCode(u[i]); return btoa(s); };
  const fromB64 = (s) => { const bin = atob(s); const u = new Uint8Array(bin.length); for (let i = 0; i < bin.length; i++) u[i] = bin.charCodeAt(i); return u; };
  const call = async (method, payload) => {
    const reply = await window[BINDING]({ method, payload });
    if (reply && reply.error) { const e = new Error(reply.error.message); e.code = reply.error.code; throw e; }
    return reply ? reply.result : undefined;
  };
  const account = Object.freeze({ address: KEY, publicKey: new Uint8Array(KEY_BYTES), chains: CHAINS, features: FEATURES, label: NAME, icon: ICON });
  let accounts = [];
  // A wallet remembers the sites it connected to (Phantom: per origin), so a silent connect after a reload works.
  const TRUST_KEY = 'claimTestWalletTrusted:' + NAME;
  const remembered = () => { try { return sessionStorage.getItem(TRUST_KEY) === '1'; } catch { return false; } };
  const remember = () => { try { sessionStorage.setItem(TRUST_KEY, '1'); } catch { /* no storage */ } };
  let trusted = ${opts.trusted ? 'true' : 'false'} || remembered();
  const listeners = { change: [] };
  const changed = () => listeners.change.slice().forEach((f) => { try { f({ accounts: accounts.slice() }); } catch (e) { console.error(e); } });
  const features = {
    'standard:connect': { version: '1.0.0', async connect(input) {
      if (input && input.silent && !trusted) return { accounts: [] };
      await call('connect', { silent: !!(input && input.silent) });
      trusted = true; remember(); accounts = [account]; changed();
      return { accounts: accounts.slice() };
    } },
    'standard:disconnect': { version: '1.0.0', async disconnect() { accounts = []; changed(); } },
    'standard:events': { version: '1.0.0', on(event, listener) {
      (listeners[event] = listeners[event] || []).push(listener);
      return () => { listeners[event] = listeners[event].filter((g) => g !== listener); };
    } },
  };
  if (FEATURES.includes('solana:signAndSendTransaction'))
    features['solana:signAndSendTransaction'] = { version: '1.0.0', supportedTransactionVersions: ['legacy', 0],
      async signAndSendTransaction(...inputs) {
        const out = [];
        for (const i of inputs) {
          const r = await call('signAndSendTransaction', { tx: toB64(i.transaction), options: i.options || {}, chain: i.chain });
          out.push({ signature: fromB64(r.signatureBytes) });
        }
        return out;
      } };
  if (FEATURES.includes('solana:signTransaction'))
    features['solana:signTransaction'] = { version: '1.0.0', supportedTransactionVersions: ['legacy', 0],
      async signTransaction(...inputs) {
        const out = [];
        for (const i of inputs) {
          const r = await call('signTransaction', { tx: toB64(i.transaction), chain: i.chain });
          out.push({ signedTransaction: fromB64(r.signed) });
        }
        return out;
      } };
  if (FEATURES.includes('solana:signMessage'))
    features['solana:signMessage'] = { version: '1.0.0',
      async signMessage(...inputs) {
        const out = [];
        for (const i of inputs) {
          const r = await call('signMessage', { message: toB64(i.message), display: 'utf8' });
          out.push({ signedMessage: i.message, signature: fromB64(r.signature) });
        }
        return out;
      } };
  if (FEATURES.includes('solana:signIn'))
    features['solana:signIn'] = { version: '1.0.0',
      async signIn(...inputs) {
        const out = [];
        for (const i of inputs) {
          const r = await call('signIn', { input: i, host: location.host });
          trusted = true; remember(); accounts = [account]; changed();
          out.push({ account, signedMessage: fromB64(r.signedMessage), signature: fromB64(r.signature) });
        }
        return out;
      } };
  const wallet = { version: '1.0.0', name: NAME, icon: ICON, chains: CHAINS, features, get accounts() { return accounts.slice(); } };
  const callback = ({ register }) => register(wallet);
  try { window.dispatchEvent(new CustomEvent('wallet-standard:register-wallet', { detail: callback })); } catch (e) { console.error(e); }
  try { window.addEventListener('wallet-standard:app-ready', ({ detail: api }) => callback(api)); } catch (e) { console.error(e); }
})();`;
}

/**
 * Installs a Wallet Standard test wallet (no `window.phantom`, no `window.solana`) in `page`, before the app's first
 * navigation. It signs with `keypair`; with 'solana:signAndSendTransaction' it submits to `rpcUrl` itself, with
 * 'solana:signTransaction' only the app submits.
 */
export async function installStandardTestWallet(
  page: Page,
  opts: { keypair: Keypair; rpcUrl: string; name: string; features: readonly StandardFeature[] },
): Promise<TestWalletControl> {
  const signer = new TestWalletSigner(opts.keypair, opts.rpcUrl);
  await page.exposeFunction(STANDARD_WALLET_BINDING, (req: WalletRequest) => signer.handle(req));
  await page.addInitScript({
    content: standardWalletPageScript(
      opts.name,
      opts.keypair.publicKey.toBase58(),
      opts.keypair.publicKey.toBytes(),
      opts.features,
    ),
  });
  return {
    publicKey: opts.keypair.publicKey,
    setReject: (kind, o) => signer.setReject(kind, o),
    requests: () => signer.requests(),
    sent: () => signer.sent(),
  };
}
