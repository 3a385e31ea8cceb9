/**
 * The ledger: a LiteSVM instance plus what LiteSVM does not model (slots on a timer, commitment levels,
 * a 150-block blockhash queue, full transaction history with balances).
 */
import { createHash, randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import bs58 from 'bs58';
import {
  Account,
  Clock,
  FailedTransactionMetadata,
  LiteSvm,
  type SimulatedTransactionInfo,
  type TransactionMetadata,
} from 'litesvm/dist/internal.js';
import { parseMint, type AccountView, type MintData } from './accounts.js';
import { addressBytes } from './address.js';
import { History, type CompiledIx, type TxRecord } from './history.js';
import { convertError, fieldlessError, type ConvertedError, type RpcTransactionError } from './tx-errors.js';
import { convertInner, feeFromMeta, isWritable, memoOf, tokenBalances } from './tx-record.js';
import { decodeTransaction, verifySignatures, type Decoded } from './wire.js';

export type { Decoded } from './wire.js';

export type Commitment = 'processed' | 'confirmed' | 'finalized';
export const MAX_PROCESSING_AGE = 150;
const SLOTS_PER_EPOCH = 432_000;
export interface ChainOptions {
  /** Slots between "processed" and "finalized" (mainnet ~32). */
  finalizeLag: number;
}

export interface SimulationResult {
  err: RpcTransactionError | null;
  /** Display text of err (as the RPC's "Transaction simulation failed: …" message uses it). */
  errMessage: string;
  logs: string[];
  unitsConsumed: number;
  innerInstructions: { index: number; instructions: CompiledIx[] }[];
  accountKeys: string[];
  postAccounts: Map<string, AccountView | null>;
  replacementBlockhash: { blockhash: string; lastValidBlockHeight: number } | null;
  fee: number;
  returnData: { programId: string; data: Uint8Array } | null;
}

interface ChainEvents {
  slot: [slot: number];
  commitment: [record: TxRecord, level: Commitment];
}

export class Chain extends EventEmitter<ChainEvents> {
  readonly svm: LiteSvm;
  readonly history = new History();
  readonly genesisHash: string;
  /**
   * The network's background priority fee (micro-lamports per compute unit) that getRecentPrioritizationFees
   * reports for every recent slot, as if other traffic paid it; 0 = a quiet network. Tests raise it to mimic load.
   */
  prioritizationFeeFloor = 0;
  private slotNow = 0;
  private readonly slotHashes = new Map<number, string>();
  private readonly hashSlots = new Map<string, number>();
  private readonly slotTimes = new Map<number, number>();
  private readonly finalizeLag: number;
  private readonly mintCache = new Map<string, MintData>();

  constructor(opts: ChainOptions) {
    super();
    this.finalizeLag = Math.max(1, Math.floor(opts.finalizeLag));
    this.svm = new LiteSvm();
    this.svm.setBlockhashCheck(false); // we check blockhash age ourselves (150 blocks), LiteSVM only knows "latest"
    this.svm.setTransactionHistory(1_000_000n);
    this.genesisHash = bs58.encode(randomBytes(32));
    this.recordSlot(0);
  }

  // ---- slots and commitment ----

  get slot(): number {
    return this.slotNow;
  }

  /** Highest slot at the given commitment. */
  slotAt(c: Commitment): number {
    if (c === 'processed') return this.slotNow;
    if (c === 'confirmed') return Math.max(0, this.slotNow - 1);
    return Math.max(0, this.slotNow - this.finalizeLag);
  }

  /** Block height equals the slot here (no skipped slots). */
  blockHeightAt(c: Commitment): number {
    return this.slotAt(c);
  }

  epochInfo(c: Commitment): Record<string, number> {
    const s = this.slotAt(c);
    return {
      absoluteSlot: s,
      blockHeight: s,
      epoch: Math.floor(s / SLOTS_PER_EPOCH),
      slotIndex: s % SLOTS_PER_EPOCH,
      slotsInEpoch: SLOTS_PER_EPOCH,
      transactionCount: this.history.size,
    };
  }

  blockTime(slot: number): number | null {
    const t = this.slotTimes.get(slot);
    return t === undefined ? null : Math.floor(t / 1000);
  }

  /** The blockhash of a slot this ledger has produced (derived from the genesis hash), or null. */
  blockhashOf(slot: number): string | null {
    if (!Number.isInteger(slot) || slot < 0 || slot > this.slotNow) return null;
    return this.slotHashes.get(slot) ?? this.hashOfSlot(slot);
  }

  private hashOfSlot(slot: number): string {
    return bs58.encode(createHash('sha256').update(this.genesisHash).update(String(slot)).digest());
  }

  private recordSlot(slot: number): void {
    const hash = this.hashOfSlot(slot);
    this.slotHashes.set(slot, hash);
    this.hashSlots.set(hash, slot);
    this.slotTimes.set(slot, Date.now());
    const old = slot - 3 * MAX_PROCESSING_AGE;
    const oldHash = this.slotHashes.get(old);
    if (oldHash !== undefined) {
      this.slotHashes.delete(old);
      this.hashSlots.delete(oldHash);
    }
    const now = BigInt(Math.floor(Date.now() / 1000));
    this.svm.setClock(
      new Clock(
        BigInt(slot),
        now,
        BigInt(Math.floor(slot / SLOTS_PER_EPOCH)),
        BigInt(Math.floor(slot / SLOTS_PER_EPOCH) + 1),
        now,
      ),
    );
  }

  /** Advances one slot: new blockhash, clock, and commitment notifications for transactions that just reached a level. */
  tick(): void {
    this.slotNow += 1;
    this.recordSlot(this.slotNow);
    const confirmedSlot = this.slotNow - 1;
    const finalizedSlot = this.slotNow - this.finalizeLag;
    if (confirmedSlot >= 0)
      for (const r of this.history.inSlot(confirmedSlot)) this.emit('commitment', r, 'confirmed');
    if (finalizedSlot >= 0)
      for (const r of this.history.inSlot(finalizedSlot)) this.emit('commitment', r, 'finalized');
    this.emit('slot', this.slotNow);
  }

  latestBlockhash(c: Commitment): { blockhash: string; lastValidBlockHeight: number } {
    const s = this.slotAt(c);
    const hash = this.slotHashes.get(s) ?? this.slotHashes.get(this.slotNow) ?? '';
    return { blockhash: hash, lastValidBlockHeight: s + MAX_PROCESSING_AGE };
  }

  /** A blockhash can be used while the current block height is at most its height + 150. */
  isBlockhashValid(hash: string): boolean {
    const s = this.hashSlots.get(hash);
    return s !== undefined && this.slotNow - s <= MAX_PROCESSING_AGE;
  }

  /** Level reached by a transaction that landed in `slot`. */
  levelOf(slot: number): Commitment {
    if (slot <= this.slotAt('finalized')) return 'finalized';
    if (slot <= this.slotAt('confirmed')) return 'confirmed';
    return 'processed';
  }

  reached(slot: number, c: Commitment): boolean {
    return slot <= this.slotAt(c);
  }

  // ---- accounts ----

  getAccount(address: string): AccountView | null {
    let bytes: Uint8Array;
    try {
      bytes = addressBytes(address);
    } catch {
      return null;
    }
    return this.getAccountBytes(bytes);
  }

  private getAccountBytes(bytes: Uint8Array): AccountView | null {
    const a = this.svm.getAccount(bytes);
    if (!a || a.lamports() === 0n) return null;
    return {
      lamports: a.lamports(),
      data: a.data(),
      owner: bs58.encode(a.owner()),
      executable: a.executable(),
    };
  }

  setAccount(address: string, acc: AccountView): void {
    this.svm.setAccount(
      addressBytes(address),
      new Account(acc.lamports, acc.data, addressBytes(acc.owner), acc.executable, 0n),
    );
  }

  programAccounts(program: string): { pubkey: string; account: AccountView }[] {
    return this.svm
      .getProgramAccounts(addressBytes(program))
      .map((x) => {
        const a = x.account();
        return {
          pubkey: bs58.encode(x.address),
          account: {
            lamports: a.lamports(),
            data: a.data(),
            owner: bs58.encode(a.owner()),
            executable: a.executable(),
          },
        };
      })
      .filter((x) => x.account.lamports > 0n);
  }

  mint(address: string): MintData | null {
    const acc = this.getAccount(address);
    const m = acc ? parseMint(acc) : null;
    if (m) this.mintCache.set(address, m);
    return m ?? this.mintCache.get(address) ?? null;
  }

  minimumBalanceForRentExemption(len: number): number {
    return Number(this.svm.minimumBalanceForRentExemption(BigInt(len)));
  }

  // ---- transactions ----

  decode(bytes: Uint8Array): Decoded {
    return decodeTransaction(bytes, (k) => this.getAccount(k));
  }

  verifySignatures(d: Decoded): boolean {
    return verifySignatures(d);
  }

  private runSimulation(d: Decoded): SimulatedTransactionInfo | FailedTransactionMetadata {
    return d.version === 'legacy'
      ? this.svm.simulateLegacyTransaction(d.bytes)
      : this.svm.simulateVersionedTransaction(d.bytes);
  }

  private runSend(d: Decoded): TransactionMetadata | FailedTransactionMetadata {
    return d.version === 'legacy'
      ? this.svm.sendLegacyTransaction(d.bytes)
      : this.svm.sendVersionedTransaction(d.bytes);
  }

  /** Runs the transaction without committing it. */
  simulate(d: Decoded, opts: { sigVerify: boolean; replaceRecentBlockhash: boolean }): SimulationResult {
    const replacement = opts.replaceRecentBlockhash ? this.latestBlockhash('processed') : null;
    const base = {
      accountKeys: d.accountKeys,
      replacementBlockhash: replacement,
      fee: 0,
      returnData: null,
      errMessage: '',
    };
    if (!opts.replaceRecentBlockhash && !this.isBlockhashValid(d.recentBlockhash)) {
      return {
        ...base,
        err: 'BlockhashNotFound',
        errMessage: 'Blockhash not found',
        logs: [],
        unitsConsumed: 0,
        innerInstructions: [],
        postAccounts: new Map(),
      };
    }
    if (this.history.has(d.signature) && opts.sigVerify) {
      return {
        ...base,
        err: 'AlreadyProcessed',
        errMessage: 'This transaction has already been processed',
        logs: [],
        unitsConsumed: 0,
        innerInstructions: [],
        postAccounts: new Map(),
      };
    }
    const previous = this.svm.getSigverify();
    this.svm.setSigverify(opts.sigVerify);
    let res: SimulatedTransactionInfo | FailedTransactionMetadata;
    try {
      res = this.runSimulation(d);
    } finally {
      this.svm.setSigverify(previous);
    }
    const numSigs = d.signatures.length;
    if (res instanceof FailedTransactionMetadata) {
      const meta = res.meta();
      const converted = convertError(res);
      return {
        ...base,
        err: converted.json,
        errMessage: converted.message,
        logs: meta.logs(),
        unitsConsumed: Number(meta.computeUnitsConsumed()),
        innerInstructions: convertInner(meta),
        postAccounts: new Map(),
        fee: feeFromMeta(meta, numSigs),
      };
    }
    const meta = res.meta();
    const post = new Map<string, AccountView | null>();
    for (const x of res.postAccounts()) {
      const a = x.account();
      post.set(bs58.encode(x.address), {
        lamports: a.lamports(),
        data: a.data(),
        owner: bs58.encode(a.owner()),
        executable: a.executable(),
      });
    }
    const rd = meta.returnData();
    const rdData = rd.data();
    return {
      ...base,
      err: null,
      logs: meta.logs(),
      unitsConsumed: Number(meta.computeUnitsConsumed()),
      innerInstructions: convertInner(meta),
      postAccounts: post,
      fee: feeFromMeta(meta, numSigs),
      returnData: rdData.length > 0 ? { programId: bs58.encode(rd.programId()), data: rdData } : null,
    };
  }

  /**
   * Processes a transaction at the current slot. Returns the landed record (successful or failed with meta.err),
   * or the error that kept it out of the ledger (dropped, as a real cluster would drop it).
   */
  process(d: Decoded): { record: TxRecord } | { dropped: ConvertedError } {
    if (this.history.has(d.signature)) return { dropped: fieldlessError('AlreadyProcessed') };
    if (!this.isBlockhashValid(d.recentBlockhash)) return { dropped: fieldlessError('BlockhashNotFound') };
    const pre = d.accountKeys.map((k) => this.getAccount(k));
    const res = this.runSend(d);
    if (
      res instanceof FailedTransactionMetadata &&
      this.svm.getTransaction(bs58.decode(d.signature)) === null
    ) {
      return { dropped: convertError(res) };
    }
    const post = d.accountKeys.map((k) => this.getAccount(k));
    const meta = res instanceof FailedTransactionMetadata ? res.meta() : (res as TransactionMetadata);
    const record: TxRecord = {
      signature: d.signature,
      signatures: d.signatures.map((s) => bs58.encode(s)),
      slot: this.slotNow,
      blockTime: this.blockTime(this.slotNow) ?? Math.floor(Date.now() / 1000),
      seq: this.history.nextSeq(),
      version: d.version,
      transactionConfig: d.v1Config,
      header: { ...d.header },
      accountKeys: d.accountKeys,
      staticKeyCount: d.staticKeyCount,
      loadedAddresses: d.loaded,
      addressTableLookups: d.addressTableLookups.map((l) => ({
        accountKey: l.accountKey,
        writableIndexes: [...l.writableIndexes],
        readonlyIndexes: [...l.readonlyIndexes],
      })),
      writable: d.accountKeys.map((_, i) =>
        isWritable(d.header, i, d.staticKeyCount, d.loaded.writable.length),
      ),
      signer: d.accountKeys.map((_, i) => i < d.header.numRequiredSignatures),
      recentBlockhash: d.recentBlockhash,
      instructions: d.instructions.map((ix) => ({
        programIdIndex: ix.programIdIndex,
        accounts: [...ix.accountKeyIndexes],
        data: new Uint8Array(ix.data),
        stackHeight: null,
      })),
      innerInstructions: convertInner(meta),
      err: res instanceof FailedTransactionMetadata ? convertError(res).json : null,
      fee: feeFromMeta(meta, d.signatures.length),
      preBalances: pre.map((a) => Number(a?.lamports ?? 0n)),
      postBalances: post.map((a) => Number(a?.lamports ?? 0n)),
      preTokenBalances: tokenBalances(d.accountKeys, pre, (m) => this.mint(m)),
      postTokenBalances: tokenBalances(d.accountKeys, post, (m) => this.mint(m)),
      logs: meta.logs(),
      computeUnitsConsumed: Number(meta.computeUnitsConsumed()),
      memo: null,
      raw: d.bytes,
    };
    record.memo = memoOf(record);
    this.history.add(record);
    this.emit('commitment', record, 'processed');
    return { record };
  }
}
