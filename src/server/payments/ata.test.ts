import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { address, generateKeyPairSigner } from '@solana/kit';
import { PublicKey } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { associatedTokenAddress, TOKEN_2022_PROGRAM_ADDRESS } from './ata';

describe('associatedTokenAddress', () => {
  it("agrees with @solana-program/token's findAssociatedTokenPda and spl-token's, for both token programs", async () => {
    const mint = (await generateKeyPairSigner()).address;
    // Wallets, and a program-derived owner (off the curve), which a payout wallet may be.
    const owners = [
      ...(await Promise.all(Array.from({ length: 6 }, async () => (await generateKeyPairSigner()).address))),
      associatedTokenAddress(mint, (await generateKeyPairSigner()).address),
    ];
    for (const owner of owners)
      for (const tokenProgram of [TOKEN_PROGRAM_ADDRESS, TOKEN_2022_PROGRAM_ADDRESS]) {
        const [kit] = await findAssociatedTokenPda({ mint, owner, tokenProgram });
        const ours = associatedTokenAddress(mint, owner, tokenProgram);
        expect(ours).toBe(kit);
        expect(ours).toBe(
          getAssociatedTokenAddressSync(
            new PublicKey(mint),
            new PublicKey(owner),
            true,
            new PublicKey(tokenProgram),
          ).toBase58(),
        );
      }
    // Classic SPL Token when no program is named.
    expect(associatedTokenAddress(mint, owners[0]!)).toBe(
      (await findAssociatedTokenPda({ mint, owner: owners[0]!, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0],
    );
  });

  it('answers a derivation asked again from memory, the same address, under each token program', async () => {
    const mint = (await generateKeyPairSigner()).address;
    const owner = (await generateKeyPairSigner()).address;
    const classic = associatedTokenAddress(mint, owner);
    const t2022 = associatedTokenAddress(mint, owner, TOKEN_2022_PROGRAM_ADDRESS);
    expect(t2022).not.toBe(classic);
    expect(associatedTokenAddress(mint, owner)).toBe(classic);
    expect(associatedTokenAddress(mint, owner, TOKEN_2022_PROGRAM_ADDRESS)).toBe(t2022);
    expect(classic).toBe(
      (await findAssociatedTokenPda({ mint, owner, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0],
    );
  });

  it('throws for an owner or mint that is not an address', () => {
    const mint = address('So11111111111111111111111111111111111111112');
    expect(() => associatedTokenAddress(mint, 'not-an-address')).toThrow();
    // Asked again: still refused (nothing wrong is remembered).
    expect(() => associatedTokenAddress(mint, 'not-an-address')).toThrow();
    expect(() => associatedTokenAddress('0OIl', mint)).toThrow();
    expect(() => associatedTokenAddress(mint, '1111')).toThrow();
  });
});
