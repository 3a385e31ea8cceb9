/** Transaction history of the localnet: every landed transaction, indexed by signature and by every account key. */
import type { UiTokenAmount } from './accounts.js';
import type { RpcTransactionError } from './tx-errors.js';

export interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: UiTokenAmount;
}

/** A v1 message's config values (absent ones null), in the names of the RPC's `message.transactionConfig`. */
export interface V1Config {
  computeUnitLimit: number | null;
  heapSize: number | null;
  loadedAccountsDataSizeLimit: number | null;
  /** The total priority fee in lamports (not a price per compute unit). */
  priorityFee: number | null;
}

export interface CompiledIx {
  programIdIndex: number;
  accounts: number[];
  /** Raw instruction data. */
  data: Uint8Array;
  stackHeight: number | null;
}

export interface TxRecord {
  signature: string;
  signatures: string[];
  slot: number;
  blockTime: number;
  /** Position in the ledger (monotonic), to order transactions inside one slot. */
  seq: number;
  /** The message version: legacy, 0, or 1 (SIMD-0385). */
  version: 'legacy' | 0 | 1;
  /** A v1 message's compute budget (its config mask's values), as JSON answers carry it; null before v1. */
  transactionConfig: V1Config | null;
  header: {
    numRequiredSignatures: number;
    numReadonlySignedAccounts: number;
    numReadonlyUnsignedAccounts: number;
  };
  /** Static keys, then loaded writable, then loaded readonly (the runtime's account order). */
  accountKeys: string[];
  staticKeyCount: number;
  loadedAddresses: { writable: string[]; readonly: string[] };
  addressTableLookups: { accountKey: string; writableIndexes: number[]; readonlyIndexes: number[] }[];
  writable: boolean[];
  signer: boolean[];
  recentBlockhash: string;
  instructions: CompiledIx[];
  innerInstructions: { index: number; instructions: CompiledIx[] }[];
  err: RpcTransactionError | null;
  fee: number;
  preBalances: number[];
  postBalances: number[];
  preTokenBalances: TokenBalance[];
  postTokenBalances: TokenBalance[];
  logs: string[];
  computeUnitsConsumed: number;
  memo: string | null;
  /** The transaction as it was sent (wire format). */
  raw: Uint8Array;
}

export class History {
  private readonly bySignature = new Map<string, TxRecord>();
  private readonly byAddress = new Map<string, TxRecord[]>();
  private seq = 0;

  nextSeq(): number {
    this.seq += 1;
    return this.seq;
  }

  add(record: TxRecord): void {
    this.bySignature.set(record.signature, record);
    this.indexSlot(record);
    for (const key of new Set(record.accountKeys)) {
      let list = this.byAddress.get(key);
      if (!list) {
        list = [];
        this.byAddress.set(key, list);
      }
      list.push(record);
    }
  }

  get(signature: string): TxRecord | undefined {
    return this.bySignature.get(signature);
  }

  has(signature: string): boolean {
    return this.bySignature.has(signature);
  }

  get size(): number {
    return this.bySignature.size;
  }

  /**
   * Transactions that mention `address`, newest first, like getSignaturesForAddress:
   * starts after `before` (exclusive), stops at `until` (exclusive), at most `limit`, only those accepted by `visible`.
   */
  forAddress(
    address: string,
    opts: { before?: string; until?: string; limit: number; visible: (r: TxRecord) => boolean },
  ): TxRecord[] {
    const list = this.byAddress.get(address) ?? [];
    const out: TxRecord[] = [];
    let started = opts.before === undefined;
    for (let i = list.length - 1; i >= 0 && out.length < opts.limit; i -= 1) {
      const r = list[i];
      if (!r) continue;
      if (!started) {
        if (r.signature === opts.before) started = true;
        continue;
      }
      if (opts.until !== undefined && r.signature === opts.until) break;
      if (opts.visible(r)) out.push(r);
    }
    return out;
  }

  /** Records landed in `slot` (for commitment notifications). */
  inSlot(slot: number): TxRecord[] {
    return this.slotIndex.get(slot) ?? [];
  }

  private readonly slotIndex = new Map<number, TxRecord[]>();

  private indexSlot(record: TxRecord): void {
    let list = this.slotIndex.get(record.slot);
    if (!list) {
      list = [];
      this.slotIndex.set(record.slot, list);
    }
    list.push(record);
  }
}
