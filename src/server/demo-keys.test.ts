import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import { demoKeypair, demoKeys } from '../../test/support/demo-keypairs';
import { demoKeys as chainKeys, demoSigner } from '../localnet/demo-keys';
import { demoDefaults } from './demo-defaults';
import { demoAddress, demoRecipientLabel, demoSign } from './demo-keys';

/** The demo mint's address since the first demo run (README and seeded databases name it). */
const MINT = '3PUCSa2NpabDpY979X6RqFy1nDeHGFx8jb575yMeSvhU';

describe("the server's demo keys", () => {
  it("are the localnet's: same addresses, same signatures", () => {
    for (const label of ['mint', demoRecipientLabel('coopersglass'), demoRecipientLabel('a-new-vendor')]) {
      const key = demoKeypair(label);
      expect(demoAddress(label)).toBe(key.publicKey.toBase58());
      const message = new TextEncoder().encode(`sign in as ${label}`);
      const signature = demoSign(label, message);
      expect(signature).toEqual(nacl.sign.detached(message, key.secretKey));
      expect(nacl.sign.detached.verify(message, signature, key.publicKey.toBytes())).toBe(true);
    }
    const keys = demoKeys();
    // The demo chain's own keys (kit addresses, Node's ed25519) are the same, and stay the ones every run has used.
    const chain = chainKeys();
    expect(chain.mint).toBe(keys.mint.toBase58());
    expect(chain.mintAuthority.address).toBe(keys.mintAuthority.publicKey.toBase58());
    expect(chain.recipients.coopersglass).toBe(keys.recipients.coopersglass.toBase58());
    expect(chain.recipients.gorilla).toBe(keys.recipients.gorilla.toBase58());
    expect(demoSigner('faucet').address).toBe(demoKeypair('faucet').publicKey.toBase58());
    expect(chain.mint).toBe(MINT);
    const defaults = demoDefaults();
    expect(defaults.claimMint).toBe(keys.mint.toBase58());
    expect(defaults.recipients.coopersglass).toBe(keys.recipients.coopersglass.toBase58());
    expect(defaults.recipients.gorilla).toBe(keys.recipients.gorilla.toBase58());
  });
});
