/**
 * Associated token account addresses, synchronously, for the server's pure code (payment and refund judging,
 * the watcher's token accounts, the transaction request's write-locked accounts). The same derivation as
 * @solana-program/token's `findAssociatedTokenPda` (the program-derived address of [owner, token program, mint]
 * under the associated-token program: SHA-256 of the seeds, the bump, the program and "ProgramDerivedAddress",
 * from bump 255 down to the first that is off the ed25519 curve), with Node's SHA-256 instead of WebCrypto's, so
 * it need not be awaited; `ata.test.ts` checks the two agree. The owner may itself be off the curve (a PDA).
 */
import { createHash } from 'node:crypto';
import { ASSOCIATED_TOKEN_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { address, getAddressDecoder, getAddressEncoder, type Address } from '@solana/kit';
import { bytesAreOnCurve } from './curve';

/** The Token-2022 program (a $CLAIM mint may live under it; @solana-program/token names only the classic one). */
export const TOKEN_2022_PROGRAM_ADDRESS = address('TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb');

const encoder = getAddressEncoder();
const decoder = getAddressDecoder();
const MARKER = Buffer.from('ProgramDerivedAddress');
const ATA_PROGRAM = encoder.encode(ASSOCIATED_TOKEN_PROGRAM_ADDRESS) as Uint8Array;

/**
 * The associated token account of `owner` for `mint` under `tokenProgram` (classic SPL Token by default).
 * Throws when `owner`, `mint` or `tokenProgram` is not a valid address.
 */
export function associatedTokenAddress(
  mint: string,
  owner: string,
  tokenProgram: string = TOKEN_PROGRAM_ADDRESS,
): Address {
  // ~0.2 ms each (the curve check in BigInt arithmetic, once per bump tried; base58 once), asked for the same wallet
  // by its quote's balance read and its order's: the last few thousand are remembered (an address derives one way
  // forever).
  const key = `${mint} ${owner} ${tokenProgram}`;
  const known = derived.get(key);
  if (known !== undefined) return known;
  const found = derive(mint, owner, tokenProgram);
  if (derived.size >= REMEMBERED) derived.delete(derived.keys().next().value as string);
  derived.set(key, found);
  return found;
}

/** How many derivations `associatedTokenAddress` remembers (the oldest goes first). */
const REMEMBERED = 4096;
const derived = new Map<string, Address>();

function derive(mint: string, owner: string, tokenProgram: string): Address {
  // The encoder throws for anything but a base58 string of 32 bytes.
  const seeds = [owner, tokenProgram, mint].map((a) => encoder.encode(a as Address) as Uint8Array);
  for (let bump = 255; bump >= 0; bump--) {
    const hash = createHash('sha256');
    for (const s of seeds) hash.update(s);
    const candidate = hash.update(Uint8Array.of(bump)).update(ATA_PROGRAM).update(MARKER).digest();
    // Checked on its bytes; only the address found is written in base58.
    if (!bytesAreOnCurve(candidate)) return decoder.decode(candidate) as Address;
  }
  throw new Error(`no associated token account for ${owner} and ${mint}`);
}
