/**
 * "Sign in with wallet": loaded lazily by the seller page on the first click, so the wallet code stays out of
 * the page until then. The shop's wallet picker opens; the wallet chosen signs a Sign-In-With-Solana message built
 * from the server's nonce: through the wallet's `solana:signIn` where it offers it (the wallet connects and writes
 * the standard message itself, one approval), else `solana:signMessage` of the standard SIWS text
 * (src/core/siws.ts) after connecting.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { PublicConfig } from '../../core/api';
import type { SellerMe } from '../../core/seller-api';
import { formatSiwsMessage } from '../../core/siws';
import { useWalletHandlers, useWalletSession } from '../components/WalletSession';
import { ApiRequestError } from '../lib/call';
import { canSignIn, connectWallet, signInWith, signMessageWith, toBase64, type Wallet } from '../lib/wallets';
import { sellerApi } from './api';
import { SellerWalletProviders } from './SellerWallet';

export interface WalletSignInProps {
  config: PublicConfig;
  onSignedIn: (me: SellerMe) => void;
  onError: (message: string) => void;
}

export default function WalletSignIn(props: WalletSignInProps) {
  return (
    <SellerWalletProviders>
      <SignInFlow {...props} />
    </SellerWalletProviders>
  );
}

/** Signs in with `wallet`: `solana:signIn` where offered, else connect + `solana:signMessage` of the SIWS text. */
async function signInWithWallet(wallet: Wallet): Promise<{ message: string; signature: Uint8Array }> {
  const request = await sellerApi.nonce();
  if (canSignIn(wallet)) {
    const out = await signInWith(wallet, request);
    return { message: new TextDecoder().decode(out.signedMessage), signature: out.signature };
  }
  const account = await connectWallet(wallet);
  if (!account) throw new Error('no account');
  const message = formatSiwsMessage({ ...request, address: account.address });
  const signature = await signMessageWith(wallet, account, new TextEncoder().encode(message));
  if (!signature) throw new ApiRequestError(0, 'no_signing', 'This wallet cannot sign messages.');
  return { message, signature };
}

function SignInFlow({ onSignedIn, onError }: WalletSignInProps) {
  const { openPicker, pickerOpen } = useWalletSession();
  const [chosen, setChosen] = useState<Wallet | null>(null);
  const [busy, setBusy] = useState(false);
  const asked = useRef(false);

  const run = useCallback(
    async (wallet: Wallet) => {
      setBusy(true);
      try {
        const { message, signature } = await signInWithWallet(wallet);
        onSignedIn(await sellerApi.signIn({ message, signature: toBase64(signature) }));
      } catch (err) {
        onError(
          err instanceof ApiRequestError
            ? err.message
            : 'The wallet did not sign the sign-in message. Please try again.',
        );
      } finally {
        setBusy(false);
      }
    },
    [onSignedIn, onError],
  );

  // Choosing a wallet in the picker is the intent: sign in with it at once (no separate connect step).
  useWalletHandlers({
    onChoose: (wallet) => {
      setChosen(wallet);
      void run(wallet);
    },
  });

  // First render: open the picker to choose the wallet.
  useEffect(() => {
    if (!asked.current) {
      asked.current = true;
      openPicker();
    }
  }, [openPicker]);

  if (busy)
    return (
      <p className="seller-note" role="status">
        Waiting for the wallet to sign…
      </p>
    );
  if (!chosen)
    return pickerOpen ? null : (
      <button type="button" className="button" onClick={openPicker}>
        Choose a wallet
      </button>
    );
  return (
    <p className="seller-note" role="status">
      {chosen.name}{' '}
      <button type="button" className="button" onClick={() => void run(chosen)}>
        Sign again
      </button>{' '}
      <button type="button" className="button secondary" onClick={openPicker}>
        Choose another wallet
      </button>
    </p>
  );
}
