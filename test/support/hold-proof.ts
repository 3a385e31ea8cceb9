/**
 * The hold rule in tests (docs/decisions/holds.md): a wallet's signed proof for a quote's reference, as the
 * checkout sends it, and, for tests about something else than balances, a balance reader that answers one
 * amount for every wallet (tests about balances read the localnet: test/integration/wallet-holds.test.ts).
 */
import { Keypair } from '@solana/web3.js';
import nacl from 'tweetnacl';
import { holdProofMessage, type PayerProof } from '../../src/core/hold-proof';
import type { WalletBalances } from '../../src/server/payments/wallet-balances';

/** The wallet `keypair` signs the hold message for `reference` (what Buy Now asks the wallet to sign). */
export function proofOf(keypair: Keypair, reference: string): PayerProof {
  const message = new TextEncoder().encode(holdProofMessage(keypair.publicKey.toBase58(), reference));
  return {
    address: keypair.publicKey.toBase58(),
    signature: Buffer.from(nacl.sign.detached(message, keypair.secretKey)).toString('base64'),
  };
}

/** A buyer wallet for tests whose subject is not the balance. */
export const TEST_PAYER = Keypair.fromSeed(new Uint8Array(32).fill(7));

/** Every wallet holds `units` (default: far more than any order): for tests whose subject is not the balance. */
export function balancesAssumed(units = 10n ** 18n): WalletBalances {
  return { balanceOf: () => Promise.resolve(units) };
}
