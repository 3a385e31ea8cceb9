/**
 * The demo chain's deterministic keys (never use them for anything of value): the same addresses on every run,
 * made by src/server/demo-keys.ts (Node's ed25519 over seed = sha256(`claim-demo:${label}`)), so the localnet
 * and the server in demo mode agree by construction. Tests that want web3.js `Keypair`s of the same keys use
 * test/support/demo-keypairs.ts (demo-keys.test.ts checks both give the same addresses).
 */
import type { Address } from '@solana/kit';
import { demoAddress, demoSign } from '../server/demo-keys.js';

/** A demo key that signs: its address and an ed25519 signature of a message's bytes. */
export interface DemoSigner {
  address: Address;
  sign(message: Uint8Array): Uint8Array;
}

export interface DemoKeys {
  mint: Address;
  mintAuthority: DemoSigner;
  recipients: { coopersglass: Address; gorilla: Address };
}

export const DEMO_MINT_DECIMALS = 6;

/** The signer of the demo key labelled `label` ('mint', 'faucet', `recipient:${group}`, …). */
export function demoSigner(label: string): DemoSigner {
  return { address: demoAddress(label) as Address, sign: (message) => demoSign(label, message) };
}

/** The demo mint account itself (its key is needed only to create the mint). */
export function demoMintSigner(): DemoSigner {
  return demoSigner('mint');
}

/** Fee payer and SOL source of the localnet faucet (funded at start). */
export function faucetSigner(): DemoSigner {
  return demoSigner('faucet');
}

export function demoKeys(): DemoKeys {
  return {
    mint: demoMintSigner().address,
    mintAuthority: demoSigner('mint-authority'),
    recipients: {
      coopersglass: demoAddress('recipient:coopersglass') as Address,
      gorilla: demoAddress('recipient:gorilla') as Address,
    },
  };
}
