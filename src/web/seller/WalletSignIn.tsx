/**
 * "Sign in with wallet": loaded lazily by the seller page on the first click, so the wallet adapter (and
 * web3.js) stay out of the page until then. Connects through the same wallet-adapter modal as the checkout,
 * then signs a Sign-In-With-Solana message: the wallet's `signIn` where the adapter offers it, else
 * `signMessage` of the standard SIWS text (src/core/siws.ts) built from the server's nonce.
 */
import { useWallet } from '@solana/wallet-adapter-react';
import { useWalletModal } from '@solana/wallet-adapter-react-ui';
import { SellerWalletProviders } from './SellerWallet';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { PublicConfig } from '../../core/api';
import type { SellerMe } from '../../core/seller-api';
import { formatSiwsMessage } from '../../core/siws';
import { ApiRequestError } from '../lib/call';
import { sellerApi } from './api';

export interface WalletSignInProps {
  config: PublicConfig;
  onSignedIn: (me: SellerMe) => void;
  onError: (message: string) => void;
}

function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

export default function WalletSignIn(props: WalletSignInProps) {
  return (
    <SellerWalletProviders rpcUrl={props.config.rpcUrl}>
      <SignInFlow {...props} />
    </SellerWalletProviders>
  );
}

function SignInFlow({ onSignedIn, onError }: WalletSignInProps) {
  const { publicKey, connected, connecting, wallet, connect, signIn, signMessage } = useWallet();
  const { visible, setVisible } = useWalletModal();
  const [busy, setBusy] = useState(false);
  const asked = useRef(false);

  // First render: open the modal to choose (or connect) the wallet.
  useEffect(() => {
    if (!asked.current && !connected) {
      asked.current = true;
      setVisible(true);
    }
  }, [connected, setVisible]);

  // A wallet chosen in the modal: connect it.
  useEffect(() => {
    if (wallet && !connected && !connecting && !visible) connect().catch(() => undefined);
  }, [wallet, connected, connecting, visible, connect]);

  const run = useCallback(async () => {
    if (!publicKey) return;
    setBusy(true);
    try {
      const request = await sellerApi.nonce();
      let message: string;
      let signature: Uint8Array;
      if (signIn) {
        const out = await signIn(request);
        message = new TextDecoder().decode(out.signedMessage);
        signature = out.signature;
      } else if (signMessage) {
        message = formatSiwsMessage({ ...request, address: publicKey.toBase58() });
        signature = await signMessage(new TextEncoder().encode(message));
      } else {
        throw new ApiRequestError(0, 'no_signing', 'This wallet cannot sign messages.');
      }
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
  }, [publicKey, signIn, signMessage, onSignedIn, onError]);

  // Connected: sign at once (one click on "Sign in with wallet" is the intent).
  const started = useRef(false);
  useEffect(() => {
    if (connected && publicKey && !started.current) {
      started.current = true;
      void run();
    }
  }, [connected, publicKey, run]);

  if (!connected)
    return (
      <button type="button" className="button" onClick={() => setVisible(true)}>
        Choose a wallet
      </button>
    );
  return (
    <p className="seller-note" role="status">
      {busy ? 'Waiting for the wallet to sign…' : `Connected: ${publicKey?.toBase58() ?? ''}`}{' '}
      {!busy && (
        <button type="button" className="button" onClick={() => void run()}>
          Sign again
        </button>
      )}
    </p>
  );
}
