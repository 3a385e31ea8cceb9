/** Pieces of a landed transaction's record that come from LiteSVM's metadata and the message. */
import type { TransactionMetadata } from 'litesvm/dist/internal.js';
import { parseTokenAccount, uiTokenAmount, type AccountView, type MintData } from './accounts.js';
import type { CompiledIx, TokenBalance, TxRecord } from './history.js';
import type { MessageHeader } from './wire.js';

const MEMO_PROGRAMS = new Set([
  'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr',
  'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo',
]);

/** LiteSVM's fee (priority fee included), read from its metadata's text; 5000 per signature when absent. */
export function feeFromMeta(meta: TransactionMetadata, numSignatures: number): number {
  const m = /fee: (\d+) \}\)?\s*$/.exec(meta.toString());
  return m?.[1] !== undefined ? Number(m[1]) : 5000 * numSignatures;
}

/** Whether account `i` is writable: by the header for static keys (signers first), then loaded writable keys. */
export function isWritable(
  header: MessageHeader,
  i: number,
  staticCount: number,
  loadedWritable: number,
): boolean {
  if (i >= staticCount) return i < staticCount + loadedWritable;
  if (i < header.numRequiredSignatures)
    return i < header.numRequiredSignatures - header.numReadonlySignedAccounts;
  return i < staticCount - header.numReadonlyUnsignedAccounts;
}

export function convertInner(meta: TransactionMetadata): { index: number; instructions: CompiledIx[] }[] {
  const out: { index: number; instructions: CompiledIx[] }[] = [];
  meta.innerInstructions().forEach((list, index) => {
    if (list.length === 0) return;
    out.push({
      index,
      instructions: list.map((inner) => {
        const ix = inner.instruction();
        return {
          programIdIndex: ix.programIdIndex(),
          accounts: Array.from(ix.accounts()),
          data: ix.data(),
          stackHeight: inner.stackHeight(),
        };
      }),
    });
  });
  return out;
}

/** The RPC's memo field: "[len] text" for each Memo instruction, joined with "; ". */
export function memoOf(r: TxRecord): string | null {
  const memos: string[] = [];
  for (const ix of r.instructions) {
    const program = r.accountKeys[ix.programIdIndex];
    if (program !== undefined && MEMO_PROGRAMS.has(program)) {
      const text = Buffer.from(ix.data).toString('utf8');
      memos.push(`[${ix.data.length}] ${text}`);
    }
  }
  return memos.length > 0 ? memos.join('; ') : null;
}

/** The token balances among `accounts` (pre or post), as the RPC's meta lists them. */
export function tokenBalances(
  keys: string[],
  accounts: (AccountView | null)[],
  mintOf: (address: string) => MintData | null,
): TokenBalance[] {
  const out: TokenBalance[] = [];
  accounts.forEach((acc, i) => {
    if (!acc) return;
    const t = parseTokenAccount(acc);
    const key = keys[i];
    if (!t || key === undefined) return;
    const mint = mintOf(t.mint);
    out.push({
      accountIndex: i,
      mint: t.mint,
      owner: t.owner,
      programId: acc.owner,
      uiTokenAmount: uiTokenAmount(t.amount, mint?.decimals ?? 0),
    });
  });
  return out;
}
