/**
 * The seller console at /seller. Signed out: **Sign in with wallet** (the wallet code is a lazy chunk loaded on
 * the click) and, in demo mode only, a demo sign-in as a vendor without a wallet extension. Signed in: the
 * vendor's orders (SellerConsole.tsx).
 */
import { lazy, Suspense, useCallback, useEffect, useState } from 'react';
import type { SellerMe } from '../../core/seller-api';
import { useConfig } from '../api/config';
import { ApiRequestError } from '../lib/call';
import { sellerApi } from './api';
import { catalog } from '../catalog';
import { SellerConsole } from './SellerConsole';
import { usePageTitle } from '../lib/title';

const WalletSignIn = lazy(() => import('./WalletSignIn'));

type Session = { state: 'checking' } | { state: 'signed-out' } | { state: 'signed-in'; me: SellerMe };

export default function SellerPage() {
  usePageTitle('Seller console');
  const config = useConfig();
  const [session, setSession] = useState<Session>({ state: 'checking' });
  const [wantWallet, setWantWallet] = useState(false);
  const [error, setError] = useState('');
  const [demoVendor, setDemoVendor] = useState(catalog.vendors[0]?.id ?? '');

  useEffect(() => {
    let live = true;
    sellerApi.me().then(
      (me) => live && setSession({ state: 'signed-in', me }),
      () => live && setSession({ state: 'signed-out' }),
    );
    return () => {
      live = false;
    };
  }, []);

  const signedIn = useCallback((me: SellerMe) => {
    setError('');
    setWantWallet(false);
    setSession({ state: 'signed-in', me });
  }, []);
  const failed = useCallback((message: string) => {
    setError(message);
    setWantWallet(false);
  }, []);

  const signOut = async () => {
    await sellerApi.signOut().catch(() => undefined);
    setSession({ state: 'signed-out' });
  };

  const demoSignIn = async () => {
    setError('');
    try {
      signedIn(await sellerApi.demoSignIn(demoVendor));
    } catch (err) {
      failed(err instanceof ApiRequestError ? err.message : 'The demo sign-in failed.');
    }
  };

  if (session.state === 'signed-in')
    return <SellerConsole me={session.me} config={config} onSignOut={() => void signOut()} />;

  return (
    <section className="seller-page">
      <h1>Seller console</h1>
      <p>Vendors sign in with the wallet their orders are paid to, to see and fulfil their orders.</p>
      <div className="seller-signin">
        <button
          type="button"
          className="button big"
          disabled={session.state === 'checking' || config.status !== 'known' || wantWallet}
          onClick={() => {
            setError('');
            setWantWallet(true);
          }}
        >
          Sign in with wallet
        </button>
        {wantWallet && config.status === 'known' && (
          <Suspense fallback={<p role="status">Loading the wallet…</p>}>
            <WalletSignIn config={config.config} onSignedIn={signedIn} onError={failed} />
          </Suspense>
        )}
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {config.status === 'known' && config.config.demo && (
        <div className="seller-demo">
          <h2>Demo</h2>
          <p>
            In demo mode the vendors&apos; payout wallets are the local network&apos;s demo keys. Sign in as a
            demo vendor without a wallet extension:
          </p>
          <label>
            Vendor{' '}
            <select value={demoVendor} onChange={(e) => setDemoVendor(e.target.value)}>
              {catalog.vendors.map((v) => (
                <option key={v.id} value={v.id}>
                  {v.name}
                </option>
              ))}
            </select>
          </label>{' '}
          <button type="button" className="button" onClick={() => void demoSignIn()}>
            Sign in as demo vendor
          </button>
        </div>
      )}
    </section>
  );
}
