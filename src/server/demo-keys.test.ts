import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import { demoKeypair, demoKeys } from '../localnet/demo-keys';
import { demoDefaults } from './demo-defaults';
import { demoAddress, demoRecipientLabel, demoSign } from './demo-keys';

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
    const defaults = demoDefaults();
    expect(defaults.claimMint).toBe(keys.mint.toBase58());
    expect(defaults.recipients.coopersglass).toBe(keys.recipients.coopersglass.toBase58());
    expect(defaults.recipients.gorilla).toBe(keys.recipients.gorilla.toBase58());
  });
});
