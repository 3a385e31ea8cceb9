import { Suspense, useEffect, useRef } from 'react';
import { Link, NavLink, Outlet, useLocation } from 'react-router-dom';
import { paths, resolveScreen } from '../../core/routes';
import { catalog } from '../catalog';
import { TELEGRAM_GROUP_URL } from '../lib/links';
import { captureReferral } from '../lib/referral';
import { NAVS, navFor } from './nav';

/** Page frame: skip link, header with the screen's nav variant, main landmark, footer. */
export function Shell() {
  const location = useLocation();
  const screen = resolveScreen(catalog, location.pathname);
  const variant = navFor(screen);
  const first = useRef(true);

  useEffect(() => {
    captureReferral(location.search, window.localStorage);
  }, [location.search]);

  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    window.scrollTo(0, 0);
    document.getElementById('main')?.focus({ preventScroll: true });
  }, [location.pathname]);

  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="site-header">
        <Link to={paths.home} className="brand" aria-label="$CLAIM home">
          <span aria-hidden="true">$CLAIM</span>
        </Link>
        <nav aria-label="Main" data-nav={variant}>
          <ul>
            {NAVS[variant].map((item) => (
              <li key={item.label}>
                <NavLink to={item.to} end>
                  {item.label}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
      </header>
      <main id="main" tabIndex={-1}>
        <Suspense fallback={<p className="page-loading">Loading…</p>}>
          <Outlet />
        </Suspense>
      </main>
      <footer className="site-footer">
        <p>
          Questions? Join our{' '}
          <a href={TELEGRAM_GROUP_URL} target="_blank" rel="noopener noreferrer">
            Telegram group
          </a>
          .
        </p>
        <p>$CLAIM, the Reclaim community token on Solana.</p>
      </footer>
    </>
  );
}
