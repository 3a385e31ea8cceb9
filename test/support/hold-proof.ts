/**
 * The hold rule in tests (docs/decisions/holds.md): a wallet's signed proof for a quote's reference, as the
 * checkout sends it, and, for tests about something else than balances, a balance reader that answers one
 * amount for every wallet (tests about balances read the localnet: test/integration/wallet-holds.test.ts).
 */
import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { Keypair } from '@solana/web3.js';
import { holdProofMessage, type PayerProof } from '../../src/core/hold-proof';
import type { WalletBalances } from '../../src/server/payments/wallet-balances';

/** PKCS#8 DER for an ed25519 private key: a fixed 16-byte header, then the 32-byte seed. */
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');
const keys = new WeakMap<Keypair, KeyObject>();

/**
 * The wallet `keypair` signs the hold message for `reference` (what Buy Now asks the wallet to sign). Node's
 * native ed25519 (the same deterministic signature as the wallet's), so a load generator signing for a thousand
 * buyers does not spend its event loop in JavaScript ed25519 (bench:drop).
 */
export function proofOf(keypair: Keypair, reference: string): PayerProof {
  let key = keys.get(keypair);
  if (!key) {
    key = createPrivateKey({
      key: Buffer.concat([PKCS8_ED25519, keypair.secretKey.subarray(0, 32)]),
      format: 'der',
      type: 'pkcs8',
    });
    keys.set(keypair, key);
  }
  const message = new TextEncoder().encode(holdProofMessage(keypair.publicKey.toBase58(), reference));
  return {
    address: keypair.publicKey.toBase58(),
    signature: sign(null, message, key).toString('base64'),
  };
}

/** A buyer wallet for tests whose subject is not the balance. */
export const TEST_PAYER = Keypair.fromSeed(new Uint8Array(32).fill(7));

/** Every wallet holds `units` (default: far more than any order): for tests whose subject is not the balance. */
export function balancesAssumed(units = 10n ** 18n): WalletBalances {
  return { balanceOf: () => Promise.resolve(units) };
}
