import { StrictMode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router-dom';
import { resolveScreen } from '../core/routes';
import { AppRoutes, preloadScreen } from './app/AppRoutes';
import { catalog } from './catalog';
import { captureReferral } from './lib/referral';
import './styles.css';

captureReferral(window.location.search, window.localStorage);

const app = (
  <StrictMode>
    <BrowserRouter>
      <AppRoutes />
    </BrowserRouter>
  </StrictMode>
);

const root = document.getElementById('root');
if (root?.firstElementChild) {
  // Prerendered at build time (scripts/prerender.ts): hydrate once the screen's chunks are here, so the page
  // hydrates in one pass. A failed chunk fetch still hydrates (the lazy page retries and shows its fallback).
  const hydrate = () => hydrateRoot(root, app);
  preloadScreen(resolveScreen(catalog, window.location.pathname)).then(hydrate, hydrate);
} else if (root) {
  createRoot(root).render(app);
}
