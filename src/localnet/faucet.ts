/** POST /faucet: airdrops SOL and mints demo $CLAIM to the owner's associated token account. */
import { createNoopSigner, type Address, type Instruction } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import {
  TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getMintToCheckedInstruction,
} from '@solana-program/token';
import { formatUnits, parseTokenAccount } from './accounts.js';
import { parseAddress } from './address.js';
import type { Chain } from './chain.js';
import type { DemoSigner } from './demo-keys.js';
import { submitInternal } from './ledger-tx.js';

const LAMPORTS_PER_SOL = 1_000_000_000n;

export const FAUCET_MAX_SOL = 1000n;
export const FAUCET_MAX_CLAIM = 1_000_000_000n;

export interface FaucetConfig {
  chain: Chain;
  payer: DemoSigner;
  /** Absent when the localnet was started without seeding. */
  mint?: { address: Address; authority: DemoSigner; decimals: number };
}

export class FaucetInputError extends Error {}

export interface FaucetResult {
  signature: string;
  signatures: string[];
  address: string;
  ata: string | null;
  /** SOL balance after the airdrop, as a decimal number of SOL. */
  solBalance: number;
  lamports: string;
  /** $CLAIM balance of the ATA after minting, exact decimal string. */
  claimBalance: string;
  claimBaseUnits: string;
}

/**
 * Parses a non-negative decimal amount exactly into base units (never via float arithmetic).
 * Accepts a JSON number or a decimal string; exponents and more than `decimals` places are refused.
 */
export function parseAmount(value: unknown, decimals: number, name: string): bigint {
  if (value === undefined || value === null) return 0n;
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new FaucetInputError(`${name} must be a finite number`);
    text = String(value);
  } else if (typeof value === 'string') {
    text = value.trim();
  } else {
    throw new FaucetInputError(`${name} must be a number`);
  }
  if (text.startsWith('-')) throw new FaucetInputError(`${name} must not be negative`);
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) throw new FaucetInputError(`${name} must be a plain decimal number (got ${JSON.stringify(value)})`);
  const int = m[1] ?? '0';
  const frac = m[2] ?? '';
  if (frac.length > decimals) throw new FaucetInputError(`${name} has more than ${decimals} decimal places`);
  return BigInt(int + frac.padEnd(decimals, '0'));
}

export async function faucet(cfg: FaucetConfig, body: unknown): Promise<FaucetResult> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new FaucetInputError(
      'body must be a JSON object {"address": base58, "sol": number, "claim": number}',
    );
  }
  const { address, sol, claim } = body as Record<string, unknown>;
  if (typeof address !== 'string' || address.length === 0)
    throw new FaucetInputError('address is required (a base58 public key)');
  const owner = parseAddress(address);
  if (owner === null)
    throw new FaucetInputError(`address is not a valid base58 public key: ${JSON.stringify(address)}`);
  const lamports = parseAmount(sol, 9, 'sol');
  const decimals = cfg.mint?.decimals ?? 6;
  const claimUnits = parseAmount(claim, decimals, 'claim');
  if (lamports === 0n && claimUnits === 0n)
    throw new FaucetInputError('nothing to send: sol and claim are both zero or absent');
  if (lamports > FAUCET_MAX_SOL * LAMPORTS_PER_SOL)
    throw new FaucetInputError(`sol must be at most ${FAUCET_MAX_SOL}`);
  if (claimUnits > FAUCET_MAX_CLAIM * 10n ** BigInt(decimals))
    throw new FaucetInputError(`claim must be at most ${FAUCET_MAX_CLAIM}`);
  const mint = cfg.mint;
  if (claimUnits > 0n && !mint)
    throw new FaucetInputError('this localnet has no demo mint (started with seed: false)');

  const ixs: Instruction[] = [];
  const payer = createNoopSigner(cfg.payer.address);
  if (lamports > 0n)
    ixs.push(getTransferSolInstruction({ source: payer, destination: owner, amount: lamports }));
  let ata: Address | null = null;
  const signers: DemoSigner[] = [];
  if (mint) {
    [ata] = await findAssociatedTokenPda({ owner, mint: mint.address, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    if (claimUnits > 0n) {
      ixs.push(getCreateAssociatedTokenIdempotentInstruction({ payer, ata, owner, mint: mint.address }));
      ixs.push(
        getMintToCheckedInstruction({
          mint: mint.address,
          token: ata,
          mintAuthority: createNoopSigner(mint.authority.address),
          amount: claimUnits,
          decimals: mint.decimals,
        }),
      );
      signers.push(mint.authority);
    }
  }
  const record = submitInternal(cfg.chain, cfg.payer, signers, ixs);
  const after = cfg.chain.getAccount(owner)?.lamports ?? 0n;
  const ataAcc = ata ? cfg.chain.getAccount(ata) : null;
  const units = ataAcc ? (parseTokenAccount(ataAcc)?.amount ?? 0n) : 0n;
  return {
    signature: record.signature,
    signatures: [record.signature],
    address: owner,
    ata,
    solBalance: Number(formatUnits(after, 9)),
    lamports: after.toString(),
    claimBalance: formatUnits(units, decimals),
    claimBaseUnits: units.toString(),
  };
}

/** requestAirdrop: a real system transfer from the faucet account. */
export function airdrop(cfg: FaucetConfig, to: Address, lamports: bigint): string {
  const source = createNoopSigner(cfg.payer.address);
  return submitInternal(
    cfg.chain,
    cfg.payer,
    [],
    [getTransferSolInstruction({ source, destination: to, amount: lamports })],
  ).signature;
}
