/**
 * The demo chain's keys as web3.js `Keypair`s, for tests, benches and scripts/demo-pay.ts (dev only): the same
 * seeds as src/localnet/demo-keys.ts and src/server/demo-keys.ts, sha256(`claim-demo:${label}`), so the same
 * addresses (src/server/demo-keys.test.ts checks they agree).
 */
import { createHash } from 'node:crypto';
import { Keypair, type PublicKey } from '@solana/web3.js';

/** Deterministic demo keys: the same addresses on every run (never use them for anything of value). */
export interface DemoKeys {
  mint: PublicKey;
  mintAuthority: Keypair;
  recipients: { coopersglass: PublicKey; gorilla: PublicKey };
}

/** Keypair derived from a fixed label: seed = sha256(`claim-demo:${label}`). */
export function demoKeypair(label: string): Keypair {
  const seed = createHash('sha256').update(`claim-demo:${label}`).digest();
  return Keypair.fromSeed(new Uint8Array(seed));
}

/** Keypair of the demo mint account itself (needed only to create the mint). */
export function demoMintKeypair(): Keypair {
  return demoKeypair('mint');
}

/** Fee payer and SOL source of the localnet faucet (funded at start). */
export function faucetKeypair(): Keypair {
  return demoKeypair('faucet');
}

/**
 * The demo payout wallet of any payout group (vendors are data: a new vendor gets its own demo wallet).
 * `demoRecipientKeypair('coopersglass')` is the same key as demoRecipientKeypairs().coopersglass.
 */
export function demoRecipientKeypair(group: string): Keypair {
  return demoKeypair(`recipient:${group}`);
}

export function demoRecipientKeypairs(): { coopersglass: Keypair; gorilla: Keypair } {
  return { coopersglass: demoKeypair('recipient:coopersglass'), gorilla: demoKeypair('recipient:gorilla') };
}

export const DEMO_MINT_DECIMALS = 6;

export function demoKeys(): DemoKeys {
  const r = demoRecipientKeypairs();
  return {
    mint: demoMintKeypair().publicKey,
    mintAuthority: demoKeypair('mint-authority'),
    recipients: { coopersglass: r.coopersglass.publicKey, gorilla: r.gorilla.publicKey },
  };
}
