/** The wallet's part in Buy Now before any money moves: the signed hold proof. */
import type { PayerProof } from '../../../core/hold-proof';
import { holdProofMessage } from '../../../core/hold-proof-message';
import { signMessageWith, toBase64, type Wallet, type WalletAccount } from '../../lib/wallets';

export { isUserRejection } from '../../lib/wallets';

/**
 * The wallet signs that it pays this order (src/core/hold-proof.ts; docs/decisions/holds.md): the order holds its
 * pieces only with this proof and the money. A wallet that cannot sign messages gives none (the order is still
 * made and payable, it just holds nothing); a decline throws (the buyer said no).
 */
export async function proveWallet(
  wallet: Wallet,
  account: WalletAccount,
  reference: string,
): Promise<PayerProof | undefined> {
  const signature = await signMessageWith(
    wallet,
    account,
    new TextEncoder().encode(holdProofMessage(account.address, reference)),
  );
  return signature ? { address: account.address, signature: toBase64(signature) } : undefined;
}
